// The threaded rung of the matrix product: the register-blocked kernel of matmul-blocked.as.ts (simd-blocked.as.ts),
// in a module that imports its memory (env.memory, a shared WebAssembly.Memory the page creates), built with
// --importMemory --sharedMemory --enable simd,threads (and relaxed-simd for the relaxed build). Every Web Worker
// instantiates this module on that one memory and computes its own block of rows, packing B's panels into its own
// region (`pack`); the page writes A and B once and reads C, at the offsets of matmul-scalar.as.ts (A at 0, B at
// n*n*8, C at 2*n*n*8). The memory is sized by the page (it cannot grow here: growing shared memory from several
// threads at once is a race this rung does not need).
import { matmulBlockedRows } from './simd-blocked.as';

/**
 * Rows first..last-1 of C = A * B, `reps` times over (every repetition recomputes those rows from A and B), with
 * B's panels packed at byte `pack` (n * 32 bytes of this worker's own).
 */
export function matmulBlockedRowsRepeated(n: i32, first: i32, last: i32, reps: i32, pack: usize): void {
  for (let r = 0; r < reps; r++) matmulBlockedRows(n, first, last, pack);
}
