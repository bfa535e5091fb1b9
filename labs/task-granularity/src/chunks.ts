/**
 * Splitting an index range into tasks, and the arithmetic of the chunk-size sweep. Pure functions.
 */
import type { ChunkTask, MonteCarloSpec } from './monte-carlo.ts';

/** The tasks of a run: [0, points) cut into consecutive pieces of `chunk` points (the last one may be shorter). */
export function splitIntoTasks(spec: MonteCarloSpec, chunk: number): ChunkTask[] {
  if (!Number.isInteger(chunk) || chunk < 1) throw new RangeError(`chunk must be a positive integer number of points, got ${chunk}`);
  if (!Number.isInteger(spec.points) || spec.points < 0) throw new RangeError(`points must be an integer >= 0, got ${spec.points}`);
  const tasks: ChunkTask[] = [];
  for (let start = 0; start < spec.points; start += chunk) {
    tasks.push({ seed: spec.seed, start, end: Math.min(spec.points, start + chunk) });
  }
  return tasks;
}

/** How many tasks a chunk size makes: ceil(points / chunk). */
export function taskCount(points: number, chunk: number): number {
  return Math.ceil(points / chunk);
}

/**
 * The best efficiency W workers can reach on n equal tasks when nothing else costs anything: the last round of
 * tasks leaves some workers idle. n / (W * ceil(n / W)); e.g. 3 tasks on 2 workers: 3 / 4 = 0.75.
 */
export function balanceLimit(tasks: number, workers: number): number {
  return tasks / (workers * Math.ceil(tasks / workers));
}
