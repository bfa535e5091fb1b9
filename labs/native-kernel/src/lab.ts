/**
 * The native-kernel lab: one compute-bound kernel (C = A * B, n x n doubles) climbing a ladder of implementations,
 * from naive TypeScript to C++ on every core, across a sweep of sizes that shows where crossing into native code
 * stops costing more than it saves; and a memory-bound one (a STREAM triad on 1..P threads) that shows where memory
 * bandwidth, not the cores, sets the limit. Episode: episodes/07-native-kernel.mdx.
 */
import os from 'node:os';
import { type Calibration, type CaseDefinition, type CaseInstance, currentTopology, freshSeed, type Impl, type LabContext, type LabDefinition, workerSweep } from '@parallel-course/harness';
import { LEARNER_FILES } from './learner-files.ts';
import { blasStatus, blockedStatus, loadBlas, loadBlocked, loadRung, RUNG_FLAGS, rungStatus, RUNGS, staleBuildWarning, type Rung } from './addon.ts';
import { measurePeaks } from './peaks.ts';
import { makeInput, matmulFlop, refillInput, type MatmulInput } from './matrices.ts';
import { checkProduct, productAt } from './sample-check.ts';
import { matmulNaive, matmulTyped } from './ts-kernels.ts';
import { matmulComparator } from './tolerance.ts';
import { calibrate, estimateNativeKernelCase, estimateNativeKernelInputs, COURSE_MACHINE_RATES } from './estimates.ts';
import { formatBytes, type RawObservation } from '@parallel-course/core';
import { COPY_OBSERVATION } from './analysis-values.ts';
import {
  checkTriadSample,
  describeTriadSizing,
  freshTriadInput,
  isTriadInput,
  makeTriadInput,
  reachableLastLevelCacheBytes,
  TRIAD_CHECK_LENGTHS,
  TRIAD_PARAM,
  triadArraysHeld,
  triadArraysKey,
  triadBytes,
  triadSize,
  triadSources,
  expectedTriad,
  triadAt,
  triadTyped,
  type TriadInput,
  type TriadSize,
} from './triad.ts';

/** What a sample runs on: a pair of matrices, or the triad's vectors. */
export type NativeKernelInput = MatmulInput | TriadInput;

/** The sizes n of the sweep: powers of two from where the call dominates to where the arithmetic does. */
export const FULL_SIZES = [2, 4, 8, 16, 32, 64, 128, 256];
export const QUICK_SIZES = [4, 32, 256];
/** The largest size: the headline is measured here. 256 keeps B (512 KiB) in a core's L2 cache on most CPUs. */
export const LARGEST_SIZE = 256;
/**
 * Sizes at which the native-threads rung runs. Threads pay only when each call has far more work than the fixed
 * cost of copying the inputs, waking the threads and resolving the Promise: at 64 they cannot, at 256 (about 2 ms per
 * call on one thread here) the fixed part still shows, at 512 (about 20 ms) it is small. 512 is measured for this
 * rung only; the sequential rungs stop at LARGEST_SIZE.
 */
export const FULL_THREAD_SIZES = [64, 256, 512];
export const QUICK_THREAD_SIZES = [512];
/**
 * Sizes past the ladder's, for the top rungs (native-march, native-blocked, native-blas) in their own measure group:
 * at 512 B (2 MiB) no longer fits in a core's L2 and at 1024 (8 MiB) it leaves L2 on most CPUs, where blocking
 * pays. ts-typed runs at 512 (the threads sizes) but not at 1024, where one product takes seconds in TypeScript.
 */
export const FULL_LARGE_SIZES = [512, 1024];
export const QUICK_LARGE_SIZES = [512];
/** The largest size at which a run measures native-blocked (graded there). */
export function largestBlockedSize(quick: boolean): number {
  return Math.max(...(quick ? QUICK_LARGE_SIZES : FULL_LARGE_SIZES));
}
/** The largest n any case multiplies: the check's tolerance must hold up to here. */
export const MAX_SIZE = Math.max(LARGEST_SIZE, ...FULL_THREAD_SIZES, ...QUICK_THREAD_SIZES, ...FULL_LARGE_SIZES);

/** Thread counts for the native-threads rung, 1..P by the harness's rule (every count to 4, powers of two, P). */
export function threadCounts(availableParallelism: number): number[] {
  return workerSweep(Math.max(1, availableParallelism));
}

