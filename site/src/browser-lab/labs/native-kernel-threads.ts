/**
 * The threaded WebAssembly rung of the in-page matrix product (episode 07): the register-blocked SIMD kernel run by
 * `threads` Web Workers over panels of 4 columns, all on one shared WebAssembly.Memory, the browser's counterpart of
 * the Node lab's native-blocked-threads rung (the blocked C++ kernel on native threads, each on its own part of C).
 * Shared memory needs SharedArrayBuffer, which a browser gives only to a cross-origin isolated page (COOP/COEP
 * headers): elsewhere the rung is not run.
 *
 * Set-up, once per case: start the workers, compile the module once, create the shared memory at its full size
 * (A, B, C, two counters and one packed panel of B per worker: it never grows), write A and B into it once, send every
 * worker the module and the memory (each instantiates the module on it), and wait until all have. A sample: the page
 * zeroes the counters and sends one message to each worker; each worker claims panels from the shared counter (one
 * atomic add a panel) and computes every claimed panel `reps` times, until none is left, then replies; the sample ends
 * when all have replied. Panels are claimed, not dealt out in fixed blocks: on a machine where a worker starts late or
 * loses its CPU to other work for a while, fixed blocks made the sample wait for the slowest block (in session 16's
 * quiet runs on 2 vCPUs the slowest worker's compute time was about a tenth above a typical worker's, the largest
 * single loss of efficiency); claimed panels let the other worker take more, so the sample ends when the work is
 * done. The hand-off stays one message and one reply per worker per sample, however many products the sample holds,
 * and nothing waits on the main thread (no Atomics.wait: the page awaits the replies). Stop and the end of the run
 * terminate the workers (teardown), which rejects a sample still in flight.
 */
import threadsUrl from '../wasm/matmul-blocked-threads.wasm?url';
import threadsRelaxedUrl from '../wasm/matmul-blocked-threads-relaxed.wasm?url';
import { THREADS_MAX_PAGES, threadsLayout } from '../wasm/threads-memory.ts';
import { WorkerPool } from '../pool.ts';
import type { BrowserCase, CaseHandle } from '../lab-types.ts';

const THREADS_VARIANT = 'wasm-blocked-threads';

type Request =
  | { kind: 'attach'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { kind: 'panels'; n: number; reps: number; pack: number; claimByte: number; counterIndex: number };

/** A worker's reply to a sample: the columns it computed (times the repetitions) and its own compute time, in ms. */
export interface ThreadsReply {
  columns: number;
  computeMs: number;
}

/** Why this page cannot run the threaded rung, or null when it can. */
export function threadsUnavailable(simd: boolean): string | null {
  if (globalThis.crossOriginIsolated !== true) return 'the page is not cross-origin isolated, and WebAssembly threads need SharedArrayBuffer, which needs the COOP/COEP headers (npm start sends them)';
  if (typeof Worker === 'undefined') return 'this browser has no Web Workers';
  if (!simd) return 'this browser has no WebAssembly SIMD, and this rung runs the blocked SIMD kernel';
  return null;
}

/** The threaded rung's own observations of each sample (BrowserCase.observes). */
const THREADS_OBSERVES = {
  'worker-gflops': {
    unit: 'GFLOP/s',
    description: "each worker's GFLOP/s over its own compute time (its clock, around the kernel), one value per worker per sample: near the 1-worker value when every worker had a CPU to itself, lower when they shared CPUs with one another or with other work",
  },
  handoff: {
    unit: 'ms',
    description: "the sample's wall time less its slowest worker's compute time: the messages to the workers, their wake-ups and their replies",
  },
  'busiest-share': {
    unit: '%',
    description: "the share of the sample's columns its busiest worker computed, one value per sample: 100 / workers when they shared the panels evenly, more when one of them had the CPU to itself for longer",
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
      const pool = new WorkerPool<Request, ThreadsReply>(threads, () => new Worker(new URL('../workers/matmul-threads-worker.ts', import.meta.url), { type: 'module' }));
      try {
        const url = relaxed ? threadsRelaxedUrl : threadsUrl;
        const response = await fetch(url);
        if (!response.ok) throw new Error(`could not load ${url}: HTTP ${response.status}`);
        const module = await WebAssembly.compile(await response.arrayBuffer());
        const { counterByte, claimByte, packAt, pages } = threadsLayout(n, threads);
        if (pages > THREADS_MAX_PAGES) throw new Error(`three ${n} x ${n} matrices need ${pages} pages of shared memory, more than the module's ${THREADS_MAX_PAGES}`);
        const memory = new WebAssembly.Memory({ initial: pages, maximum: THREADS_MAX_PAGES, shared: true });
        const doubles = new Float64Array(memory.buffer);
        doubles.set(a, 0);
        doubles.set(b, n * n);
        doubles.fill(Number.NaN, 2 * n * n, 3 * n * n); // a column no worker computes fails the first check
        const counter = new Int32Array(memory.buffer);
        const counterIndex = counterByte / 4;
        await Promise.all(Array.from({ length: threads }, (_, w) => pool.request(w, { kind: 'attach', module, memory })));
        const workers = Array.from({ length: threads }, (_, w) => w);
        let observed: Record<string, number[]> = {};
        return {
          async run(reps) {
            // Before the messages: a worker's first atomic add on the claim counter sees these zeros.
            Atomics.store(counter, counterIndex, 0);
            Atomics.store(counter, claimByte / 4, 0);
            const t0 = performance.now();
            const replies = await Promise.all(workers.map((w) => pool.request(w, { kind: 'panels', n, reps, pack: packAt[w]!, claimByte, counterIndex })));
            const wallMs = performance.now() - t0;
            observed = {
              // A worker that claimed no panel (n under 4 x workers, or the others took them all) has no rate.
              'worker-gflops': replies.flatMap(({ columns, computeMs }) => (columns > 0 && computeMs > 0 ? [(2 * columns * n * n) / computeMs / 1e6] : [])),
              handoff: [Math.max(0, wallMs - Math.max(...replies.map((r) => r.computeMs)))],
              'busiest-share': [(100 * Math.max(...replies.map((r) => r.columns))) / (n * reps)],
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
