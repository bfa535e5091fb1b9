/**
 * Finding and loading the native rungs. scripts/build-addon.mjs builds them at install time and records in
 * build/native-kernel-build.json which rungs were built and, when not, why: this module reads that record, so a
 * machine without a C++ compiler gets "unavailable: <why>; fix: <how>" instead of a missing-module crash.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Impl } from '@parallel-course/harness/lab-definition.ts';
import { LEARNER_FILES } from './learner-files.ts';

/** labs/native-kernel: binding.gyp and build/ live here. */
export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_STATUS_FILE = path.join(PACKAGE_DIR, 'build', 'native-kernel-build.json');
export const BUILD_COMMAND = 'npm run build -w labs/native-kernel';

/** The compiler settings of the native rungs, each a separate build (binding.gyp). */
export const RUNGS = ['O0', 'O3', 'march'] as const;
export type Rung = (typeof RUNGS)[number];
export const RUNG_FLAGS: Record<Rung, string> = { O0: '-O0', O3: '-O3', march: '-O3 -march=native' };

/** What a native rung exports (native/addon.cc). */
export interface NativeKernel {
  /** c = a * b in place, on the calling thread. Throws TypeError/RangeError on bad arguments. */
  matmul(a: Float64Array, b: Float64Array, c: Float64Array, n: number): Float64Array;
  /** c = a * b in place by the impl's blocked, register-tiled kernel (<impl>/blocked.cc), on the calling thread. */
  matmulBlocked(a: Float64Array, b: Float64Array, c: Float64Array, n: number): Float64Array;
  /** c = a * b on `threads` native threads, off the event loop. */
  matmulAsync(a: Float64Array, b: Float64Array, c: Float64Array, n: number, threads: number): Promise<Float64Array>;
  /** matmulAsync with the impl's blocked kernel (<impl>/blocked.cc) on each thread's rows. */
  matmulBlockedAsync(a: Float64Array, b: Float64Array, c: Float64Array, n: number, threads: number): Promise<Float64Array>;
  /** a[i] = b[i] + s * c[i] on `threads` threads, thread t always on the same contiguous chunk (native/stream.h). Returns a. */
  triad(a: Float64Array, b: Float64Array, c: Float64Array, s: number, threads: number): Float64Array;
  /** Copies the sources into b and c and zeroes a, each chunk on the thread `triad` runs it on (first touch). */
  triadFirstTouch(a: Float64Array, b: Float64Array, c: Float64Array, bSource: Float64Array, cSource: Float64Array, threads: number): void;
  /** Peak flop/s of independent FMAs on `threads` threads (native/probe.h). */
  fmaPeak(iterations: number, threads: number): number;
  /** Which vectors fmaPeak uses, e.g. "512-bit FMA (AVX-512F)" (native/probe.h). */
  fmaVectorWidth(): string;
  /** Bytes/s of a STREAM triad over three arrays of `elements` doubles on `threads` threads. */
  triadBandwidth(elements: number, repeats: number, threads: number): number;
  maxN: number;
  maxThreads: number;
}

/** What the BLAS module (blas/binding.gyp) adds: the system BLAS's dgemm and its settings (native/blas.h). */
export interface BlasKernel extends NativeKernel {
  /** c = a * b in place by the library's dgemm, on as many threads as blasSetThreads last set. */
  matmulBlas(a: Float64Array, b: Float64Array, c: Float64Array, n: number): Float64Array;
  blasSetThreads(threads: number): void;
  /** The library, the kernel it chose for this CPU (e.g. "Zen", "SkylakeX"), its build configuration, its threads. */
  blasInfo(): { library: string; coreName: string; config: string; threads: number };
}

/** The BLAS module's entry in the build record, and its one-line fix when missing (scripts/build-addon.mjs). */
export const BLAS_TARGET = 'blas';
export const BLAS_FIX = `install OpenBLAS (Debian/Ubuntu: apt-get install -y libopenblas-dev; Fedora: dnf install openblas-devel), then run \`${BUILD_COMMAND}\``;

/** Whether a rung can be used, and if not, why and what to do. */
export type RungStatus = { available: true; file: string } | { available: false; reason: string; fix: string };

interface BuildRecord {
  fix?: string;
  reason?: string | null;
  targets?: Record<string, { available: boolean; file?: string; reason?: string; fix?: string }>;
}

const DEFAULT_FIX = `install a C++ toolchain (Debian/Ubuntu: apt-get install -y g++ make python3), then run \`${BUILD_COMMAND}\``;

/** Reads the build record; a missing or unreadable one means "not built yet". Pure apart from the file read. */
export function readBuildRecord(file = BUILD_STATUS_FILE): BuildRecord | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as BuildRecord;
  } catch {
    return null;
  }
}

