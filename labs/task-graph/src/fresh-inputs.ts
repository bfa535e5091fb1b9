/**
 * Fresh products (issue 42): every measured sample multiplied the same matrices. The graph API already keeps an
 * answer from coming from anywhere but this sample's graph (task-graph.ts finish), but a lab's inputs vary where they
 * can: sample number k (drawn by the judge, revealed only with its sample) multiplies matrices of its own, made before
 * its clock starts, and the product is checked after the clock stops in O(count n^2), not by the O(count n^3)
 * product: Freivalds' test modulo MODULUS, P r = M_1 (M_2 (... (M_count r))) for a random vector r.
 */
import { randomFillSync } from 'node:crypto';
import { freshSeed, type Comparison } from '@parallel-course/harness';
import { MODULUS, seededMatrices, sideOf, type Matrix } from './matrix.ts';

// Captured when the lab loads, before any learner module: the vectors are drawn after the product is in.
const fillRandom = randomFillSync;

/**
 * Random vectors per check: a wrong product passes one with probability at most 1 / MODULUS (about 1e-6) per sample,
 * and a variant wrong on every sample fails on the first.
 */
const CHECK_VECTORS = 1;

/** The matrices of fresh sample `sample`: as many and as large as the measured product's, so the same work. */
export function freshProduct(seed: number, sample: number, count: number, size: number): Matrix[] {
  return seededMatrices(freshSeed(seed, sample), count, size);
}

/** m v modulo MODULUS, exact: entries below MODULUS, so each sum stays below n 2^40 (matrix.ts). */
function timesVector(m: ArrayLike<number>, v: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    const row = i * n;
    for (let j = 0; j < n; j++) sum += (m[row + j] as number) * (v[j] as number);
    out[i] = sum % MODULUS;
  }
  return out;
}

/** Checks `product` = matrices[0] ... matrices[count - 1] modulo MODULUS, exactly, with CHECK_VECTORS random vectors. */
export function checkChain(matrices: readonly Matrix[], product: ArrayLike<number>): Comparison {
  const first = matrices[0];
  if (!first) throw new RangeError('checkChain needs at least one matrix');
  const n = sideOf(first);
  if (product.length !== n * n) return { equal: false, firstMismatch: { index: 'length', expected: String(n * n), actual: String(product.length) }, maxAbsError: null, maxRelError: null };
  for (let round = 0; round < CHECK_VECTORS; round++) {
    const words = fillRandom(new Uint32Array(n));
    const r = Float64Array.from(words, (w) => w % MODULUS);
    let expected: Float64Array = r;
    for (let k = matrices.length - 1; k >= 0; k--) expected = timesVector(matrices[k] as Matrix, expected, n);
    const actual = timesVector(product, r, n);
    for (let i = 0; i < n; i++) {
      // `!==` also fails NaN and entries that are not reduced integers (their row sums come out wrong).
      if (actual[i] !== expected[i]) {
        return { equal: false, firstMismatch: { index: `row ${i} (P r mod ${MODULUS}, random r)`, expected: String(expected[i]), actual: String(actual[i]) }, maxAbsError: null, maxRelError: null };
      }
    }
  }
  return { equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: null };
}
