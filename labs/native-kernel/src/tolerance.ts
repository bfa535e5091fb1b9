/**
 * The check's tolerance for a matrix product, derived rather than guessed.
 *
 * Every rung sums each element's n products in the same order (k = 0..n-1), so results can differ only in rounding:
 * a C++ build may fuse a*b + c into one FMA (one rounding instead of two), and -march=native does so here.
 * The classic bound for a computed dot product (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * eq. 3.5) is |fl(x.y) - x.y| <= gamma_n * sum |x_k y_k|, gamma_n = n u / (1 - n u), u = 2^-53. With entries in
 * [-1, 1), sum |x_k y_k| <= n, so each of two computations is within gamma_n * n of the exact value, and two
 * computations differ by at most 2 * gamma_n * n.
 */
import { withinTolerance } from '@parallel-course/harness/comparators.ts';
import type { Comparator } from '@parallel-course/harness/lab-definition.ts';

/** Unit roundoff of IEEE-754 double precision. */
export const UNIT_ROUNDOFF = 2 ** -53;

/** The largest difference two correct n x n products of matrices with entries in [-1, 1) may show. */
export function productTolerance(n: number): number {
  const nu = n * UNIT_ROUNDOFF;
  return (2 * nu * n) / (1 - nu);
}

/** The lab's comparator: absolute tolerance from the largest size in the sweep, no relative part. */
export function matmulComparator(maxN: number): Comparator<Float64Array> {
  const inner = withinTolerance({ abs: productTolerance(maxN), rel: 0 });
  return {
    description: `|actual - expected| <= 2·γ(n)·n = ${productTolerance(maxN).toExponential(2)} for n <= ${maxN} (entries in [-1, 1), Higham 3.5)`,
    compare: (expected, actual) => inner.compare(expected, actual),
  };
}