/** The status of one rung of one implementation, from the build record (see scripts/build-addon.mjs). */
export function rungStatus(impl: Impl, rung: Rung, record = readBuildRecord(), packageDir = PACKAGE_DIR): RungStatus {
  const target = `${impl}_${rung}`;
  if (record === null) {
    return { available: false, reason: 'the native addon has not been built (no build/native-kernel-build.json)', fix: `run \`${BUILD_COMMAND}\`` };
  }
  const fix = record.fix ?? DEFAULT_FIX;
  const entry = record.targets?.[target];
  if (!entry) return { available: false, reason: record.reason ?? `${target} was not built`, fix };
  if (!entry.available || !entry.file) return { available: false, reason: entry.reason ?? `${target} failed to build`, fix: entry.fix ?? fix };
  const file = path.resolve(packageDir, entry.file);
  if (!existsSync(file)) {
    return { available: false, reason: `${entry.file} is missing (deleted after the build?)`, fix: `run \`${BUILD_COMMAND}\`` };
  }
  return { available: true, file };
}

/** The status of the library rung (one build, shared by both implementations: it runs no learner code). */
export function blasStatus(record = readBuildRecord(), packageDir = PACKAGE_DIR): RungStatus {
  if (record === null) return rungStatus('solution', 'O3', null, packageDir);
  const entry = record.targets?.[BLAS_TARGET];
  if (!entry && record.reason) return { available: false, reason: record.reason, fix: record.fix ?? DEFAULT_FIX };
  if (!entry) return { available: false, reason: 'the BLAS rung was not built (a build record from before it existed)', fix: `run \`${BUILD_COMMAND}\`` };
  if (!entry.available || !entry.file) return { available: false, reason: entry.reason ?? 'the BLAS rung failed to build', fix: entry.fix ?? BLAS_FIX };
  const file = path.resolve(packageDir, entry.file);
  if (!existsSync(file)) return { available: false, reason: `${entry.file} is missing (deleted after the build?)`, fix: `run \`${BUILD_COMMAND}\`` };
  return { available: true, file };
}

const require = createRequire(import.meta.url);

/**
 * Loads the BLAS module and sets the library's threads (1 on the sequential ladder). OpenBLAS starts its own
 * thread pool when loaded (OPENBLAS_NUM_THREADS, else one per CPU); openblas_set_num_threads limits later calls.
 */
export function loadBlas(threads = 1): BlasKernel {
  const status = blasStatus();
  if (!status.available) throw new Error(`the native-blas rung is unavailable: ${status.reason}. Fix: ${status.fix}`);
  let module: BlasKernel;
  try {
    module = require(status.file) as BlasKernel;
  } catch (error) {
    throw new Error(`could not load ${path.relative(PACKAGE_DIR, status.file)}: ${(error as Error).message}. Run \`${BUILD_COMMAND}\``);
  }
  module.blasSetThreads(threads);
  return module;
}

/** Loads a rung's module; throws an Error saying what is wrong and how to fix it. Call in setup, never when timed. */
export function loadRung(impl: Impl, rung: Rung): NativeKernel {
  const status = rungStatus(impl, rung);
  if (!status.available && impl === 'exercise' && rungStatus('solution', rung).available) {
    // The solution's rung built with the same toolchain: the learner's C++ is what does not compile.
    const file = /blocked\.cc/.test(status.reason) ? 'blocked.cc' : /kernel\.cc/.test(status.reason) ? 'kernel.cc' : 'kernel.cc or blocked.cc';
    throw new Error(
      `exercises/native-kernel/${file} does not compile (the solution's rungs built with the same compiler): ${status.reason.split('\n')[0]}. ` +
        `Fix the error, then run \`${BUILD_COMMAND}\` (the compiler's full output is in labs/native-kernel/build/native-kernel-build.json)`,
    );
  }
  if (!status.available) throw new Error(`the ${impl} native rung ${rung} is unavailable: ${status.reason}. Fix: ${status.fix}`);
  try {
    return require(status.file) as NativeKernel;
  } catch (error) {
    throw new Error(
      `could not load ${path.relative(PACKAGE_DIR, status.file)}: ${(error as Error).message}. ` +
        `It may have been built on another machine or for another Node: run \`${BUILD_COMMAND}\``,
    );
  }
}

/**
 * A warning when one of the implementation's C++ files (learner-files.ts: kernel.cc, blocked.cc; each is in every
 * module) is newer than a built module of it: the learner edited the code but the lab would still run the previous
 * build. Null when every built module is up to date.
 */
export function staleBuildWarning(impl: Impl, implDir: string, record = readBuildRecord()): string | null {
  const sources = LEARNER_FILES.map((learner) => path.join(implDir, learner.file)).filter((file) => existsSync(file));
  if (sources.length === 0) return null;
  const times = new Map(sources.map((file) => [file, statSync(file).mtimeMs]));
  const changed = new Set<string>();
  const stale = RUNGS.filter((rung) => {
    const status = rungStatus(impl, rung, record);
    if (!status.available) return false;
    const built = statSync(status.file).mtimeMs;
    const newer = sources.filter((file) => built < times.get(file)!);
    for (const file of newer) changed.add(file);
    return newer.length > 0;
  });
  if (stale.length === 0) return null;
  const names = sources.filter((file) => changed.has(file)).map((file) => `${path.basename(path.dirname(file))}/${path.basename(file)}`);
  return `${names.join(' and ')} (${impl}) changed after the native rungs ${stale.join(', ')} were built: ` +
    `they still run the previous code. Rebuild with \`${BUILD_COMMAND}\``;
}
