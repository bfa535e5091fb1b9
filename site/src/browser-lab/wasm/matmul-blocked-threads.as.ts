// The threaded rung of the matrix product: the register-blocked kernel of matmul-blocked.as.ts (simd-blocked.as.ts),
// in a module that imports its memory (env.memory, a shared WebAssembly.Memory the page creates), built with
// --importMemory --sharedMemory --enable simd,threads (and relaxed-simd for the relaxed build). Every Web Worker
// instantiates this module on that one memory; the page writes A and B once and reads C, at the offsets of
// matmul-scalar.as.ts (A at 0, B at n*n*8, C at 2*n*n*8). The memory is sized by the page (it cannot grow here:
// growing shared memory from several threads at once is a race this rung does not need).
import { matmulBlockedColumns } from './simd-blocked.as';

/** Columns of one panel of B (NR in simd-blocked.as.ts): the unit of work a worker claims. */
const PANEL = 4;

/**
 * Claims panels of 4 columns of C = A * B from the shared counter at byte `claim` (an atomic add: each panel goes to
 * exactly one caller) and computes each claimed panel, every row, `reps` times over (every repetition recomputes it
 * from A and B, packing B's panel at byte `pack`, n * 32 bytes of this caller's own), until no panel is left. The last
 * panel holds the columns past the last multiple of 4 (n not a multiple of 4). Every caller on one memory claims from
 * one counter, so a worker that started late or lost its CPU for a while takes fewer panels and the others more
 * (dynamic scheduling): the sample ends when the work is done, not when the slowest fixed share is. All repetitions of
 * a panel stay with the worker that claimed it, so no two workers ever write the same column of C.
 * Returns the columns it computed times `reps`.
 */
export function matmulBlockedClaimPanels(n: i32, reps: i32, pack: usize, claim: usize): i32 {
  const panels = (n + PANEL - 1) / PANEL;
  let columns = 0;
  for (let p = atomic.add<i32>(claim, 1); p < panels; p = atomic.add<i32>(claim, 1)) {
    const j0 = p * PANEL;
    const j1 = min(j0 + PANEL, n);
    for (let r = 0; r < reps; r++) matmulBlockedColumns(n, j0, j1, pack);
    columns += (j1 - j0) * reps;
  }
  return columns;
}
