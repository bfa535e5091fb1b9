/**
 * What the learner's scheduler talks to: anything that runs one chunk task somewhere and resolves to its histogram.
 * A piscina pool of threads (`pool.run`) and the lab's pool of child processes (`ProcessPool.run`) both fit.
 */
import type { ChunkTask } from './monte-carlo.ts';

/** A test-only instruction the lab's workers obey, to show what happens when a task fails or a worker dies. */
export type InjectedFault = 'throw' | 'exit';

export interface FaultyChunkTask extends ChunkTask {
  fault?: InjectedFault;
}

export interface TaskRunner {
  run(task: FaultyChunkTask): Promise<number[]>;
}

/** One task that did not produce a result, and why. */
export interface ChunkFailure {
  task: ChunkTask;
  error: unknown;
}

/** "[start, end)" for messages. */
export function describeTask(task: ChunkTask): string {
  return `chunk [${task.start}, ${task.end}) of seed ${task.seed}`;
}

/**
 * Some tasks of a run failed. Every failed task is listed with its error, so no result goes missing silently;
 * the tasks that succeeded are counted, and the run's partial histogram is not returned (it would be wrong).
 */
export class ChunkFailedError extends Error {
  readonly code = 'CHUNK_FAILED';
  readonly failures: ChunkFailure[];
  readonly tasks: number;
  constructor(failures: ChunkFailure[], tasks: number) {
    const first = failures[0];
    const cause = first && first.error instanceof Error ? first.error.message : String(first?.error);
    super(
      `${failures.length} of ${tasks} tasks failed; first: ${first ? describeTask(first.task) : '?'}: ${cause}` +
        (failures.length > 1 ? ` (and ${failures.length - 1} more, see .failures)` : ''),
    );
    this.name = 'ChunkFailedError';
    this.failures = failures;
    this.tasks = tasks;
  }
}

/** Applies an injected fault, in a worker thread or a child process. `exit` ends that thread or process only. */
export function applyFault(task: FaultyChunkTask): void {
  if (task.fault === 'throw') throw new Error(`injected fault: the task for ${describeTask(task)} threw`);
  if (task.fault === 'exit') process.exit(3);
}
