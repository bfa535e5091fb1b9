/**
 * The shared memory of the threaded WebAssembly rung, in 64 KiB pages: the module is built to import a shared memory
 * of at most this many pages (scripts/build-wasm.ts passes it to asc as --maximumMemory), and the page creates that
 * memory with exactly this maximum (a shared memory's maximum must not exceed the one its importer declares).
 * 2048 pages (128 MiB) hold three n x n matrices of doubles up to n = 2364, far above the lab's sizes, while a
 * browser that reserves a shared memory's whole maximum up front reserves only 128 MiB of address space.
 */
export const THREADS_MAX_PAGES = 2048;

/** Columns of B in one packed panel (NR in simd-blocked.as.ts): the column blocks start on a multiple of it. */
export const PANEL_COLUMNS = 4;

/**
 * Columns j0..j1-1 of worker `w` of `threads`: contiguous blocks of whole 4-column panels whose sizes differ by at
 * most one panel; the columns past the last whole panel (n not a multiple of 4) go to the last worker. Columns, not
 * rows: each worker packs only its own panels of B (a split by rows has every worker pack all of B), and n / 4
 * panels divide evenly among more workers than n / 6 tiles of rows would (at n = 128: 32 panels, 21 tiles).
 */
export function columnBlock(n: number, threads: number, w: number): { j0: number; j1: number } {
  const panels = Math.floor(n / PANEL_COLUMNS);
  const j0 = PANEL_COLUMNS * Math.floor((panels * w) / threads);
  const j1 = w === threads - 1 ? n : PANEL_COLUMNS * Math.floor((panels * (w + 1)) / threads);
  return { j0, j1 };
}

/** Bytes of one worker's packed panel of B (packBytes in simd-blocked.as.ts: n rows of 4 doubles). */
export function packBytes(n: number): number {
  return n * PANEL_COLUMNS * 8;
}

/**
 * Where things live in the shared memory, in bytes: A, B and C from 0 (matmul-scalar.as.ts), then one 32-bit
 * counter of the columns computed (after C, 8-byte aligned), then each worker's packed panel of B, each starting on its
 * own 64-byte cache line (no worker writes a line another reads); `pages`: the 64 KiB pages all of it needs.
 */
export function threadsLayout(n: number, threads: number): { counterByte: number; packAt: number[]; pages: number } {
  const counterByte = 3 * n * n * 8;
  const line = (bytes: number): number => Math.ceil(bytes / 64) * 64;
  const packAt = Array.from({ length: threads }, (_, w) => line(counterByte + 8) + w * line(packBytes(n)));
  return { counterByte, packAt, pages: Math.ceil((line(counterByte + 8) + threads * line(packBytes(n))) / 65536) };
}
