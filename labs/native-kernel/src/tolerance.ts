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
import { formatScientific } from '@parallel-course/core';
import { type Comparator, withinTolerance } from '@parallel-course/harness';

/** Unit roundoff of IEEE-754 double precision. */
export const UNIT_ROUNDOFF = 2 ** -53;

/** The largest difference two correct n x n products of matrices with entries in [-1, 1) may show. */
export function productTolerance(n: number): number {
  const nu = n * UNIT_ROUNDOFF;
  return (2 * nu * n) / (1 - nu);
}

/**
 * The bound for two products whose sums each run through at most `depthA` and `depthB` roundings per term
 * (Higham 3.5 with gamma of the depth): (gamma_depthA + gamma_depthB) * n for entries in [-1, 1).
 */
export function pairTolerance(n: number, depthA: number, depthB: number): number {
  const gamma = (d: number) => (d * UNIT_ROUNDOFF) / (1 - d * UNIT_ROUNDOFF);
  return (gamma(depthA) + gamma(depthB)) * n;
}

/**
 * Roundings one product term meets in the blocked order (native/blocked.h) with k in blocks of kc: at most
 * min(n, kc) in its block (the product and the block's additions in the micro-kernel's register) and
 * ceil(n / kc) - 1 more adding the block sums to c (the first lands on a zeroed c, exactly).
 */
export function blockedDepth(n: number, kc: number): number {
  return Math.min(n, kc) + Math.ceil(n / kc) - 1;
}

/**
 * The blocked rung's tolerance against the i-k-j expected output (depth n): (gamma_n + gamma_depth) * n, for the WORST
 * block size. The block size kKc is the learner's choice (exercises/native-kernel/blocked.cc), and the check must
 * admit every correct kernel, so the depth is the largest over every kc >= 1, not the solution's kKc = 192 (depth
 * 197 at n = 1024). kc + ceil(n / kc) - 1 <= kc + (n - 1) / kc, convex in kc, so its maximum over 1 <= kc <= n is at
 * an end: n at kc = 1 (every block one term, n - 1 additions into c) and at kc >= n (one block, the i-k-j depth).
 * The worst case is therefore depth n, the i-k-j bound itself: 2 gamma_n n, whatever kKc a learner picks. The loop
 * order does not change it either: for each element of c the block sums still arrive one after another. Nor would
 * unequal blocks: for any split of n terms into blocks, the largest block plus the count of the others is at most n.
 * Computed here as the maximum over kc = 1..n, so the bound is checked, not only argued.
 */
export function blockedTolerance(n: number): number {
  let depth = 1;
  for (let kc = 1; kc <= n; kc++) depth = Math.max(depth, blockedDepth(n, kc));
  return pairTolerance(n, n, depth);
}

/** solutions/native-kernel/blocked.cc's kKc: the solution's own depth (blockedDepth(n, BLOCKED_KC)), for comparison. */
export const BLOCKED_KC = 192;

/**
 * A BLAS's dgemm may sum in any order (OpenBLAS splits k into blocks much as native/blocked.cc does). Higham's bound
 * holds for every order with depth n (each term meets at most n roundings: n - 1 additions and its product), so
 * against the expected output: 2 * gamma_n * n, the lab's own productTolerance.
 */
export function blasTolerance(n: number): number {
  return pairTolerance(n, n, n);
}

/** The lab's comparator: absolute tolerance from the largest size in the sweep, no relative part. */
export function matmulComparator(maxN: number): Comparator<Float64Array> {
  const inner = withinTolerance({ abs: productTolerance(maxN), rel: 0 });
  return {
    description: `|actual - expected| <= 2·γ(n)·n = ${formatScientific(productTolerance(maxN))} for n <= ${maxN} (entries in [-1, 1), Higham 3.5)`,
    compare: (expected, actual) => inner.compare(expected, actual),
  };
}
