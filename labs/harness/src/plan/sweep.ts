/**
 * Worker counts for a sweep that follows the node, the same rule in every lab: every count up to 4, then powers of
 * two, then P itself (the CPUs the job may use, cpus.ts), and where it teaches something one oversubscribed point,
 * 2P, to show what time-slicing does. So 2 CPUs give 1, 2 (+4); 16 give 1, 2, 3, 4, 8, 16 (+32); 96 give
 * 1, 2, 3, 4, 8, 16, 32, 64, 96 (+192): the Amdahl fit gets points all the way up, and the case count grows with
 * log P, not P.
 */
export interface SweepOptions {
  /** Add 2P, oversubscribed on purpose (the event-loop lab shows what time-slicing costs). */
  oversubscribe?: boolean;
  /** The largest count to plan, whatever P is (e.g. 8 device processes); P is still the last point below it. */
  max?: number;
}

export function workerSweep(p: number, options: SweepOptions = {}): number[] {
  if (!Number.isInteger(p) || p < 1) throw new RangeError(`workerSweep: P must be a positive integer, got ${p}`);
  const top = Math.min(p, options.max ?? p);
  const counts = new Set<number>();
  for (let w = 1; w <= Math.min(4, top); w++) counts.add(w);
  for (let w = 8; w < top; w *= 2) counts.add(w);
  counts.add(top);
  if (options.oversubscribe && (options.max === undefined || 2 * p <= options.max)) counts.add(2 * p);
  return [...counts].sort((a, b) => a - b);
}

/**
 * The short sweep of a lab that sets a few pool sizes side by side rather than fitting a curve: 1, 2 and P, each once
 * (P = 1 gives [1], P = 2 gives [1, 2]), ascending. task-granularity's chunk-size curves and task-graph's products.
 */
export function shortWorkerSweep(p: number): number[] {
  if (!Number.isInteger(p) || p < 1) throw new RangeError(`shortWorkerSweep: P must be a positive integer, got ${p}`);
  return [...new Set([1, 2, p].filter((w) => w <= p))].sort((a, b) => a - b);
}
