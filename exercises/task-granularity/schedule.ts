/**
 * Your scheduler for the task-granularity lab: one run of the estimate as many tasks of `chunk` points.
 * The harness calls it with a piscina pool of threads and with a pool of child processes (both are TaskRunners).
 * Check your work with:   npm run lab -- task-granularity --quick
 * The episode (episodes/06-task-granularity.mdx) explains why the chunk size matters.
 */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import { splitIntoTasks } from '@parallel-course/task-granularity/chunks.ts';
import { BINS, mergeInto, type MonteCarloSpec } from '@parallel-course/task-granularity/monte-carlo.ts';
import { ChunkFailedError, type ChunkFailure, type TaskRunner } from '@parallel-course/task-granularity/task-runner.ts';

export async function runInChunks(runner: TaskRunner, spec: MonteCarloSpec, chunk: number): Promise<number[]> {
  const tasks = splitIntoTasks(spec, chunk);
  const histogram = new Array<number>(BINS).fill(0);
  const failures: ChunkFailure[] = [];
  // TODO(learner): run every task on the runner and merge each task's histogram into `histogram` (mergeInto).
  // Constraints: no worker ever waits for the main thread to hand it its next task; when a task fails, the others
  // still finish and are observed, and every failure is reported (each as a ChunkFailure in `failures`, then one
  // ChunkFailedError for all of them: read task-runner.ts), because a missing task must never look like a smaller
  // answer. Then return histogram.
  return notImplemented('runInChunks in exercises/task-granularity/schedule.ts (run every chunk task at once and merge the histograms)');
}