function tsNaiveCase(size: number): CaseDefinition<MatmulInput, Float64Array> {
  return {
    variant: 'ts-naive',
    params: { size },
    async setup(): Promise<CaseInstance<MatmulInput, Float64Array>> {
      return {
        run(input) {
          let rows: number[][] = [];
          for (let r = 0; r < input.repeats; r++) rows = matmulNaive(input.aRows, input.bRows, input.n);
          return Float64Array.from(rows.flat());
        },
        teardown() {},
      };
    },
  };
}

function tsTypedCase(size: number): CaseDefinition<MatmulInput, Float64Array> {
  return {
    variant: 'ts-typed',
    params: { size },
    async setup(): Promise<CaseInstance<MatmulInput, Float64Array>> {
      return {
        run(input) {
          const { c } = input;
          for (let r = 0; r < input.repeats; r++) matmulTyped(input.a, input.b, c, input.n);
          return c;
        },
        teardown() {},
      };
    },
  };
}

/** A synchronous native rung. `probePeaks`: also measure the machine's peaks after the measured samples (headline case). */
function nativeCase(rung: Rung, size: number, probePeaks = false): CaseDefinition<MatmulInput, Float64Array> {
  return {
    variant: `native-${rung}`,
    params: { size },
    async setup(ctx: LabContext): Promise<CaseInstance<MatmulInput, Float64Array>> {
      const addon = loadRung(ctx.impl, rung);
      const instance: CaseInstance<MatmulInput, Float64Array> = {
        run(input) {
          const { c } = input;
          for (let r = 0; r < input.repeats; r++) addon.matmul(input.a, input.b, c, input.n);
          return c;
        },
        teardown() {},
      };
      if (probePeaks) {
        // The harness calls this after every case's samples are taken: the probes cannot disturb a timed sample.
        instance.collectObservations = () => measurePeaks(addon, ctx.availableParallelism, ctx.quick ? 2 : 5);
      }
      return instance;
    },
  };
}

/** The impl's blocked, register-tiled kernel (<impl>/blocked.cc over native/blocked-parts.h), from the <impl>_blocked module. */
function nativeBlockedCase(size: number, measureGroup?: string): CaseDefinition<MatmulInput, Float64Array> {
  return {
    variant: 'native-blocked',
    params: { size },
    ...(measureGroup ? { measureGroup } : {}),
    async setup(ctx: LabContext): Promise<CaseInstance<MatmulInput, Float64Array>> {
      const addon = loadBlocked(ctx.impl);
      return {
        run(input) {
          const { c } = input;
          for (let r = 0; r < input.repeats; r++) addon.matmulBlocked(input.a, input.b, c, input.n);
          return c;
        },
        teardown() {},
      };
    },
  };
}

/** The system BLAS's dgemm on one library thread (blas/binding.gyp). */
function nativeBlasCase(size: number, measureGroup?: string): CaseDefinition<MatmulInput, Float64Array> {
  return {
    variant: 'native-blas',
    params: { size },
    ...(measureGroup ? { measureGroup } : {}),
    async setup(): Promise<CaseInstance<MatmulInput, Float64Array>> {
      const blas = loadBlas(1);
      return {
        run(input) {
          const { c } = input;
          // The library's thread count is global to the module: set on every sample, since the cases interleave.
          blas.blasSetThreads(1);
          for (let r = 0; r < input.repeats; r++) blas.matmulBlas(input.a, input.b, c, input.n);
          return c;
        },
        teardown() {},
      };
    },
  };
}

/** The native-march rung at a large size, in the large sizes' group. */
function largeMarchCase(size: number): CaseDefinition<MatmulInput, Float64Array> {
  return { ...nativeCase('march', size), measureGroup: LARGE_GROUP };
}

/** The measure group of the large sizes: after a full collection, interleaved only with each other. */
export const LARGE_GROUP = 'native-large';

/**
 * A C++ kernel on `threads` native threads (native/threads.cc, each on its own rows), off the event loop:
 * `native-threads` runs the learner's kernel (matmulAsync, the <impl>_march module), `native-blocked-threads` the
 * blocked one (matmulBlockedAsync, the <impl>_blocked module).
 * The harness computes efficiency against the variant's threads = 1 case of the same size (not against ts-typed).
 * Measured after the single-threaded rungs, with a full garbage collection first: the naive rung's garbage is
 * otherwise collected by V8's background threads on the very cores these cases are timed on.
 */
