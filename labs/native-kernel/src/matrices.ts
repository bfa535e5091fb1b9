/**
 * The inputs of the native-kernel lab: pairs of n x n matrices of doubles, seeded, in the two layouts the ladder
 * uses (arrays of rows for the naive rung, one flat row-major Float64Array for the others).
 */
import { createRng } from '@parallel-course/core';

/** One sample's input: C = A * B, computed `repeats` times so that one sample is long enough to time well. */
export interface MatmulInput {
  n: number;
  /** A and B row-major: element (i, j) at [i * n + j]. */
  a: Float64Array;
  b: Float64Array;
  /** The same matrices as arrays of rows, for the naive rung (plain JavaScript arrays). */
  aRows: number[][];
  bRows: number[][];
  /** How many products one sample computes (all from the same A and B): 1 for large n, thousands for tiny n. */
  repeats: number;
  /**
   * The product's array, which the typed and native rungs write and return: made with the input, so nothing is
   * allocated inside the timed region, and one per input, so the calls of a sample of several (each on its own copy
   * of the input, harness judge-sampler.ts) keep their own products until the harness has them. It holds the last
   * product written into it, so a kernel that writes only part of C fails its sample's check.
   */
  c: Float64Array;
}

/** Floating-point operations per sample that the repeats aim for (about 2 ms of the typed-array rung here). */
const TARGET_FLOP_PER_SAMPLE = 4e6;
/**
 * At most this many calls per sample: below n = 16 the calls, not the flops, take the time (about 0.5 us per
 * native call here), so the flop target alone would make samples of 100 ms or more.
 */
export const MAX_REPEATS = 20_000;

/** Floating-point operations of one n x n product: n^3 multiply-adds, 2 flop each. */
export function matmulFlop(n: number): number {
  return 2 * n ** 3;
}

/** How many products one sample computes for size n: ceil(TARGET_FLOP_PER_SAMPLE / flop), at least 1, at most MAX_REPEATS. */
export function repeatsFor(n: number): number {
  return Math.min(MAX_REPEATS, Math.max(1, Math.ceil(TARGET_FLOP_PER_SAMPLE / matmulFlop(n))));
}

/** An n x n matrix with entries uniform in [-1, 1), row-major. */
export function randomMatrix(n: number, random: () => number): Float64Array {
  const m = new Float64Array(n * n);
  for (let i = 0; i < m.length; i++) m[i] = 2 * random() - 1;
  return m;
}

/** The rows of a row-major n x n matrix as plain arrays. */
export function toRows(m: Float64Array, n: number): number[][] {
  const rows: number[][] = [];
  for (let i = 0; i < n; i++) rows.push(Array.from(m.subarray(i * n, (i + 1) * n)));
  return rows;
}

/**
 * A seeded input of size n; the seed is mixed with n so every size gets different matrices. The generator is the
 * core's createRng (mulberry32): the same seed gives the same matrices on every machine.
 */
export function makeInput(n: number, seed: number, repeats = repeatsFor(n)): MatmulInput {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
  const random = createRng((seed ^ Math.imul(n, 0x9e3779b1)) >>> 0);
  const a = randomMatrix(n, random);
  const b = randomMatrix(n, random);
  return { n, a, b, aRows: toRows(a, n), bRows: toRows(b, n), repeats, c: new Float64Array(n * n) };
}

/**
 * The matrices makeInput(input.n, seed) would make, written into `input`'s own arrays (a, b and their rows), and a
 * new input object over them. A fresh input per measured sample without allocating one (no garbage for the
 * collector to find inside a timed sample, and the same buffers, as warm in the caches as a repeated input's).
 */
export function refillInput(input: MatmulInput, seed: number): MatmulInput {
  const { n, a, b, aRows, bRows } = input;
  const random = createRng((seed ^ Math.imul(n, 0x9e3779b1)) >>> 0);
  for (let i = 0; i < a.length; i++) a[i] = 2 * random() - 1;
  for (let i = 0; i < b.length; i++) b[i] = 2 * random() - 1;
  for (let i = 0; i < n; i++) {
    const ar = aRows[i] as number[];
    const br = bRows[i] as number[];
    for (let j = 0; j < n; j++) {
      ar[j] = a[i * n + j] as number;
      br[j] = b[i * n + j] as number;
    }
  }
  return { ...input };
}
