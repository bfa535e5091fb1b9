/**
 * Your scheduler for the task-granularity lab: one run of the estimate as many tasks of `chunk` points.
 * The harness calls it with a piscina pool of threads and with a pool of child processes (both are TaskRunners).
 * Check your work with:   npm run lab -- task-granularity --quick
 * The episode (episodes/06-task-granularity.mdx) explains why the chunk size matters.
 */
import { notImplemented } from '@parallel-course/harness/lab-definition.ts';
import { splitIntoTasks } from '@parallel-course/task-granularity/chunks.ts';
import { BINS, mergeInto, type MonteCarloSpec } from '@parallel-course/task-granularity/monte-carlo.ts';
import { ChunkFailedError, type ChunkFailure, type TaskRunner } from '@parallel-course/task-granularity/task-runner.ts';

export async function runInChunks(runner: TaskRunner, spec: MonteCarloSpec, chunk: number): Promise<number[]> {
  const tasks = splitIntoTasks(spec, chunk);
  const histogram = new Array<number>(BINS).fill(0);
  const failures: ChunkFailure[] = [];
  // TODO(learner): hand every task to the runner at once (tasks.map((task) => runner.run(task))), so no worker
  // waits for the main thread, and wait for all of them with Promise.allSettled. Merge each fulfilled histogram
  // into `histogram` with mergeInto; push each rejected one as { task, error } onto `failures`. If any failed,
  // throw new ChunkFailedError(failures, tasks.length): a missing task must never look like a smaller answer.
  // Then return histogram.
  return notImplemented('runInChunks in exercises/task-granularity/schedule.ts (run every chunk task at once and merge the histograms)');
}
