/**
 * One child process of the process pool: counts chunks sent over IPC and answers with their histograms.
 * It exits when its parent goes away (the IPC channel closes), so a crashed parent leaves no process behind.
 */
import { exitWithParent } from '@parallel-course/harness/learner.ts';
import { countChunk } from './monte-carlo.ts';
import type { FromChild, ToChild } from './process-protocol.ts';
import { applyFault } from './task-runner.ts';

function send(message: FromChild): void {
  process.send?.(message);
}

if (!process.send) {
  console.error('process-worker.ts runs as a child of the process pool (child_process.fork), not on its own');
  process.exit(2);
}

process.on('message', (message: ToChild) => {
  if (message.type !== 'task') return;
  try {
    applyFault(message.task);
    const started = process.hrtime.bigint();
    const counts = countChunk(message.task);
    send({ type: 'result', id: message.id, counts, computeNs: Number(process.hrtime.bigint() - started) });
  } catch (error) {
    send({ type: 'error', id: message.id, message: error instanceof Error ? error.message : String(error) });
  }
});
// No watchdog thread here: its memory would count in the per-child memory this lab measures.
exitWithParent();
send({ type: 'ready' });
