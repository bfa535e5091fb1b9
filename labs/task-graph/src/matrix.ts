/**
 * The work of the task-graph lab: products of square matrices of integers modulo a prime. The product is
 * associative, so any bracketing of M0 · M1 · ... · M(k-1) gives the same matrix, exactly; it is not commutative, so
 * a graph that multiplies in the wrong order gives another one. Pure code: the serial baseline, the expected output and the
 * pool's workers all call `multiplyMod`.
 */

/** The modulus: a prime near 2^20. An entry is below it, so a product of two is below 2^40 and a row sum of n of
 * them below n·2^40: exact in a float64 (53-bit mantissa) for n up to 2^13 (MAX_SIZE keeps n far below). */
export const MODULUS = 1_000_003;

/** The largest matrix side the lab accepts (the exactness bound above, with room to spare). */
export const MAX_SIZE = 1024;

/** A square matrix of side `n`, row-major, entries integers in [0, MODULUS). */
export type Matrix = Float64Array;

/** The side of a square matrix, or a clear error when its length is not a square. */
export function sideOf(m: Matrix): number {
  const n = Math.round(Math.sqrt(m.length));
  if (n * n !== m.length) throw new RangeError(`a matrix of ${m.length} entries is not square`);
  return n;
}

/** A 32-bit mix of (seed, index): the entries of the seeded inputs (splitmix-like, Math.imul keeps it in 32 bits). */
function mix(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Matrix `which` of a seeded input: n x n entries, each a function of (seed, which, row, column). */
export function seededMatrix(seed: number, which: number, n: number): Matrix {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SIZE) throw new RangeError(`matrix side must be an integer in [1, ${MAX_SIZE}], got ${n}`);
  const m = new Float64Array(n * n);
  const base = mix(seed, which);
  for (let i = 0; i < m.length; i++) m[i] = mix(base, i) % MODULUS;
  return m;
}

/** The inputs of one product: `count` seeded matrices of side `n`. */
export function seededMatrices(seed: number, count: number, n: number): Matrix[] {
  return Array.from({ length: count }, (_, k) => seededMatrix(seed, k, n));
}

/**
 * a · b mod MODULUS, into a new matrix. The loop order i-k-j walks b and the output row by row (unit stride), the
 * cache-friendly order episode 07 derives; the sums stay exact (see MODULUS) and are reduced once per entry.
 */
export function multiplyMod(a: Matrix, b: Matrix): Matrix {
  const n = sideOf(a);
  if (b.length !== a.length) throw new RangeError(`cannot multiply a ${n}x${n} matrix by one of ${b.length} entries`);
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let k = 0; k < n; k++) {
      const aik = a[row + k]!;
      const bk = k * n;
      for (let j = 0; j < n; j++) c[row + j]! += aik * b[bk + j]!;
    }
    for (let j = 0; j < n; j++) c[row + j] = c[row + j]! % MODULUS;
  }
  return c;
}

/** The product of `matrices` left to right on this thread: the serial baseline and the expected output. */
export function productSerial(matrices: readonly Matrix[]): Matrix {
  if (matrices.length === 0) throw new RangeError('the product of no matrices is not defined here: give at least one');
  let acc = matrices[0]!;
  for (let k = 1; k < matrices.length; k++) acc = multiplyMod(acc, matrices[k]!);
  return acc;
}
