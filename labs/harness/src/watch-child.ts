/**
 * One correctness check in a fresh process, for `--watch`. A new process per check is what makes a saved edit take
 * effect: Node caches every imported module (and a loaded native addon) for the life of a process.
 * Input: argv[2] is JSON CheckLabOptions. Output: one IPC message, { outcome } or { error }.
 */
import { exitWithParent } from './child-process.ts';
import { checkLab, type CheckLabOptions } from './run-lab.ts';

exitWithParent();

export type WatchChildMessage = { outcome: Awaited<ReturnType<typeof checkLab>> } | { error: string };

const options = JSON.parse(process.argv[2] ?? '{}') as CheckLabOptions;
let message: WatchChildMessage;
try {
  message = { outcome: await checkLab(options) };
} catch (error) {
  message = { error: error instanceof Error ? error.message : String(error) };
}
// Exit once the message is out: a lab's pool or server left open must not keep this process alive.
process.send?.(message, () => process.exit(0));
