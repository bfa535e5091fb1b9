/**
 * Your piscina worker of the `tally` case: the workers add their points into one shared histogram.
 * It runs, and it is wrong: run `npm run lab -- task-granularity --quick` and read the check's message.
 */
import { binOf, type TallyTask } from '@parallel-course/task-granularity/monte-carlo.ts';

export default function tallyShared({ seed, start, end, counts }: TallyTask): number {
  // TODO(learner): this update races: two threads that add to the same counter can lose increments (the check says
  // how many). Make it correct, then make it fast. Which operations on shared memory are indivisible? And the
  // histogram has only BINS counters that every worker would hit on every point: how often does a worker really
  // need to touch the shared ones? (monte-carlo.ts has what you need to count a chunk.)
  for (let i = start; i < end; i++) counts[binOf(seed, i)]! += 1;
  return end - start;
}
