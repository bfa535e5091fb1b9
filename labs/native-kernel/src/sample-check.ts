/**
 * The check of one measured sample on its fresh matrices (lab.ts measureAt), in O(n^2) rather than the expected
 * output's O(n^3): Freivalds' test, C r = A (B r) for a random vector r, plus a few entries of C recomputed as dot products.
 * A kernel that skips rows (issue 42: one that noticed a repeated product and recomputed a quarter of the rows
 * PASSed at 3.85) leaves whole rows of C from the last input, or unwritten, and each such row misses by about
 * sqrt(n), far beyond the tolerance; a non-finite entry fails too.
 *
 * The tolerance, from the dot-product bound of tolerance.ts (gamma_n = n u / (1 - n u); entries of A, B and r in
 * [-1, 1], so |C_ij| <= n): a correct C_ij is within gamma_n n of the exact product, so sum_j (C_ij - P_ij) r_j is
 * within gamma_n n^2; computing C r rounds within gamma_n n^2; B r is within gamma_n n per entry, so A (B r) is
 * within gamma_n n^2 of A B r, plus gamma_n n^2 of its own rounding. In all 4 gamma_n n^2 = 2 n productTolerance(n);
 * the check allows twice that. The entries recomputed exactly use productTolerance(n), the lab's own comparator's.
 */
import { randomFillSync } from 'node:crypto';
import type { Comparison } from '@parallel-course/harness';
import type { MatmulInput } from './matrices.ts';
import { productTolerance } from './tolerance.ts';

// Captured when the lab loads, before any learner module: r is drawn after the kernel has answered, from the CSPRNG.
const fillRandom = randomFillSync;

/** Entries of C recomputed in full per sample, at random positions. */
export const SPOT_ENTRIES = 8;

/** Freivalds' tolerance per entry of C r for an n x n product (see above): 4 n productTolerance(n). */
export function freivaldsTolerance(n: number): number {
  return 4 * n * productTolerance(n);
}

function randomUnit(count: number): Float64Array {
  const words = fillRandom(new Uint32Array(count));
  const r = new Float64Array(count);
  for (let i = 0; i < count; i++) r[i] = ((words[i] as number) / 2 ** 32) * 2 - 1;
  return r;
}

function times(m: Float64Array | ArrayLike<number>, v: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    const row = i * n;
    for (let j = 0; j < n; j++) sum += (m[row + j] as number) * (v[j] as number);
    out[i] = sum;
  }
  return out;
}

function mismatch(index: string, expected: number, actual: number, err: number): Comparison {
  return { equal: false, firstMismatch: { index, expected: String(expected), actual: String(actual) }, maxAbsError: Number.isFinite(err) ? err : Number.MAX_VALUE, maxRelError: null };
}

/** Checks `c` = input.a x input.b (row-major, n x n) in O(n^2); the first row or entry off names where. */
export function checkProduct(input: MatmulInput, c: ArrayLike<number>): Comparison {
  const { n, a, b } = input;
  if (c.length !== n * n) return { equal: false, firstMismatch: { index: 'length', expected: String(n * n), actual: String(c.length) }, maxAbsError: null, maxRelError: null };
  const r = randomUnit(n);
  const expected = times(a, times(b, r, n), n);
  const actual = times(c, r, n);
  const tolerance = freivaldsTolerance(n);
  let maxAbsError = 0;
  for (let i = 0; i < n; i++) {
    const err = Math.abs((actual[i] as number) - (expected[i] as number));
    // `!(err <= tol)` so that NaN fails.
    if (!(err <= tolerance)) return mismatch(`row ${i} (C r, random r)`, expected[i] as number, actual[i] as number, err);
    maxAbsError = Math.max(maxAbsError, err);
  }
  const spots = fillRandom(new Uint32Array(SPOT_ENTRIES));
  for (const word of spots) {
    const k = word % (n * n);
    const i = Math.floor(k / n);
    const j = k % n;
    let sum = 0;
    for (let t = 0; t < n; t++) sum += (a[i * n + t] as number) * (b[t * n + j] as number);
    const err = Math.abs((c[k] as number) - sum);
    if (!(err <= productTolerance(n))) return mismatch(String(k), sum, c[k] as number, err);
  }
  return { equal: true, firstMismatch: null, maxAbsError, maxRelError: null };
}

/**
 * The entries of C = A B at `positions` (row-major k = i n + j), each one dot product of row i of A and column j of B:
 * what the judge checks a product too large to send whole against (lab.ts expectedAtPositions), O(n) per entry.
 */
export function productAt(input: MatmulInput, positions: readonly number[]): Float64Array {
  const { n, a, b } = input;
  const values = new Float64Array(positions.length);
  for (let p = 0; p < positions.length; p++) {
    const k = positions[p] as number;
    const i = Math.floor(k / n);
    const j = k % n;
    let sum = 0;
    for (let t = 0; t < n; t++) sum += (a[i * n + t] as number) * (b[t * n + j] as number);
    values[p] = sum;
  }
  return values;
}