function threadedKernelCase(variant: 'native-threads' | 'native-blocked-threads', size: number, threads: number): CaseDefinition<MatmulInput, Float64Array> {
  return {
    variant,
    params: { size, threads },
    workers: threads,
    measureGroup: 'native-threads',
    async setup(ctx: LabContext): Promise<CaseInstance<MatmulInput, Float64Array>> {
      const matmul = variant === 'native-threads'
        ? (() => { const addon = loadRung(ctx.impl, 'march'); return addon.matmulAsync.bind(addon); })()
        : (() => { const addon = loadBlocked(ctx.impl); return addon.matmulBlockedAsync.bind(addon); })();
      const instance: CaseInstance<MatmulInput, Float64Array> = {
        async run(input) {
          const { c } = input;
          for (let r = 0; r < input.repeats; r++) await matmul(input.a, input.b, c, input.n, threads);
          return c;
        },
        teardown() {},
      };
      // On one thread, also time what every call copies (after all samples, like the peaks): the serial part of the
      // call path that the analysis sets beside the synchronous call (analysis-values.ts: copyShare...).
      if (threads === 1) instance.collectObservations = () => ({ [COPY_OBSERVATION]: measureCopies(size, ctx.quick ? 5 : 15) });
      return instance;
    },
  };
}

/**
 * Times copying 3 n x n matrices of doubles with Float64Array.prototype.set (a memmove, as the addon's memcpy):
 * matmulAsync copies a and b in and c out on the JavaScript thread on every call. Each sample copies fresh sources
 * (written just before, as the lab's inputs are), into destinations reused across samples (as the addon's pool of
 * buffers is). Samples in ms.
 */
function measureCopies(size: number, samples: number): RawObservation {
  const length = size * size;
  const sources = [new Float64Array(length), new Float64Array(length), new Float64Array(length)];
  const targets = [new Float64Array(length), new Float64Array(length), new Float64Array(length)];
  const out: number[] = [];
  for (let s = 0; s < samples; s++) {
    for (const [i, source] of sources.entries()) source.fill(s + i);
    const start = performance.now();
    for (const [i, source] of sources.entries()) (targets[i] as Float64Array).set(source);
    out.push(performance.now() - start);
  }
  return {
    unit: 'ms',
    description: `copying 3 x ${size} x ${size} doubles (${formatBytes(24 * length)}) with Float64Array.prototype.set: what matmulAsync copies on the JavaScript thread per call (a and b in, c out)`,
    samples: out,
  };
}

/** The BLAS's dgemm on `threads` library threads (openblas_set_num_threads), called synchronously. */
function nativeBlasThreadsCase(size: number, threads: number): CaseDefinition<MatmulInput, Float64Array> {
  return {
    variant: 'native-blas-threads',
    params: { size, threads },
    workers: threads,
    measureGroup: 'native-threads',
    async setup(): Promise<CaseInstance<MatmulInput, Float64Array>> {
      const blas = loadBlas(threads);
      return {
        run(input) {
          const { c } = input;
          blas.blasSetThreads(threads);
          for (let r = 0; r < input.repeats; r++) blas.matmulBlas(input.a, input.b, c, input.n);
          return c;
        },
        teardown() {},
      };
    },
  };
}

/** The variants that run on 1..P threads (each declares `workers`, its efficiency is against its own 1-thread case). */
export const THREADED_PRODUCT_VARIANTS = ['native-threads', 'native-blocked-threads', 'native-blas-threads'];

/**
 * The memory this job may use, in bytes: its cgroup's limit where there is one below the machine's memory (a Slurm
 * job, a container; Node's process.constrainedMemory reads cgroup v1 and v2), else the machine's.
 */
export function jobMemory(): { bytes: number; source: string } {
  const total = os.totalmem();
  const constrained = process.constrainedMemory();
  return constrained > 0 && constrained < total ? { bytes: constrained, source: "the cgroup's memory limit" } : { bytes: total, source: "the machine's memory" };
}

/**
 * The triad's array length on this machine for a run planned for `availableParallelism` CPUs: from the last-level
 * cache this job's CPUs reach and the memory it may use over the arrays a runner holds (triad.ts triadSize).
 */
