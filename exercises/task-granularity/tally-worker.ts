/**
 * Your piscina worker of the `tally` case: the workers add their points into one shared histogram.
 * It runs, and it is wrong: run `npm run lab -- task-granularity --quick` and read the check's message.
 */
import { binOf } from '@parallel-course/task-granularity/monte-carlo.ts';

export interface TallyTask {
  seed: number;
  start: number;
  end: number;
  /** BINS counters over a SharedArrayBuffer that every worker of the run sees. */
  counts: Int32Array;
}

export default function tallyShared({ seed, start, end, counts }: TallyTask): number {
  // TODO(learner): this update races. `counts[bin] += 1` is three steps (read, add, write); when two threads
  // read the same counter before either writes, one increment is lost. Fix it: count into a local
  // new Int32Array(BINS) here (import BINS and addChunk from monte-carlo.ts), then add each bin into the shared
  // counts once with Atomics.add(counts, bin, local[bin]).
  // (Atomics.add on every point is also correct: measure how slow it is, and why.)
  for (let i = start; i < end; i++) counts[binOf(seed, i)]! += 1;
  return end - start;
}
