/**
 * The threaded WebAssembly rung of the in-page matrix product (episode 07): the SIMD loop run by `threads` Web Workers
 * over blocks of rows, all on one shared WebAssembly.Memory, the browser's counterpart of the Node lab's
 * native-threads rung (a C++ kernel on native threads, each on its own rows). Shared memory needs SharedArrayBuffer,
 * which a browser gives only to a cross-origin isolated page (COOP/COEP headers): elsewhere the rung is not run.
 *
 * Set-up, once per case: start the workers, compile the module once, create the shared memory, write A and B into it
 * once, send every worker the module and the memory (each instantiates the module on it). A sample: every worker
 * computes its block of rows `reps` times and replies; the sample ends when all have replied. The workers do not wait
 * for one another between repetitions (the rows of C are independent), so the sample is `reps` whole products.
 * Stop and the end of the run terminate the workers (teardown), which rejects a sample still in flight.
 */
import threadsUrl from '../wasm/matmul-simd-threads.wasm?url';
import { THREADS_MAX_PAGES } from '../wasm/threads-memory.ts';
import { WorkerPool } from '../pool.ts';
import type { BrowserCase, CaseHandle } from '../lab-types.ts';

export const THREADS_VARIANT = 'wasm-simd-threads';

type Request =
  | { kind: 'attach'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { kind: 'rows'; n: number; first: number; last: number; reps: number; counterIndex: number };

/** Why this page cannot run the threaded rung, or null when it can. */
export function threadsUnavailable(simd: boolean): string | null {
  if (globalThis.crossOriginIsolated !== true) return 'the page is not cross-origin isolated, and WebAssembly threads need SharedArrayBuffer, which needs the COOP/COEP headers (npm start sends them)';
  if (typeof Worker === 'undefined') return 'this browser has no Web Workers';
  if (!simd) return 'this browser has no WebAssembly SIMD, and this rung runs the SIMD kernel';
  return null;
}

/** Rows first..last-1 of worker `w` of `threads`: contiguous blocks whose sizes differ by at most one row. */
export function rowBlock(n: number, threads: number, w: number): { first: number; last: number } {
  return { first: Math.floor((n * w) / threads), last: Math.floor((n * (w + 1)) / threads) };
}

export function threadsCase(n: number, threads: number, a: Float64Array, b: Float64Array, unavailable: string | null): BrowserCase<Float64Array> {
  return {
    variant: THREADS_VARIANT,
    params: { n, threads },
    workers: threads,
    unavailable,
    async setup(): Promise<CaseHandle<Float64Array>> {
      const pool = new WorkerPool<Request, number>(threads, () => new Worker(new URL('../workers/matmul-threads-worker.ts', import.meta.url), { type: 'module' }));
      try {
        const response = await fetch(threadsUrl);
        if (!response.ok) throw new Error(`could not load ${threadsUrl}: HTTP ${response.status}`);
        const module = await WebAssembly.compile(await response.arrayBuffer());
        // A, B and C, then one 32-bit counter of the rows computed (after C, 8-byte aligned).
        const counterByte = 3 * n * n * 8;
        const pages = Math.ceil((counterByte + 8) / 65536);
        if (pages > THREADS_MAX_PAGES) throw new Error(`three ${n} x ${n} matrices need ${pages} pages of shared memory, more than the module's ${THREADS_MAX_PAGES}`);
        const memory = new WebAssembly.Memory({ initial: pages, maximum: THREADS_MAX_PAGES, shared: true });
        const doubles = new Float64Array(memory.buffer);
        doubles.set(a, 0);
        doubles.set(b, n * n);
        doubles.fill(Number.NaN, 2 * n * n, 3 * n * n); // a row no worker computes fails the first check
        const counter = new Int32Array(memory.buffer);
        const counterIndex = counterByte / 4;
        await Promise.all(Array.from({ length: threads }, (_, w) => pool.request(w, { kind: 'attach', module, memory })));
        return {
          async run(reps) {
            Atomics.store(counter, counterIndex, 0);
            await Promise.all(Array.from({ length: threads }, (_, w) => pool.request(w, { kind: 'rows', n, ...rowBlock(n, threads, w), reps, counterIndex })));
            // Atomic, after every reply: orders the workers' writes of C before the reads below, and proves the rows.
            const rows = Atomics.load(counter, counterIndex);
            if (rows !== n * reps) throw new Error(`the workers computed ${rows} rows, expected ${n * reps} (${n} rows x ${reps} products)`);
            return new Float64Array(memory.buffer, 2 * n * n * 8, n * n).slice();
          },
          teardown: () => pool.terminate(),
        };
      } catch (error) {
        pool.terminate();
        throw error;
      }
    },
  };
}
