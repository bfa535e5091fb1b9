/**
 * The shared memory of the threaded WebAssembly rung, in 64 KiB pages: the module is built to import a shared memory
 * of at most this many pages (scripts/build-wasm.ts passes it to asc as --maximumMemory), and the page creates that
 * memory with exactly this maximum (a shared memory's maximum must not exceed the one its importer declares).
 * 2048 pages (128 MiB) hold three n x n matrices of doubles up to n = 2364, far above the lab's sizes, while a
 * browser that reserves a shared memory's whole maximum up front reserves only 128 MiB of address space.
 */
export const THREADS_MAX_PAGES = 2048;

/** Columns of B in one packed panel (NR in simd-blocked.as.ts): the unit of work a worker claims. */
export const PANEL_COLUMNS = 4;

/**
 * The panels a product of size n is cut into, each worker claiming them one at a time from a shared counter
 * (matmulBlockedClaimPanels in matmul-blocked-threads.as.ts): whole 4-column panels, the last one holding the columns
 * past the last multiple of 4. Columns, not rows: a worker packs only the panels of B it claims (a split by rows has
 * every worker pack all of B), and n / 4 panels are finer than n / 6 tiles of rows (at n = 256: 64 panels, 42 tiles),
 * so the last panel, which one worker computes while the others have none left, is a small part of the sample.
 */
export function panelCount(n: number): number {
  return Math.ceil(n / PANEL_COLUMNS);
}

/** Bytes of one worker's packed panel of B (packBytes in simd-blocked.as.ts: n rows of 4 doubles). */
export function packBytes(n: number): number {
  return n * PANEL_COLUMNS * 8;
}

/**
 * Where things live in the shared memory, in bytes: A, B and C from 0 (matmul-scalar.as.ts), then two 32-bit
 * counters after C (8-byte aligned): the columns computed (`counterByte`) and the next panel to claim (`claimByte`),
 * then each worker's packed panel of B, each starting on its own 64-byte cache line (no worker writes a line another
 * reads); `pages`: the 64 KiB pages all of it needs.
 */
export function threadsLayout(n: number, threads: number): { counterByte: number; claimByte: number; packAt: number[]; pages: number } {
  const counterByte = 3 * n * n * 8;
  const claimByte = counterByte + 4;
  const line = (bytes: number): number => Math.ceil(bytes / 64) * 64;
  const packAt = Array.from({ length: threads }, (_, w) => line(counterByte + 8) + w * line(packBytes(n)));
  return { counterByte, claimByte, packAt, pages: Math.ceil((line(counterByte + 8) + threads * line(packBytes(n))) / 65536) };
}