export function triadSizeHere(availableParallelism: number): TriadSize {
  return triadSize(reachableLastLevelCacheBytes(currentTopology()), jobMemory().bytes, triadArraysHeld(threadCounts(availableParallelism).length));
}

/** The triad's array length on this machine (triadSizeHere). */
export function triadElementsHere(availableParallelism: number): number {
  return triadSizeHere(availableParallelism).elements;
}

/**
 * The runner's b and c of each triad input it has run, by triadArraysKey, filled from the seed on first use (the
 * check, never a timed sample) and kept for the process's life, as the runner's inputs kept them before: shared by the
 * TypeScript triad and every triad case, which copies them into arrays its own threads place. Only the runner fills
 * them: the judge never sets up a case, and checks at positions from the seed (triad.ts triadAt).
 */
const triadSourcesByKey = new Map<string, { b: Float64Array; c: Float64Array }>();

function sourcesOf(input: TriadInput): { b: Float64Array; c: Float64Array } {
  const key = triadArraysKey(input);
  let sources = triadSourcesByKey.get(key);
  if (!sources) triadSourcesByKey.set(key, (sources = triadSources(input)));
  return sources;
}

/**
 * A triad output per input's arrays (triadArraysKey), allocated on first use (the check, not the timed loop) and
 * dropped at teardown. By arrays, not by input: every fresh sample's input (freshTriadInput) shares the measured
 * input's seed, b and c.
 */
function triadOutputFor(outputs: Map<string, Float64Array>, input: TriadInput): Float64Array {
  const key = triadArraysKey(input);
  let a = outputs.get(key);
  if (!a) {
    a = new Float64Array(input.length);
    outputs.set(key, a);
  }
  return a;
}

/** The triad in TypeScript on one thread: the baseline of the triad cases (as ts-typed is of the products). */
function tsTypedTriadCase(elements: number): CaseDefinition<TriadInput, Float64Array> {
  return {
    variant: 'ts-typed',
    params: { [TRIAD_PARAM]: elements },
    measureGroup: 'triad',
    async setup(): Promise<CaseInstance<TriadInput, Float64Array>> {
      const outputs = new Map<string, Float64Array>();
      return {
        run(input) {
          const a = triadOutputFor(outputs, input);
          const { b, c } = sourcesOf(input);
          triadTyped(a, b, c, input.s);
          return a;
        },
        teardown() {
          outputs.clear();
        },
      };
    },
  };
}

/**
 * The STREAM triad on `threads` native threads. Each case keeps its own three arrays, fresh and first written by
 * triadFirstTouch on the very threads that later run the triad, each on its own chunk: on a multi-socket node each
 * chunk's pages then live in the memory of its thread's socket. Sharing the input's arrays instead would leave every
 * page where the main thread first wrote it, on one socket, and the other socket's threads would read across the
 * interconnect. The copy happens on the first call with an input's arrays (the check), never in a timed sample, from
 * the runner's b and c of that input (sourcesOf); the arrays are placed by the input's seed and length, which every
 * fresh sample's input shares (only its scalar is new: freshTriadInput).
 */
function triadCase(elements: number, threads: number): CaseDefinition<TriadInput, Float64Array> {
  return {
    variant: 'triad',
    params: { [TRIAD_PARAM]: elements, threads },
    // The harness computes efficiency against the 1-thread triad: GB/s(threads) / (threads x GB/s(1)).
    workers: threads,
    // Measured after everything else, with a full garbage collection first, interleaved only with each other.
    measureGroup: 'triad',
    async setup(ctx: LabContext): Promise<CaseInstance<TriadInput, Float64Array>> {
      const addon = loadRung(ctx.impl, 'march');
      const placed = new Map<string, { a: Float64Array; b: Float64Array; c: Float64Array }>();
      return {
        run(input) {
          const key = triadArraysKey(input);
          let arrays = placed.get(key);
          if (!arrays) {
            const sources = sourcesOf(input);
            arrays = { a: new Float64Array(input.length), b: new Float64Array(input.length), c: new Float64Array(input.length) };
            addon.triadFirstTouch(arrays.a, arrays.b, arrays.c, sources.b, sources.c, threads);
            placed.set(key, arrays);
          }
          return addon.triad(arrays.a, arrays.b, arrays.c, input.s, threads);
        },
        teardown() {
          placed.clear();
        },
      };
    },
  };
}

