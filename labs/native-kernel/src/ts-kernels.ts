/**
 * The TypeScript rungs of the ladder. Both compute C = A * B for n x n matrices of doubles.
 */

/**
 * Rung 1, naive: the textbook triple loop (i, j, k: a dot product per element) over arrays of rows, allocating
 * the result row by row. Each B[k][j] read strides down a column across separate row arrays.
 */
export function matmulNaive(a: number[][], b: number[][], n: number): number[][] {
  const c: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let k = 0; k < n; k++) sum += a[i]![k]! * b[k]![j]!;
      row.push(sum);
    }
    c.push(row);
  }
  return c;
}

/**
 * Rung 2, typed arrays and a tight loop: flat row-major Float64Arrays (unboxed doubles, one allocation, no
 * bounds surprises for the JIT) and the i-k-j order, whose inner loop walks B and C with unit stride.
 * This is the loop solutions/native-kernel/kernel.cc runs in C++; every element sums its k terms in the same
 * order as matmulNaive, so results differ only where the C++ compiler fuses a multiply and an add (FMA).
 * Writes c (length n*n) in place.
 */
export function matmulTyped(a: Float64Array, b: Float64Array, c: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let j = 0; j < n; j++) c[row + j] = 0;
    for (let k = 0; k < n; k++) {
      const aik = a[row + k]!;
      const bRow = k * n;
      for (let j = 0; j < n; j++) c[row + j]! += aik * b[bRow + j]!;
    }
  }
}
