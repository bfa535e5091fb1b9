/**
 * Planning the lab's runs (the harness's plan.ts). The calibration times the two TypeScript loops of the lab, the
 * typed-array product (ns per flop) and the triad (ns per byte); the native rungs are costed as fractions of them,
 * the ratios measured on the course machine, since a calibration runs in the harness's own process and never
 * loads an addon (the learner's kernel is compiled into it). Every case is estimated from its params (variant, size,
 * threads, elements), so a rung added to the ladder gets an estimate without a change here (an unknown one is costed
 * as the slowest native rung).
 */
import { type Calibration, type CaseEstimate, type LabContext, rateOf, timePerCall } from '@parallel-course/harness';
import type { Params } from '@parallel-course/core';
import { makeInput, matmulFlop, repeatsFor } from './matrices.ts';
import { matmulTyped } from './ts-kernels.ts';
import { TRIAD_CHECK_LENGTHS, TRIAD_PARAM, triadBytes, triadTyped } from './triad.ts';

/**
 * The calibration on the course machine: the median of calibrations over ten minutes there, while others used
 * it too (2026-12-03; load average 5 to 9 on its 2 vCPUs).
 */
export const COURSE_MACHINE_RATES = { nsPerFlop: 0.8, nsPerByte: 0.065 };

/**
 * ns per flop of each rung as a multiple of the calibrated ts-typed loop (n = 64), by size: in cache (n <= 256) and
 * out of L2 (n >= 512), from runs on the course machine (2026-12-03, ns per flop at n = 256: ts-naive 1.35,
 * ts-typed 0.79, native-O0 1.10, O3 0.15, march 0.057; at n = 512: ts-typed 1.04, the textbook loop 1.88, march on
 * one thread 0.22). native-blocked and native-blas: planned at twice native-march's speed in cache and four times
 * out of it, not yet measured here.
 */
const FLOP_RATIO: Record<string, { inCache: number; outOfCache: number }> = {
  'ts-naive': { inCache: 1.7, outOfCache: 2.4 },
  'ts-typed': { inCache: 1, outOfCache: 1.3 },
  'native-O0': { inCache: 1.4, outOfCache: 1.5 },
  'native-O3': { inCache: 0.19, outOfCache: 0.5 },
  'native-march': { inCache: 0.07, outOfCache: 0.27 },
  'native-blocked': { inCache: 0.035, outOfCache: 0.07 },
  'native-blas': { inCache: 0.035, outOfCache: 0.07 },
};
/** What a rung not listed above is planned at: the slowest native rung. */
const UNKNOWN_RUNG = FLOP_RATIO['native-O0']!;

/**
 * The one-thread rung whose kernel a threaded variant splits across its threads: native-threads runs native-march's
 * loop, native-blocked-threads native-blocked's, native-blas-threads native-blas's. Null for a one-thread variant.
 */
function threadedKernel(variant: string): string | null {
  if (variant === 'native-threads') return 'native-march';
  return variant.endsWith('-threads') ? variant.slice(0, -'-threads'.length) : null;
}

/**
 * Fixed costs on the course machine, scaled by how much slower (or faster) this machine runs the typed loop: per
 * call, in µs (the crossing into C++ and back: 20,000 calls of n = 4 took 25.6 ms at -O0 and 15 ms at -O3; the
 * threads rung starts and joins its threads and resolves a Promise), per triad element of the inputs in ns (two
 * seeded arrays, about 40, and the expected output, Float64Array.from with a function, 200 to 600), and the peak probes of
 * the headline case per sample in ms.
 */
export const COURSE_MACHINE_COSTS = {
  callUs: { 'ts-naive': 0.3, 'ts-typed': 0.15, 'native-O0': 1.1, 'native-threads': 200, native: 0.8 } as Record<string, number>,
  threadCallUs: 30,
  triadInputNsPerElement: 300,
  peakProbeMs: 300,
  // A fresh sample's matrices written into the input's arrays and rows (refillInput) and its O(n^2) check
  // (sample-check.ts), per element of A and B. On the course machine under other jobs' load (medians of 7): refill
  // 1.8 ms at n = 256, 3.7 at 512, 73 at 1024 (13, 7 and 35 ns per element); check 0.5, 4.8 and 14 ms.
  freshSampleNsPerElement: 20,
  // A fresh triad sample's check (triad.ts checkTriadSample: block sums over a, one addition per element), per
  // element: its loop took 85-105 ms for 2^25 elements on the course machine at a load of 10 (2.5-3 ns), where the old
  // comparison with an expected array took 870-1330 ms against 360 ms at a load of 1.8: about 1 ns quiet.
  triadCheckNsPerElement: 1,
};

/**
 * The triad on native threads: one thread moves 2.5 times the TypeScript loop's bytes per second (13.2 against
 * 5.2 GB/s on the course machine); more threads add bandwidth only until memory saturates, planned at 4 threads'
 * worth (2 threads gave 1.2 times one there; a big node's channels carry more, so this errs long).
 */
const TRIAD_NATIVE_SPEEDUP = 2.5;
const TRIAD_SATURATION_THREADS = 4;

/**
 * Elements of the calibration's triad: 3 x 16 MiB, quick to allocate. Part of it stays in a large L3, so the lab's
 * own arrays (4 x the last-level cache) move each byte more slowly: 0.19 against 0.061 ns on the course machine.
 */
const CALIBRATION_TRIAD = 1 << 21;
const TRIAD_OUT_OF_CACHE = 3;

