/**
 * Finding and loading the native rungs. scripts/build-addon.mjs builds them at install time and records in
 * build/native-kernel-build.json which rungs were built and, when not, why: this module reads that record, so a
 * machine without a C++ compiler gets "unavailable: <why>; fix: <how>" instead of a missing-module crash.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Impl, LearnerFile } from '@parallel-course/harness';
import { BLOCKED, KERNEL, LEARNER_FILES } from './learner-files.ts';

/** labs/native-kernel: binding.gyp and build/ live here. */
export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILD_STATUS_FILE = path.join(PACKAGE_DIR, 'build', 'native-kernel-build.json');
export const BUILD_COMMAND = 'npm run build -w labs/native-kernel';

/** The compiler settings of kernel.cc's native rungs, each a separate build (binding.gyp). */
export const RUNGS = ['O0', 'O3', 'march'] as const;
export type Rung = (typeof RUNGS)[number];
export const RUNG_FLAGS: Record<Rung, string> = { O0: '-O0', O3: '-O3', march: '-O3 -march=native' };

/** What every native module exports (native/addon.cc): the machine probes and the limits. */
export interface NativeModule {
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

/** What a rung of kernel.cc (<impl>_O0, _O3, _march) adds: the learner's loop. */
export interface NativeKernel extends NativeModule {
  /** c = a * b in place, on the calling thread. Throws TypeError/RangeError on bad arguments. */
  matmul(a: Float64Array, b: Float64Array, c: Float64Array, n: number): Float64Array;
  /** c = a * b on `threads` native threads, off the event loop. */
  matmulAsync(a: Float64Array, b: Float64Array, c: Float64Array, n: number, threads: number): Promise<Float64Array>;
}

/**
 * What the blocked module (<impl>_blocked, -O3 -march=native) adds: the impl's optional blocked.cc, built apart from
 * kernel.cc so that a compile error in one leaves the other's rungs running.
 */
export interface BlockedKernel extends NativeModule {
  /** c = a * b in place by the impl's blocked, register-tiled kernel (<impl>/blocked.cc), on the calling thread. */
  matmulBlocked(a: Float64Array, b: Float64Array, c: Float64Array, n: number): Float64Array;
  /** c = a * b by the blocked kernel on `threads` native threads, each on its own rows, off the event loop. */
  matmulBlockedAsync(a: Float64Array, b: Float64Array, c: Float64Array, n: number, threads: number): Promise<Float64Array>;
}

/** What the BLAS module (blas/binding.gyp) adds: the system BLAS's dgemm and its settings (native/blas.h). */
export interface BlasKernel extends NativeKernel, BlockedKernel {
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
  return moduleStatus(`${impl}_${rung}`, record, packageDir);
}

/**
 * The status of the impl's blocked module (<impl>_blocked: native-blocked, native-blocked-threads), built apart from
 * kernel.cc's rungs. A record from before it was a module of its own has no entry: "not built", with the command.
 */
export function blockedStatus(impl: Impl, record = readBuildRecord(), packageDir = PACKAGE_DIR): RungStatus {
  const target = `${impl}_blocked`;
  if (record !== null && !record.targets?.[target] && !record.reason) {
    return { available: false, reason: `${target} was not built (a build record from before blocked.cc was built apart?)`, fix: `run \`${BUILD_COMMAND}\`` };
  }
  return moduleStatus(target, record, packageDir);
}

/** The status of one module (binding.gyp's target) from the build record. */
function moduleStatus(target: string, record: BuildRecord | null, packageDir: string): RungStatus {
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
    // The solution's rung built with the same toolchain: the learner's kernel.cc is what does not compile.
    throw new Error(
      `exercises/native-kernel/kernel.cc does not compile (the solution's rungs built with the same compiler): ${status.reason.split('\n')[0]}. ` +
        `Fix the error, then run \`${BUILD_COMMAND}\` (the compiler's full output is in labs/native-kernel/build/native-kernel-build.json)`,
    );
  }
  if (!status.available) throw new Error(`the ${impl} native rung ${rung} is unavailable: ${status.reason}. Fix: ${status.fix}`);
  return loadModule<NativeKernel>(status.file);
}

/** Loads the impl's blocked module (<impl>_blocked); throws an Error with the reason and the fix when it was not built. */
export function loadBlocked(impl: Impl): BlockedKernel {
  const status = blockedStatus(impl);
  if (!status.available && impl === 'exercise' && blockedStatus('solution').available) {
    // The solution's blocked module built with the same toolchain: the learner's blocked.cc is what does not compile.
    throw new Error(
      `exercises/native-kernel/blocked.cc does not compile (the solution's blocked kernel built with the same compiler): ${status.reason.split('\n')[0]}. ` +
        `Fix the error, then run \`${BUILD_COMMAND}\` (the compiler's full output is in labs/native-kernel/build/native-kernel-build.json)`,
    );
  }
  if (!status.available) throw new Error(`the ${impl} blocked kernel (native-blocked) is unavailable: ${status.reason.split('\n')[0]}. Fix: ${status.fix}`);
  return loadModule<BlockedKernel>(status.file);
}

function loadModule<T>(file: string): T {
  try {
    return require(file) as T;
  } catch (error) {
    throw new Error(
      `could not load ${path.relative(PACKAGE_DIR, file)}: ${(error as Error).message}. ` +
        `It may have been built on another machine or for another Node: run \`${BUILD_COMMAND}\``,
    );
  }
}

/**
 * A warning when one of the implementation's C++ files (learner-files.ts) is newer than a built module of it:
 * kernel.cc than a native-O0/O3/march rung, blocked.cc than the blocked module (native-blocked). The learner edited
 * the code but the lab would still run the previous build. Null when every built module is up to date.
 */
export function staleBuildWarning(impl: Impl, implDir: string, record = readBuildRecord()): string | null {
  const modules: { learner: LearnerFile; rung: string; status: RungStatus }[] = [
    ...RUNGS.map((rung) => ({ learner: KERNEL, rung: `native-${rung}`, status: rungStatus(impl, rung, record) })),
    { learner: BLOCKED, rung: 'native-blocked, native-blocked-threads', status: blockedStatus(impl, record) },
  ];
  const changed = new Set<string>();
  const stale: string[] = [];
  for (const { learner, rung, status } of modules) {
    const source = path.join(implDir, learner.file);
    if (!status.available || !existsSync(source)) continue;
    if (statSync(status.file).mtimeMs < statSync(source).mtimeMs) {
      changed.add(learner.file);
      stale.push(rung);
    }
  }
  if (stale.length === 0) return null;
  const names = LEARNER_FILES.filter((learner) => changed.has(learner.file)).map((learner) => `${path.basename(implDir)}/${learner.file}`);
  return `${names.join(' and ')} (${impl}) changed after the rungs ${stale.join(', ')} were built: ` +
    `they still run the previous code. Rebuild with \`${BUILD_COMMAND}\``;
}
