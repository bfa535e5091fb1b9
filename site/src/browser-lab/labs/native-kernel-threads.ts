/**
 * The threaded WebAssembly rung of the in-page matrix product (episode 07): the register-blocked SIMD kernel run by
 * `threads` Web Workers over blocks of columns, all on one shared WebAssembly.Memory, the browser's counterpart of the
 * Node lab's native-blocked-threads rung (the blocked C++ kernel on native threads, each on its own part of C). Shared
 * memory needs SharedArrayBuffer, which a browser gives only to a cross-origin isolated page (COOP/COEP headers):
 * elsewhere the rung is not run.
 *
 * Set-up, once per case: start the workers, compile the module once, create the shared memory at its full size
 * (A, B, C, a counter and one packed panel of B per worker: it never grows), write A and B into it once, send every
 * worker the module and the memory (each instantiates the module on it), and wait until all have. A sample: one
 * message to each worker, which computes its block of columns `reps` times and replies; the sample ends when all have
 * replied. The workers do not wait for one another between repetitions (the columns of C are independent), so the
 * hand-off is one message and one reply per worker per sample, however many products the sample holds, and nothing
 * waits on the main thread (no Atomics.wait: the page awaits the replies). Stop and the end of the run terminate the
 * workers (teardown), which rejects a sample still in flight.
 */
import threadsUrl from '../wasm/matmul-blocked-threads.wasm?url';
import threadsRelaxedUrl from '../wasm/matmul-blocked-threads-relaxed.wasm?url';
import { columnBlock, THREADS_MAX_PAGES, threadsLayout } from '../wasm/threads-memory.ts';
import { WorkerPool } from '../pool.ts';
import type { BrowserCase, CaseHandle } from '../lab-types.ts';

export const THREADS_VARIANT = 'wasm-blocked-threads';

type Request =
  | { kind: 'attach'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { kind: 'columns'; n: number; j0: number; j1: number; reps: number; pack: number; counterIndex: number };

/** Why this page cannot run the threaded rung, or null when it can. */
export function threadsUnavailable(simd: boolean): string | null {
  if (globalThis.crossOriginIsolated !== true) return 'the page is not cross-origin isolated, and WebAssembly threads need SharedArrayBuffer, which needs the COOP/COEP headers (npm start sends them)';
  if (typeof Worker === 'undefined') return 'this browser has no Web Workers';
  if (!simd) return 'this browser has no WebAssembly SIMD, and this rung runs the blocked SIMD kernel';
  return null;
}

/** The threaded rung's own observations of each sample (BrowserCase.observes). */
export const THREADS_OBSERVES = {
  'worker-gflops': {
    unit: 'GFLOP/s',
    description: "each worker's GFLOP/s over its own compute time (its clock, around the kernel), one value per worker per sample: near the 1-worker value when every worker had a CPU to itself, lower when they shared CPUs with one another or with other work",
  },
  handoff: {
    unit: 'ms',
    description: "the sample's wall time less its slowest worker's compute time: the messages to the workers, their wake-ups and their replies",
  },
} as const;

export function threadsCase(n: number, threads: number, a: Float64Array, b: Float64Array, relaxed: boolean, unavailable: string | null): BrowserCase<Float64Array> {
  return {
    variant: THREADS_VARIANT,
    params: { n, threads },
    workers: threads,
    observes: THREADS_OBSERVES,
    unavailable,
    async setup(): Promise<CaseHandle<Float64Array>> {
      const pool = new WorkerPool<Request, number>(threads, () => new Worker(new URL('../workers/matmul-threads-worker.ts', import.meta.url), { type: 'module' }));
      try {
        const url = relaxed ? threadsRelaxedUrl : threadsUrl;
        const response = await fetch(url);
        if (!response.ok) throw new Error(`could not load ${url}: HTTP ${response.status}`);
        const module = await WebAssembly.compile(await response.arrayBuffer());
        const { counterByte, packAt, pages } = threadsLayout(n, threads);
        if (pages > THREADS_MAX_PAGES) throw new Error(`three ${n} x ${n} matrices need ${pages} pages of shared memory, more than the module's ${THREADS_MAX_PAGES}`);
        const memory = new WebAssembly.Memory({ initial: pages, maximum: THREADS_MAX_PAGES, shared: true });
        const doubles = new Float64Array(memory.buffer);
        doubles.set(a, 0);
        doubles.set(b, n * n);
        doubles.fill(Number.NaN, 2 * n * n, 3 * n * n); // a column no worker computes fails the first check
        const counter = new Int32Array(memory.buffer);
        const counterIndex = counterByte / 4;
        await Promise.all(Array.from({ length: threads }, (_, w) => pool.request(w, { kind: 'attach', module, memory })));
        const blocks = Array.from({ length: threads }, (_, w) => columnBlock(n, threads, w));
        let observed: Record<string, number[]> = {};
        return {
          async run(reps) {
            Atomics.store(counter, counterIndex, 0);
            const t0 = performance.now();
            const computeMs = await Promise.all(blocks.map((block, w) => pool.request(w, { kind: 'columns', n, ...block, reps, pack: packAt[w]!, counterIndex })));
            const wallMs = performance.now() - t0;
            observed = {
              // A worker with no columns (n under 4 x workers) or no measurable time has no rate.
              'worker-gflops': blocks.flatMap(({ j0, j1 }, w) => (j1 > j0 && computeMs[w]! > 0 ? [(2 * (j1 - j0) * n * n * reps) / computeMs[w]! / 1e6] : [])),
              handoff: [Math.max(0, wallMs - Math.max(...computeMs))],
            };
            // Atomic, after every reply: orders the workers' writes of C before the reads below, and proves the columns.
            const columns = Atomics.load(counter, counterIndex);
            if (columns !== n * reps) throw new Error(`the workers computed ${columns} columns, expected ${n * reps} (${n} columns x ${reps} products)`);
            return new Float64Array(memory.buffer, 2 * n * n * 8, n * n).slice();
          },
          observed: () => observed,
          teardown: () => pool.terminate(),
        };
      } catch (error) {
        pool.terminate();
        throw error;
      }
    },
  };
}
