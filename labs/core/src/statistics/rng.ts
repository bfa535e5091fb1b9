/**
 * A seeded pseudo-random number generator, so that every bootstrap interval in results.json can be recomputed exactly
 * from the `seed` stored beside it; and the one 32-bit integer hash the labs make their seeded inputs with.
 */
import { StatisticsInputError } from './errors.ts';

/**
 * mulberry32: a 32-bit-state generator returning floats in [0, 1) with 32 random bits each (multiples of 2^-32).
 * Fast and good enough for resampling indices; not for cryptography.
 *
 * The seed is reduced modulo 2^32 (`seed | 0`), so 42 and 2^32 + 42 give the same stream.
 * Each call advances the state by 0x6D2B79F5 and returns a mixed copy of it; the exact bit operations are below, and an
 * instructor's validator in another language must reproduce them (they are plain unsigned 32-bit arithmetic).
 *
 * Source: Tommy Ettinger's Mulberry32 (2017), as collected in bryc's "PRNGs.md"
 * (https://github.com/bryc/code/blob/master/jshash/PRNGs.md).
 *
 * @param seed an integer (results.json stores it as `seed`).
 * @returns a function that returns the next number of the stream, in [0, 1).
 */
export function createRng(seed: number): () => number {
  if (typeof seed !== 'number' || !Number.isInteger(seed)) {
    throw new StatisticsInputError(`createRng: seed must be an integer, got ${String(seed)}; pass the run's --seed`);
  }
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * lowbias32 by Chris Wellons ("Prospecting for hash functions", 2018, https://nullprogram.com/blog/2018/07/31/): a
 * 32-bit integer hash, a bijection with good avalanche (every output bit depends on every input bit), two multiplies
 * and three xor-shifts. The labs' seeded inputs are made with it (task-granularity's points and payloads, the triad's
 * arrays), so a validator in another language reproduces them in plain unsigned 32-bit arithmetic.
 * @returns an unsigned 32-bit integer.
 */
export function lowbias32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}
