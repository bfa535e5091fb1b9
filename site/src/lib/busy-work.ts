/**
 * The CPU task of the event-loop demo: count the primes below `limit` by trial division.
 * Real work with a checkable answer (pi(10) = 4, pi(100) = 25, pi(1e6) = 78498), deterministic, no memory traffic:
 * the same task runs on the main thread or in a Web Worker, and both must return the same count.
 */
export function countPrimesBelow(limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  let count = 0;
  for (let n = 2; n < limit; n++) {
    let prime = true;
    for (let d = 2; d * d <= n; d++) {
      if (n % d === 0) {
        prime = false;
        break;
      }
    }
    if (prime) count++;
  }
  return count;
}
