/**
 * The shared memory of the threaded WebAssembly rung, in 64 KiB pages: the module is built to import a shared memory
 * of at most this many pages (scripts/build-wasm.ts passes it to asc as --maximumMemory), and the page creates that
 * memory with exactly this maximum (a shared memory's maximum must not exceed the one its importer declares).
 * 2048 pages (128 MiB) hold three n x n matrices of doubles up to n = 2364, far above the lab's sizes, while a
 * browser that reserves a shared memory's whole maximum up front reserves only 128 MiB of address space.
 */
export const THREADS_MAX_PAGES = 2048;
