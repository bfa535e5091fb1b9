import { countPrimesInRange } from '../browser-lab/primes.ts';

/**
 * The CPU task of the event-loop demo: count the primes below `limit` by trial division (the in-page lab's handler,
 * browser-lab/primes.ts, over [0, limit)).
 * Real work with a checkable answer (pi(10) = 4, pi(100) = 25, pi(1e6) = 78498), deterministic, no memory traffic:
 * the same task runs on the main thread or in a Web Worker, and both must return the same count.
 */
export function countPrimesBelow(limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  return countPrimesInRange(0, limit);
}
