/**
 * A correctness check in a child process (watch-child.ts), for `--status`: each lab is imported in a fresh process,
 * so one lab's threads, servers or native addon cannot leak into the next, and a hung check can be stopped.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CheckLabOptions, CheckLabOutcome } from './run-lab.ts';
import type { WatchChildMessage } from './watch-child.ts';

const CHILD = fileURLToPath(new URL('./watch-child.ts', import.meta.url));

/** Longest a whole lab check may take before it is stopped, in ms (the slowest lab checks in about 20 s here). */
export const CHECK_PROCESS_TIMEOUT_MS = 180_000;

export function checkLabInChild(options: CheckLabOptions, timeoutMs = CHECK_PROCESS_TIMEOUT_MS): Promise<CheckLabOutcome | { error: string }> {
  return new Promise((resolve) => {
    const child = fork(CHILD, [JSON.stringify(options)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    let answer: CheckLabOutcome | { error: string } | null = null;
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      answer = { error: `the check did not finish within ${timeoutMs / 1000} s and was stopped` };
      child.kill('SIGTERM');
    }, timeoutMs);
    child.on('message', (message: WatchChildMessage) => {
      answer ??= 'error' in message ? { error: message.error } : message.outcome;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(answer ?? { error: `the check process ended without an answer (exit ${code ?? signal}): ${stderr.trim().split('\n').slice(-3).join(' / ')}` });
    });
  });
}
