// The threaded rung of the matrix product: the register-blocked kernel of matmul-blocked.as.ts (simd-blocked.as.ts),
// in a module that imports its memory (env.memory, a shared WebAssembly.Memory the page creates), built with
// --importMemory --sharedMemory --enable simd,threads (and relaxed-simd for the relaxed build). Every Web Worker
// instantiates this module on that one memory and computes its own block of columns, packing only its own panels of
// B into its own region (`pack`); the page writes A and B once and reads C, at the offsets of matmul-scalar.as.ts (A
// at 0, B at n*n*8, C at 2*n*n*8). The memory is sized by the page (it cannot grow here: growing shared memory from
// several threads at once is a race this rung does not need).
import { matmulBlockedColumns } from './simd-blocked.as';

/**
 * Columns j0..j1-1 of C = A * B, every row, `reps` times over (every repetition recomputes them from A and B), with
 * B's panels packed at byte `pack` (n * 32 bytes of this worker's own).
 */
export function matmulBlockedColumnsRepeated(n: i32, j0: i32, j1: i32, reps: i32, pack: usize): void {
  for (let r = 0; r < reps; r++) matmulBlockedColumns(n, j0, j1, pack);
}
