/**
 * Episode 07 in the browser: the matrix product C = A * B (n x n doubles) in plain JavaScript (arrays of rows), in
 * typed arrays, and in WebAssembly built from the AssemblyScript in ../wasm/ (scalar; SIMD and register-blocked SIMD
 * where the browser has SIMD), the blocked kernel on Web Workers sharing one memory where the page is cross-origin
 * isolated (native-kernel-threads.ts), and after the samples a probe of this browser's WebAssembly SIMD peak that
 * every rung is set against (native-kernel-peak.ts). The rungs with a plain multiply and add sum each element's
 * terms in the same order as the typed-array product, the expected output, so results agree to the last bit; the
 * fused multiply-add of relaxed SIMD rounds once per term instead of twice, and the check allows for that rounding.
 */
import scalarUrl from '../wasm/matmul-scalar.wasm?url';
import simdUrl from '../wasm/matmul-simd.wasm?url';
import blockedUrl from '../wasm/matmul-blocked.wasm?url';
import blockedRelaxedUrl from '../wasm/matmul-blocked-relaxed.wasm?url';
// The lab's own JavaScript rungs (no node: imports), so the page times the code the Node lab times.
import { matmulNaive, matmulTyped } from '@parallel-course/native-kernel/ts-kernels.ts';
import type { BrowserCase, BrowserLab, CaseHandle, CheckVerdict } from '../lab-types.ts';
import { createRng, formatScientific, type RawObservation } from '../core-adapter.ts';
import { pageParallelism } from '../environment.ts';
import { threadsCase, threadsUnavailable } from './native-kernel-threads.ts';
import { scalingLines } from './native-kernel-scaling.ts';
import { arithmeticOf, hasRelaxedSimd, hasWasmSimd, measureSimdPeak, PEAK_OBSERVATION, peakLines, peakObservation, type PeakExports } from './native-kernel-peak.ts';

export { hasWasmSimd };

/**
 * The peak probe after the samples: 10 calls of 10 ms each (the best is the peak: short calls are less often
 * interrupted on a busy machine), after 100 ms of warm-up so V8 runs its optimised code (measureSimdPeak).
 */
const PEAK_SAMPLES = 10;
const PEAK_CALL_MS = 10;
const PEAK_WARM_UP_MS = 100;

