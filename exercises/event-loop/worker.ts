/** Your piscina worker: piscina calls the default export with each task's argument, in a worker thread. */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import { deriveRingSync } from '@parallel-course/event-loop/work.ts';

export default function deriveRing({ account }: { account: number }): string {
  // TODO(learner): return the account's ring, computed here, in the worker thread: the same bytes the inline
  // handler returns on the main thread.
  return notImplemented('the piscina worker in exercises/event-loop/worker.ts (derive the ring in the worker thread)');
}
