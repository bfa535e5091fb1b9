/**
 * The native-kernel lab's part of `npm run doctor` (the harness runs every `labs/<lab>/src/doctor-probe.ts` in a
 * child process and prints its findings; it knows nothing of this lab): were the native rungs and the BLAS rung
 * really built, and do they load and multiply right on this machine? The build record alone can say "built" for a
 * module made on another machine or for another Node; loading it and checking one small product cannot.
 * Prints one JSON line: { "findings": [{ check, level, value, advice }] }. Loads the modules in this process only.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Finding, Impl } from '@parallel-course/harness';
import { blasStatus, blockedStatus, BUILD_COMMAND, PACKAGE_DIR, readBuildRecord, RUNGS, rungStatus, type BlasKernel, type BlockedKernel, type NativeKernel } from './addon.ts';

const require = createRequire(import.meta.url);

/** A 2 x 2 product with a known answer: [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]. */
function multipliesRight(multiply: (a: Float64Array, b: Float64Array, c: Float64Array, n: number) => Float64Array): string | null {
  const c = multiply(Float64Array.of(1, 2, 3, 4), Float64Array.of(5, 6, 7, 8), new Float64Array(4), 2);
  const want = [19, 22, 43, 50];
  return want.every((x, i) => c[i] === x) ? null : `2 x 2 product gave [${[...c].join(', ')}], not [${want.join(', ')}]`;
}

/** Loads one module file; the error in one line when it does not load. */
function load<T>(file: string): { module: T } | { error: string } {
  try {
    return { module: require(file) as T };
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0] ?? 'failed to load' };
  }
}

/**
 * The findings for the build in `packageDir` (its build/native-kernel-build.json): kernel.cc's rungs O0, O3, march and
 * the blocked module (blocked.cc, built apart). The solution's must also multiply right; the exercise's only load
 * (their loops are the learner's TODO).
 */
export function nativeFindings(record = readBuildRecord(), packageDir = PACKAGE_DIR): Finding[] {
  const problems: string[] = [];
  const fixes = new Set<string>();
  const good: string[] = [];
  const modules = [...RUNGS, 'blocked'] as const;
  for (const impl of ['solution', 'exercise'] as Impl[]) {
    for (const rung of modules) {
      const status = rung === 'blocked' ? blockedStatus(impl, record, packageDir) : rungStatus(impl, rung, record, packageDir);
      if (!status.available) {
        problems.push(`${impl} ${rung}: ${status.reason}`);
        fixes.add(status.fix);
        continue;
      }
      const loaded = load<NativeKernel & BlockedKernel>(status.file);
      const multiply = 'error' in loaded ? null : rung === 'blocked' ? loaded.module.matmulBlocked : loaded.module.matmul;
      const wrong = 'error' in loaded ? `does not load (${loaded.error})` : impl === 'solution' && multiply ? multipliesRight(multiply) : null;
      if (wrong) {
        problems.push(`${impl} ${rung}: ${path.relative(packageDir, status.file)} ${wrong}`);
        fixes.add(`rebuild it on this machine with this Node: \`${BUILD_COMMAND}\``);
      } else {
        good.push(`${impl} ${rung}`);
      }
    }
  }
  const addon: Finding = problems.length === 0
    ? { check: 'native addon', level: 'ok', value: `built and loaded: ${good.join(', ')}`, advice: "the native-kernel lab's C++ rungs can run (the solution's multiply right)" }
    : {
        check: 'native addon',
        level: 'warn',
        value: `${problems.length} of ${modules.length * 2} modules unusable`,
        advice: `${problems.join('; ')}. The lab reports them unavailable. Fix: ${[...fixes].join('; ')}`,
      };
  return [addon, blasFinding(record, packageDir)];
}

/** The library rung: built, loaded, and its dgemm right on a small product. */
function blasFinding(record: ReturnType<typeof readBuildRecord>, packageDir: string): Finding {
  const blas = blasStatus(record, packageDir);
  if (!blas.available) {
    return { check: 'native BLAS rung', level: 'warn', value: 'not built', advice: `${blas.reason}. The lab reports the library rung unavailable. Fix: ${blas.fix}` };
  }
  const file = path.relative(packageDir, blas.file);
  const loaded = load<BlasKernel>(blas.file);
  if ('error' in loaded) {
    return { check: 'native BLAS rung', level: 'warn', value: `${file} does not load (${loaded.error})`, advice: `rebuild it on this machine: \`${BUILD_COMMAND}\`` };
  }
  const wrong = multipliesRight((a, b, c, n) => loaded.module.matmulBlas(a, b, c, n));
  if (wrong) return { check: 'native BLAS rung', level: 'warn', value: `${file}: ${wrong}`, advice: `rebuild it on this machine: \`${BUILD_COMMAND}\`` };
  const info = loaded.module.blasInfo();
  return { check: 'native BLAS rung', level: 'ok', value: `${info.library}${info.coreName ? ` (${info.coreName})` : ''}: built and loaded`, advice: 'the library rung (dgemm) can run' };
}

if (import.meta.main) process.stdout.write(`${JSON.stringify({ findings: nativeFindings() })}\n`);
