// The threaded SIMD rung of the matrix product: the same SIMD loop as matmul-simd.as.ts (simd-rows.as.ts), in a module that imports its
// memory (env.memory, a shared WebAssembly.Memory the page creates), built with --importMemory --sharedMemory
// --enable simd,threads. Every Web Worker instantiates this module on that one memory and computes its own block of
// rows; the page writes A and B once and reads C, at the offsets of matmul-scalar.as.ts (A at 0, B at n*n*8, C at
// 2*n*n*8). The memory is sized by the page (it cannot grow here: growing shared memory from several threads at once
// is a race this rung does not need).
import { matmulSimdRows } from './simd-rows.as';

/** Rows first..last-1 of C = A * B, `reps` times over (every repetition recomputes those rows from A and B). */
export function matmulSimdRowsRepeated(n: i32, first: i32, last: i32, reps: i32): void {
  for (let r = 0; r < reps; r++) matmulSimdRows(n, first, last);
}