async function instantiate(url: string): Promise<WebAssembly.Instance> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url}: HTTP ${response.status}`);
  return (await WebAssembly.instantiate(await response.arrayBuffer())).instance;
}

/** Seeded inputs (the core's createRng, mulberry32), values in [-1, 1). */
function randomMatrix(n: number, seed: number): Float64Array {
  const random = createRng(seed);
  const m = new Float64Array(n * n);
  for (let i = 0; i < m.length; i++) m[i] = random() * 2 - 1;
  return m;
}

const rows = (m: Float64Array, n: number): number[][] => Array.from({ length: n }, (_, i) => Array.from(m.subarray(i * n, (i + 1) * n)));

function jsCase(variant: string, n: number, a: Float64Array, b: Float64Array): BrowserCase<Float64Array> {
  return {
    variant,
    params: { n },
    unavailable: null,
    async setup(): Promise<CaseHandle<Float64Array>> {
      if (variant === 'js-naive') {
        const ar = rows(a, n);
        const br = rows(b, n);
        return {
          async run(reps) {
            let c: number[][] = [];
            for (let r = 0; r < reps; r++) c = matmulNaive(ar, br, n);
            return Float64Array.from(c.flat());
          },
          teardown() {},
        };
      }
      const c = new Float64Array(n * n);
      return {
        async run(reps) {
          for (let r = 0; r < reps; r++) matmulTyped(a, b, c, n);
          return c.slice();
        },
        teardown() {},
      };
    },
  };
}

function wasmCase(variant: string, url: string, entry: string, n: number, a: Float64Array, b: Float64Array, unavailable: string | null): BrowserCase<Float64Array> {
  return {
    variant,
    params: { n },
    unavailable,
    async setup(): Promise<CaseHandle<Float64Array>> {
      const instance = await instantiate(url);
      const exports = instance.exports as { memory: WebAssembly.Memory; reserve(n: number): number } & Record<string, (n: number) => void>;
      if (!exports.reserve(n)) throw new Error(`WebAssembly memory could not grow to three ${n} x ${n} matrices`);
      const kernel = exports[entry]!;
      const memory = new Float64Array(exports.memory.buffer);
      memory.set(a, 0);
      memory.set(b, n * n);
      return {
        async run(reps) {
          for (let r = 0; r < reps; r++) kernel(n);
          return new Float64Array(exports.memory.buffer, 2 * n * n * 8, n * n).slice();
        },
        teardown() {},
      };
    },
  };
}

export function createLab(_root: HTMLElement, quick = false): BrowserLab<Float64Array> {
  // n = 128: three matrices (384 KiB) fit in a typical L2; the full run's 256 (1.5 MiB) spills to L3.
  const n = quick ? 128 : 256;
  const a = randomMatrix(n, 0x5eed ^ n);
  const b = randomMatrix(n, 0xbeef ^ n);
  let expectedProduct: Float64Array | null = null;
  const simd = hasWasmSimd();
  // The blocked rungs and the probe multiply-add with relaxed SIMD where the browser has it (the same build for both).
  const relaxed = hasRelaxedSimd();
  const threadsOff = threadsUnavailable(simd);
  // P workers (navigator.hardwareConcurrency, capped), and 1 so efficiency is over the same rung on one worker, as
  // the Node lab's native-threads sweep is. A page that cannot run the rung lists it once, with the reason.
  const p = pageParallelism();
  const threadCounts = threadsOff === null ? [...new Set([1, p])] : [p];
  // Each element is a sum of n products of numbers in [-1, 1): rounding error stays far below n * n * 2^-52.
  const tolerance = n * n * Number.EPSILON;
  return {
    lab: 'native-kernel',
    title: 'Matrix product in the browser: JavaScript, typed arrays, WebAssembly, SIMD, register-blocked SIMD and on threads, against the WebAssembly SIMD peak',
    baseline: 'js-naive',
    headline: simd ? { variant: 'wasm-blocked', params: { n } } : { variant: 'wasm', params: { n } },
    workUnit: 'products',
    // 20 ms samples, not the runner's 2 ms: a threaded sample pays one message to each worker and its reply (a tenth
    // of a millisecond to a millisecond on a busy machine), which would be most of a 2 ms sample.
    floorMs: 20,
    comparator: `max |C - C_ref| <= ${formatScientific(tolerance)} (C_ref, the expected product: the typed-array i-k-j one)`,
    expected() {
      if (!expectedProduct) {
        expectedProduct = new Float64Array(n * n);
        matmulTyped(a, b, expectedProduct, n);
      }
      return expectedProduct;
    },
    check(expected, actual): CheckVerdict {
      if (!(actual instanceof Float64Array) || actual.length !== expected.length) {
        return { passed: false, reason: `the product has ${actual?.length} elements, expected ${expected.length}`, firstMismatch: null, maxAbsError: null, maxRelError: null };
      }
      let worst = 0;
      let at = -1;
      for (let i = 0; i < expected.length; i++) {
        const error = Math.abs(actual[i]! - expected[i]!);
        if (!(error <= worst)) {
          worst = Number.isNaN(error) ? Number.POSITIVE_INFINITY : error;
          at = i;
        }
      }
      const passed = worst <= tolerance;
      return {
        passed,
        reason: passed ? null : `element ${at} is off by ${worst}, more than the tolerance ${tolerance}`,
        firstMismatch: passed ? null : { index: at, expected: String(expected[at]), actual: String(actual[at]) },
        maxAbsError: Number.isFinite(worst) ? worst : null,
        maxRelError: null,
      };
    },
    cases: [
      jsCase('js-naive', n, a, b),
      jsCase('typed', n, a, b),
      wasmCase('wasm', scalarUrl, 'matmul', n, a, b, typeof WebAssembly === 'object' ? null : 'this browser has no WebAssembly'),
      wasmCase('wasm-simd', simdUrl, 'matmulSimd', n, a, b, simd ? null : NO_SIMD),
      wasmCase('wasm-blocked', relaxed ? blockedRelaxedUrl : blockedUrl, 'matmulBlocked', n, a, b, simd ? null : NO_SIMD),
      ...threadCounts.map((threads) => threadsCase(n, threads, a, b, relaxed, threadsOff)),
    ],
    // The roof, after the samples (runner.ts): the probe in the blocked rung's own module, on the main thread as the
    // single-thread rungs run. Without SIMD there is neither.
    ...(simd ? { afterSamples: (signal: AbortSignal) => probePeak(relaxed, signal) } : {}),
    summarize: (results) => [...peakLines(results), ...scalingLines(results)],
    notes: [
      `n = ${n}: one product is ${2 * n ** 3} floating-point operations; GFLOP/s = that x products per sample / time per sample.`,
      simd
        ? `wasm-blocked and the peak probe multiply and add with ${arithmeticOf(relaxed)}. wasm-blocked keeps a 6 x 4 tile of C in 12 SIMD registers over the whole k loop, B's 4 columns packed one after another; wasm-simd loads and stores C for every 4 flop. After the samples, the probe measures this browser's WebAssembly SIMD peak (independent multiply-adds, nothing loaded or stored) and every rung is given as a percentage of it.`
        : 'No WebAssembly SIMD here: no SIMD rung and no SIMD peak probe.',
      `wasm-blocked-threads (cross-origin isolated pages only): the blocked kernel on 1 and P = ${p} Web Workers (navigator.hardwareConcurrency${p < (navigator.hardwareConcurrency || 0) ? `, capped at ${p}` : ''}), sharing one WebAssembly.Memory, each claiming the next panel of 4 columns of C from a counter in it until none is left (a worker that loses its CPU for a while takes fewer panels), all of a sample's products in one message to each worker; its efficiency is over its own 1-worker case (compare the Node lab's native-blocked-threads).`,
    ],
  };
}

/** The WebAssembly SIMD peak probe (native-kernel-peak.ts) in the blocked rung's module: its observation. */
async function probePeak(relaxed: boolean, signal: AbortSignal): Promise<Record<string, RawObservation>> {
  const exports = (await instantiate(relaxed ? blockedRelaxedUrl : blockedUrl)).exports as unknown as PeakExports;
  const between = (): Promise<void> => new Promise((resolve, reject) => setTimeout(() => (signal.aborted ? reject(new DOMException('the run was stopped', 'AbortError')) : resolve()), 0));
  const rates = await measureSimdPeak(exports, { samples: PEAK_SAMPLES, targetMs: PEAK_CALL_MS, warmUpMs: PEAK_WARM_UP_MS, between });
  return { [PEAK_OBSERVATION]: peakObservation(rates, relaxed) };
}

const NO_SIMD = 'this browser has no WebAssembly SIMD (WebAssembly.validate refused a SIMD module)';
