/**
 * The event-loop lab's request handler, for the page and its workers: a "request" counts the primes in one block of
 * BLOCK numbers by trial division (CPU only, no memory traffic, a checkable answer). Request r works on block r mod
 * BLOCKS, so a sample of any number of requests has a known answer (expectedPrimes, from a sieve).
 */
export const BASE = 1_000_000;
/**
 * Numbers per request: about 1.5 ms of trial division on a laptop core (0.3 ms at 2,000, where a 20 ms sample of 68
 * requests gave the pool's per-sample hand-over and a loaded machine's scheduling most of the time: the pool came out
 * 0.56x inline, issue 44). A request now weighs like a real handler's, so the pool's gain can show.
 */
export const BLOCK = 10_000;
const BLOCKS = 64;

/** Primes in [start, end) by trial division: the CPU-heavy handler. */
export function countPrimesInRange(start: number, end: number): number {
  let count = 0;
  for (let n = Math.max(2, start); n < end; n++) {
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

/** The answer of requests [from, from + count): the handler run request by request. */
export function handleRequests(from: number, count: number, handler = countPrimesInRange): number {
  let total = 0;
  for (let r = from; r < from + count; r++) {
    const block = r % BLOCKS;
    total += handler(BASE + block * BLOCK, BASE + (block + 1) * BLOCK);
  }
  return total;
}

let blockCounts: number[] | null = null;

/** The primes in each block, from a sieve of Eratosthenes: the expected counts, from code that shares nothing with the handler. */
function expectedBlockCounts(): number[] {
  if (blockCounts) return blockCounts;
  const limit = BASE + BLOCKS * BLOCK;
  const composite = new Uint8Array(limit);
  for (let p = 2; p * p < limit; p++) {
    if (composite[p]) continue;
    for (let m = p * p; m < limit; m += p) composite[m] = 1;
  }
  blockCounts = Array.from({ length: BLOCKS }, (_, b) => {
    let count = 0;
    for (let n = BASE + b * BLOCK; n < BASE + (b + 1) * BLOCK; n++) if (!composite[n]) count++;
    return count;
  });
  return blockCounts;
}

/** What `reps` requests starting at request 0 must return. */
export function expectedPrimes(reps: number): number {
  const counts = expectedBlockCounts();
  const full = Math.floor(reps / BLOCKS);
  let total = full * counts.reduce((a, b) => a + b, 0);
  for (let r = 0; r < reps % BLOCKS; r++) total += counts[r]!;
  return total;
}