/** The calibration: the typed product at n = 64 (ns per flop) and the TypeScript triad (ns per byte), about 30 ms each. */
export function calibrate(): Calibration {
  const n = 64;
  const input = makeInput(n, 1, 1);
  const c = new Float64Array(n * n);
  const nsPerFlop = (timePerCall(() => matmulTyped(input.a, input.b, c, n), 30) * 1e6) / matmulFlop(n);
  const a = new Float64Array(CALIBRATION_TRIAD);
  const b = new Float64Array(CALIBRATION_TRIAD).fill(1);
  const x = new Float64Array(CALIBRATION_TRIAD).fill(2);
  const nsPerByte = (timePerCall(() => triadTyped(a, b, x, 3), 30) * 1e6) / triadBytes(CALIBRATION_TRIAD);
  return { nsPerFlop, nsPerByte };
}

function slowdown(calibration: Calibration): number {
  return rateOf(calibration, 'nsPerFlop') / COURSE_MACHINE_RATES.nsPerFlop;
}

/** ms of one product of size n (`calls` of them) on the rung `variant` with `threads` threads. */
function productMs(variant: string, n: number, calls: number, threads: number, p: number, calibration: Calibration): number {
  const kernel = threadedKernel(variant);
  const ratio = FLOP_RATIO[kernel ?? variant] ?? UNKNOWN_RUNG;
  const nsPerFlop = rateOf(calibration, 'nsPerFlop') * (n >= 512 ? ratio.outOfCache : ratio.inCache);
  const computeMs = (calls * matmulFlop(n) * nsPerFlop) / 1e6 / Math.max(1, Math.min(threads, p));
  const callUs = kernel
    ? COURSE_MACHINE_COSTS.callUs['native-threads']! + threads * COURSE_MACHINE_COSTS.threadCallUs
    : (COURSE_MACHINE_COSTS.callUs[variant] ?? COURSE_MACHINE_COSTS.callUs.native!);
  return computeMs + (calls * callUs * slowdown(calibration)) / 1000;
}

/** ms of one triad pass over `elements` on `threads` native threads (null: the TypeScript loop). */
function triadMs(elements: number, threads: number | null, p: number, calibration: Calibration): number {
  // Only arrays far past the cache (the measured ones; not the check's few thousand elements) pay the memory's rate.
  const outOfCache = elements >= CALIBRATION_TRIAD ? TRIAD_OUT_OF_CACHE : 1;
  const tsMs = (triadBytes(elements) * rateOf(calibration, 'nsPerByte') * outOfCache) / 1e6;
  if (threads === null) return tsMs;
  return tsMs / TRIAD_NATIVE_SPEEDUP / Math.max(1, Math.min(threads, p, TRIAD_SATURATION_THREADS));
}

/** A case's estimate from its variant and params (see the module comment). */
export function estimateNativeKernelCase(variant: string, params: Params, ctx: LabContext, calibration: Calibration): CaseEstimate {
  const p = ctx.availableParallelism;
  const threads = typeof params.threads === 'number' ? params.threads : 1;
  if (params[TRIAD_PARAM] !== undefined) {
    const elements = Number(params[TRIAD_PARAM]);
    const native = variant === 'ts-typed' ? null : threads;
    const run = (length: number) => triadMs(length, native, p, calibration);
    return {
      sampleMs: run(elements),
      // Each native case first-touches its own three arrays on its threads (on the first call, in the check).
      setupMs: native === null ? 0 : 2 * run(elements),
      checkMs: TRIAD_CHECK_LENGTHS.reduce((sum, length) => sum + run(length), 0),
      sampleCheckMs: (elements * COURSE_MACHINE_COSTS.triadCheckNsPerElement * slowdown(calibration)) / 1e6,
      // Over the harness's bound from 2^19 elements: the judge also fetches it whole (plan.ts counts that), as it does
      // the check's longest triad (2^19 + 3 elements) every check.
      outputBytes: 8 * elements,
      checkOutputBytes: TRIAD_CHECK_LENGTHS.map((length) => 8 * length),
    };
  }
  const n = Number(params.size);
  const run = (size: number, calls: number) => productMs(variant, size, calls, threads, p, calibration);
  const headline = variant === 'native-march' && n === 256 && params.threads === undefined;
  return {
    sampleMs: run(n, repeatsFor(n)),
    // The headline case probes the machine's peaks after the samples: FMA and triad probes, 1 and P threads.
    setupMs: headline ? COURSE_MACHINE_COSTS.peakProbeMs * (ctx.quick ? 2 : 5) * slowdown(calibration) : 0,
    checkMs: run(n, 1) + (n > 1 ? run(n - 1, 1) : 0),
    sampleCheckMs: (2 * n * n * COURSE_MACHINE_COSTS.freshSampleNsPerElement * slowdown(calibration)) / 1e6,
    outputBytes: 8 * n * n,
  };
}

/** Inputs and expected outputs: three products of the textbook loop, or two seeded triad arrays and their expected output. */
export function estimateNativeKernelInputs(params: Params, calibration: Calibration): number {
  if (params[TRIAD_PARAM] !== undefined) {
    const elements = Number(params[TRIAD_PARAM]) + TRIAD_CHECK_LENGTHS.reduce((a, b) => a + b, 0);
    return (elements * COURSE_MACHINE_COSTS.triadInputNsPerElement * slowdown(calibration)) / 1e6;
  }
  const n = Number(params.size);
  return productMs('ts-naive', n, 2, 1, 1, calibration) + (n > 1 ? productMs('ts-naive', n - 1, 1, 1, 1, calibration) : 0);
}