/** The native rungs of an implementation that cannot run here, each with the reason and the fix. */
export function unavailableRungs(impl: Impl): { rung: Rung; reason: string; fix: string }[] {
  const missing: { rung: Rung; reason: string; fix: string }[] = [];
  for (const rung of RUNGS) {
    const status = rungStatus(impl, rung);
    if (!status.available) missing.push({ rung, reason: status.reason, fix: status.fix });
  }
  return missing;
}

/**
 * What a run should record about rungs it could not run (the harness's results.json `notes`). One line per
 * distinct reason, so three rungs that failed for one reason give one note.
 */
export function unavailableNotes(impl: Impl, blas = blasStatus(), blocked = blockedStatus(impl)): string[] {
  const byReason = new Map<string, { rungs: string[]; fix: string }>();
  for (const m of unavailableRungs(impl)) {
    const entry = byReason.get(m.reason) ?? { rungs: [], fix: m.fix };
    entry.rungs.push(`native-${m.rung}${m.rung === 'march' ? ', native-threads, triad' : ''}`);
    byReason.set(m.reason, entry);
  }
  // The optional blocked.cc is built apart (<impl>_blocked): its compile error names blocked.cc and leaves the rest.
  if (!blocked.available) {
    const entry = byReason.get(blocked.reason) ?? { rungs: [], fix: blocked.fix };
    entry.rungs.push('native-blocked, native-blocked-threads');
    byReason.set(blocked.reason, entry);
  }
  if (!blas.available) {
    const entry = byReason.get(blas.reason) ?? { rungs: [], fix: blas.fix };
    entry.rungs.push('native-blas, native-blas-threads');
    byReason.set(blas.reason, entry);
  }
  return [...byReason].map(
    ([reason, { rungs, fix }]) =>
      `Unavailable, not measured: ${rungs.join(', ')} (${impl}). Why: ${reason.split('\n')[0]} ` +
      `(details: labs/native-kernel/build/native-kernel-build.json). Fix: ${fix}`,
  );
}

/** Which vectors the FMA probe (the roofline's compute roof) used, and why no theoretical peak is printed. */
function peakNotes(ctx: LabContext): string[] {
  if (!rungStatus(ctx.impl, 'march').available) return [];
  const width = loadRung(ctx.impl, 'march').fmaVectorWidth();
  return [
    `peak measured with ${width}: the FMA probe (native/probe.cc) uses the widest vectors this CPU has, not the compiler's preferred width. ` +
      'No theoretical peak (cores x FMA units x lanes x 2 x clock) is printed: /proc/cpuinfo "cpu MHz" is the current clock, not the maximum, and a VM does not report its boost clock.',
  ];
}

/** Which BLAS the native-blas rung runs: library, the kernel it chose for this CPU, its thread count. */
function blasNotes(): string[] {
  if (!blasStatus().available) return [];
  const info = loadBlas(1).blasInfo();
  const coretype = process.env.OPENBLAS_CORETYPE;
  return [
    `native-blas: ${info.config}; kernel ${info.coreName} (${coretype ? `OPENBLAS_CORETYPE=${coretype} set` : 'chosen by the library for this CPU; OPENBLAS_CORETYPE unset'}); ${info.threads} library thread${info.threads === 1 ? '' : 's'} (openblas_set_num_threads).`,
  ];
}

