/**
 * The shared memory of the threaded WebAssembly rung, in 64 KiB pages: the module is built to import a shared memory
 * of at most this many pages (scripts/build-wasm.ts passes it to asc as --maximumMemory), and the page creates that
 * memory with exactly this maximum (a shared memory's maximum must not exceed the one its importer declares).
 * 2048 pages (128 MiB) hold three n x n matrices of doubles up to n = 2364, far above the lab's sizes, while a
 * browser that reserves a shared memory's whole maximum up front reserves only 128 MiB of address space.
 */
export const THREADS_MAX_PAGES = 2048;

/** Rows of C one tile of the blocked kernel holds (MR in simd-blocked.as.ts): the row blocks start on a multiple of it. */
export const TILE_ROWS = 6;

/**
 * Rows first..last-1 of worker `w` of `threads`: contiguous blocks of whole 6-row tiles whose sizes differ by at most
 * one tile; the rows past the last whole tile (n not a multiple of 6) go to the last worker, so only one worker runs
 * the kernel's slower one-row loop.
 */
export function rowBlock(n: number, threads: number, w: number): { first: number; last: number } {
  const tiles = Math.floor(n / TILE_ROWS);
  const first = TILE_ROWS * Math.floor((tiles * w) / threads);
  const last = w === threads - 1 ? n : TILE_ROWS * Math.floor((tiles * (w + 1)) / threads);
  return { first, last };
}

/** Columns of B in one packed panel (NR in simd-blocked.as.ts). */
export const PANEL_COLUMNS = 4;

/** Bytes of one worker's packed panel of B (packBytes in simd-blocked.as.ts: n rows of 4 doubles). */
export function packBytes(n: number): number {
  return n * PANEL_COLUMNS * 8;
}

/**
 * Where things live in the shared memory, in bytes: A, B and C from 0 (matmul-scalar.as.ts), then one 32-bit
 * counter of the rows computed (after C, 8-byte aligned), then each worker's packed panel of B, each starting on its
 * own 64-byte cache line (no worker writes a line another reads); `pages`: the 64 KiB pages all of it needs.
 */
export function threadsLayout(n: number, threads: number): { counterByte: number; packAt: number[]; pages: number } {
  const counterByte = 3 * n * n * 8;
  const line = (bytes: number): number => Math.ceil(bytes / 64) * 64;
  const packAt = Array.from({ length: threads }, (_, w) => line(counterByte + 8) + w * line(packBytes(n)));
  return { counterByte, packAt, pages: Math.ceil((line(counterByte + 8) + threads * line(packBytes(n))) / 65536) };
}
