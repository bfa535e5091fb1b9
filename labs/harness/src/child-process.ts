/**
 * The harness's one helper for child processes: every process a lab or the harness forks ends by itself when its
 * parent goes away, so a killed harness (SIGKILL, a Slurm job cancelled, a closed laptop lid) never leaves servers
 * listening or pools spinning.
 *
 * Two signals tell a child its parent is gone:
 * - the IPC channel closes ('disconnect'): immediate, but only noticed while the child's event loop runs;
 * - the parent PID changes (the child was re-parented to init or a subreaper): polled by a small watchdog thread,
 *   whose own event loop keeps running while learner code blocks the child's main thread in a synchronous loop.
 *   Node has no prctl(PR_SET_PDEATHSIG); a worker thread polling `process.ppid` is the portable stand-in.
 */
import { Worker } from 'node:worker_threads';

/** How often the watchdog thread looks at the parent PID, in ms. A killed harness's children are gone within it. */
export const PARENT_POLL_MS = 250;

/** The exit code of a child that ended because its parent went away (EX_UNAVAILABLE in sysexits.h). */
export const EXIT_PARENT_GONE = 69;

// CommonJS in an eval'd worker: the smallest thread that can watch (no module graph to load).
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.ppid) process.kill(process.pid, 'SIGKILL');
}, workerData.pollMs);
`;

export interface ExitWithParentOptions {
  /**
   * Also end the process when its main thread is blocked (learner code in a synchronous loop) by watching the parent
   * PID from a worker thread. Costs one thread (a few MiB); leave it off in children whose memory is being measured.
   */
  evenIfBlocked?: boolean;
}

let installed = false;
let leaving = false;

/**
 * Closes the IPC channel on purpose (after a clean shutdown): the process then exits with its own exit code once
 * queued messages are out, instead of EXIT_PARENT_GONE.
 */
export function leaveParent(): void {
  leaving = true;
  process.disconnect?.();
}

/** Makes this process exit when its parent goes away. Idempotent; a no-op in a process that was not forked. */
export function exitWithParent(options: ExitWithParentOptions = {}): void {
  if (installed || !process.send) return;
  installed = true;
  process.on('disconnect', () => process.exit(leaving ? Number(process.exitCode ?? 0) : EXIT_PARENT_GONE));
  if (options.evenIfBlocked) {
    const watchdog = new Worker(WATCHDOG_SOURCE, {
      eval: true,
      workerData: { ppid: process.ppid, pollMs: PARENT_POLL_MS },
      // The watchdog needs none of the parent's flags or stdio.
      stdout: false,
      stderr: false,
      env: {},
    });
    watchdog.unref();
  }
}