const lab: LabDefinition<NativeKernelInput, Float64Array> = {
  name: 'native-kernel',
  title: 'Native kernel: a C++ addon against the pure-TypeScript kernel',
  summary: 'matrix product from naive TypeScript to C++ at -O0/-O3/-march=native, a blocked kernel, the system BLAS and native threads, across sizes; memory bandwidth (STREAM triad) on 1..P threads',
  episode: 'episodes/07-native-kernel.mdx',
  learnerFiles: LEARNER_FILES,
  variants: [
    { name: 'ts-naive', description: 'TypeScript, arrays of rows, textbook i-j-k loop', source: 'labs/native-kernel/src/ts-kernels.ts: matmulNaive' },
    {
      name: 'ts-typed',
      description: 'TypeScript, flat Float64Array, i-k-j loop (the baseline); with `elements`, the triad in TypeScript on one thread',
      source: 'labs/native-kernel/src/ts-kernels.ts: matmulTyped, src/triad.ts: triadTyped',
    },
    ...RUNGS.map((rung) => ({
      name: `native-${rung}`,
      description: `the same i-k-j loop in a C++ addon built with ${RUNG_FLAGS[rung]}, called synchronously`,
      source: '<impl>/kernel.cc: matmul_rows (via labs/native-kernel/native/binding.cc)',
    })),
    {
      name: 'native-blocked',
      description: 'a cache-blocked, register-tiled C++ kernel (packed panels, a 6 x 16 tile of C in vector registers), -O3 -march=native, called synchronously',
      source: '<impl>/blocked.cc: matmul_blocked_rows, over labs/native-kernel/native/blocked-parts.h (the <impl>_blocked module, built apart from kernel.cc)',
    },
    {
      name: 'native-blas',
      description: "the system BLAS's dgemm (OpenBLAS), one library thread, called synchronously",
      source: 'labs/native-kernel/native/blas.cc (blas/binding.gyp)',
    },
    {
      name: 'native-threads',
      description: 'the -O3 -march=native loop split by rows across std::threads off the event loop; returns a Promise',
      source: 'labs/native-kernel/native/threads.cc + <impl>/kernel.cc',
    },
    {
      name: 'native-blocked-threads',
      description: 'the blocked kernel on 1..P native threads, one block of rows per thread (each packs all of B), off the event loop; returns a Promise',
      source: 'labs/native-kernel/native/threads.cc + <impl>/blocked.cc',
    },
    {
      name: 'native-blas-threads',
      description: "the system BLAS's dgemm on 1..P library threads (openblas_set_num_threads), called synchronously",
      source: 'labs/native-kernel/native/blas.cc (blas/binding.gyp)',
    },
    {
      name: 'triad',
      description: 'STREAM triad a[i] = b[i] + s·c[i] on arrays 4x the last-level cache, on 1..P native threads, each on its own first-touched chunk: memory bandwidth in bytes/s',
      source: 'labs/native-kernel/native/stream.cc',
    },
  ],
  baseline: 'ts-typed',
  // The size sweep (the crossover: where each rung starts to beat ts-typed) and the threads sweep, scaled against the
  // same kernel on one thread (their speedups over ts-typed are in the tables).
  sweeps: [
    { param: 'size', variants: ['ts-naive', 'native-O0', 'native-O3', 'native-march', 'native-blocked', 'native-blas'], over: 'baseline', title: 'Speedup over ts-typed, by matrix size n' },
    { param: 'threads', variants: ['native-threads', 'native-blocked-threads', 'native-blas-threads', 'triad'], over: 'one-worker', title: 'Speedup over one thread, by threads' },
  ],
  headline: { variant: 'native-march', params: { size: LARGEST_SIZE } },
  // The learner's two kernels, each compiled the same way as the solution's: kernel.cc's loop at -O3 -march=native
  // at the ladder's largest size, and blocked.cc at the largest size the run measures it (where blocking pays).
  grading: {
    cases: (ctx) => [
      { variant: 'native-march', params: { size: LARGEST_SIZE } },
      // Optional, like its challenge in episode 07: left out of the verdict while blocked.cc still throws "not implemented".
      { variant: 'native-blocked', params: { size: largestBlockedSize(ctx.quick) }, optional: true },
    ],
    target: 0.8,
    targetText:
      `at least 0.8 of the solution's speed for each of your kernels: kernel.cc at -O3 -march=native (native-march, n = ${LARGEST_SIZE}) ` +
      `and, once you have written it (an optional exercise), blocked.cc (native-blocked at the largest size measured: n = ${largestBlockedSize(false)}, or ${largestBlockedSize(true)} in a quick run)`,
  },
  inputParams: ['size', TRIAD_PARAM],
  inputs(params, ctx) {
    if (params[TRIAD_PARAM] !== undefined) {
      // Small checks (one element, an odd length, a prime length no thread count divides), one large measured input;
      // each measured sample on the same arrays with a scalar of its own (freshTriadInput: the judge's fresh index),
      // so no sample's answer is an earlier one's, and the arrays each case first-touched stay where they are.
      const measure = makeTriadInput(Number(params[TRIAD_PARAM]), ctx.seed);
      return { check: TRIAD_CHECK_LENGTHS.map((length) => makeTriadInput(length, ctx.seed)), measure, measureAt: (sample: number) => freshTriadInput(measure, sample) };
    }
    const n = Number(params.size);
    // The check also runs n - 1: an odd size exercises the vector loops' remainder iterations.
    const check = n > 1 ? [makeInput(n, ctx.seed, 1), makeInput(n - 1, ctx.seed, 1)] : [makeInput(n, ctx.seed, 1)];
    const measure = makeInput(n, ctx.seed);
    // Each measured sample multiplies matrices of its own (the judge's fresh index, revealed only with its
    // sample), written into the same arrays: a kernel that keeps C and recomputes part of it when the product repeats
    // (issue 42: a quarter of the rows, PASS 3.85) leaves rows of the last product, which checkSample finds.
    return { check, measure, measureAt: (sample: number) => refillInput(measure, freshSeed(ctx.seed, sample)) };
  },
  // A fresh sample's product checked in O(n^2) (Freivalds' test and random entries, sample-check.ts), a fresh triad
  // in one pass without an expected array (random entries and exact weighted block sums, triad.ts), both outside the
  // timed region.
  checkSample(input, output) {
    return isTriadInput(input) ? checkTriadSample(input, output) : checkProduct(input, output);
  },
  // Outputs over the harness's bound (an n = 1024 product, 8 MiB; the triad's arrays) are not sent each sample: the
  // judge checks them at positions it draws after the answer, an entry of C one dot product, an entry of a one FMA.
  outputLength(input) {
    return isTriadInput(input) ? input.length : input.n * input.n;
  },
  expectedAtPositions(input, positions) {
    return isTriadInput(input) ? triadAt(input, positions) : productAt(input, positions);
  },
  expected(input) {
    if (isTriadInput(input)) return expectedTriad(input);
    // The definition of correct: the textbook loop, once, in plain JavaScript.
    return Float64Array.from(matmulNaive(input.aRows, input.bRows, input.n).flat());
  },
  // Also the triad's: its results are small integers, exact in double precision (triad.ts), so the tolerance, far
  // below 1, admits no wrong one.
  comparator: matmulComparator(MAX_SIZE),
  sampleItems(params, work) {
    // A product sample calls the kernel `repeats` times (matrices.ts): the page's "per call" times divide by it. A
    // triad sample is one timed pass of the addon, the sample itself.
    if (params['elements'] !== undefined) return { item: 'sample', itemsPerSample: 1 };
    return { item: 'call', itemsPerSample: Math.round(work.amount / matmulFlop(Number(params['size']))) };
  },
  workPerSample(input) {
    // The triad in bytes, so its throughput reads as bytes/s: memory bandwidth.
    if (isTriadInput(input)) return { amount: triadBytes(input.length), unit: 'bytes' };
    return { amount: input.repeats * matmulFlop(input.n), unit: 'flop' };
  },
  cases(ctx) {
    const sizes = ctx.quick ? QUICK_SIZES : FULL_SIZES;
    const threadSizes = ctx.quick ? QUICK_THREAD_SIZES : FULL_THREAD_SIZES;
    const largeSizes = ctx.quick ? QUICK_LARGE_SIZES : FULL_LARGE_SIZES;
    const available = new Set(RUNGS.filter((rung) => rungStatus(ctx.impl, rung).available));
    const blocked = blockedStatus(ctx.impl).available;
    const blas = blasStatus().available;
    // Unavailable rungs and a stale build are reported through notes(), which the harness prints and records.
    const cases: CaseDefinition<NativeKernelInput, Float64Array>[] = [];
    // The learner's rungs that did not build while the solution's did: the toolchain works, so the learner's C++
    // does not compile. That is a failed check (exit 1, the file named), not an "unavailable" note (exit 0).
    const broken = ctx.impl === 'exercise' ? RUNGS.filter((rung) => !available.has(rung) && rungStatus('solution', rung).available) : [];
    // Likewise the optional blocked.cc, built apart: its compile error fails native-blocked's check, and only it.
    const blockedBroken = ctx.impl === 'exercise' && !blocked && blockedStatus('solution').available;
    for (const size of sizes) {
      cases.push(tsNaiveCase(size), tsTypedCase(size));
      for (const rung of RUNGS) {
        if (available.has(rung)) cases.push(nativeCase(rung, size, rung === 'march' && size === LARGEST_SIZE));
        else if (broken.includes(rung) && size === sizes[0]) cases.push(nativeCase(rung, size));
      }
      if (blocked || (blockedBroken && size === sizes[0])) cases.push(nativeBlockedCase(size));
      if (blas) cases.push(nativeBlasCase(size));
    }
    // The top rungs past the ladder's sizes, in their own group after a full collection.
    for (const size of largeSizes) {
      if (available.has('march')) cases.push(largeMarchCase(size));
      if (blocked) cases.push(nativeBlockedCase(size, LARGE_GROUP));
      if (blas) cases.push(nativeBlasCase(size, LARGE_GROUP));
    }
    const threaded = [...(available.has('march') ? ['native-threads' as const] : []), ...(blocked ? ['native-blocked-threads' as const] : [])];
    // The baseline at every threads size too, so each threads case has a speedup (and the harness an efficiency).
    if (threaded.length > 0) for (const size of threadSizes) if (!sizes.includes(size)) cases.push(tsTypedCase(size));
    for (const variant of threaded) {
      for (const size of threadSizes) for (const t of threadCounts(ctx.availableParallelism)) cases.push(threadedKernelCase(variant, size, t));
    }
    if (available.has('march')) {
      if (blas) for (const size of threadSizes) for (const t of threadCounts(ctx.availableParallelism)) cases.push(nativeBlasThreadsCase(size, t));
      // Memory bandwidth: the same thread counts, quick runs included (they take fewer samples, not smaller arrays:
      // arrays that fit in cache would measure the cache).
      const elements = triadElementsHere(ctx.availableParallelism);
      cases.push(tsTypedTriadCase(elements));
      for (const t of threadCounts(ctx.availableParallelism)) cases.push(triadCase(elements, t));
    }
    // Each case with its estimate for the run's plan, from its variant and params (src/estimates.ts).
    return cases.map((c) => ({ ...c, estimate: (c2: LabContext, rates: Calibration) => estimateNativeKernelCase(c.variant, c.params, c2, rates) }));
  },
  // The solution's native modules a graded run loads: fingerprinted before and after it (the harness's supervisor
  // reads them, never loads them). Issue 42: a kernel.cc static initializer swapped solution_march.node for a slower one.
  solutionBuildOutputs() {
    const statuses = [...RUNGS.map((rung) => rungStatus('solution', rung)), blockedStatus('solution')];
    return statuses.flatMap((status) => (status.available ? [status.file] : []));
  },
  // The triad's arrays a runner holds at once (triad.ts triadArraysHeld: its size is held to a share of the job's
  // memory), plus 3 GiB for the matrices and the runtime. Measured before the judge dropped its b and c: 10.3 GiB at
  // the peak of a quick run on a VM that reports a 480 MiB L3 (2^27 doubles an array, P = 2).
  memoryBytes(ctx) {
    const held = triadArraysHeld(threadCounts(ctx.availableParallelism).length);
    return 8 * triadElementsHere(ctx.availableParallelism) * held + 3 * 2 ** 30;
  },
  notes(ctx) {
    const stale = staleBuildWarning(ctx.impl, ctx.implDir);
    const triad = rungStatus(ctx.impl, 'march').available
      ? [
          `${describeTriadSizing(triadSizeHere(ctx.availableParallelism), triadArraysHeld(threadCounts(ctx.availableParallelism).length), jobMemory())}; ` +
            'bytes/s count 24 bytes per element (2 reads, 1 write), not the write-allocate read of a.',
        ]
      : [];
    return [...unavailableNotes(ctx.impl), ...(stale ? [stale] : []), ...triad, ...peakNotes(ctx), ...blasNotes()];
  },
  // The lab's own numbers (crossover, per-call overhead, thread efficiency, fraction of peak) and the roofline;
  // loaded when a run is analysed, not when the lab is imported.
  async labAnalysis(results) {
    const { analysisReport } = await import('./analysis-report.ts');
    return analysisReport(results);
  },
  sampling: { quick: { warmupSamples: 1, rounds: 3, samplesPerRound: 2 }, full: { warmupSamples: 3, rounds: 15, samplesPerRound: 4 } },
  // The run's plan (the harness's plan.ts): the TypeScript product and triad timed here, the native rungs as ratios.
  planning: { calibrate, courseMachine: COURSE_MACHINE_RATES, inputsMs: (params, _ctx, rates) => estimateNativeKernelInputs(params, rates) },
};

export default lab;
