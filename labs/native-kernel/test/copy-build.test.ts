/**
 * Builds of a copy of the package (build-addon.mjs, as `npm ci` runs it), one copy built twice:
 *   1. with NATIVE_KERNEL_BLAS=none and the solution copied into the exercise: the build exits 0, records native-blas
 *      unavailable with the fix, and the exercise (kernel.cc and blocked.cc) passes the check;
 *   2. then with one bad line planted in the exercise's blocked.cc: blocked.cc is built apart from kernel.cc
 *      (binding.gyp: <impl>_blocked), so the kernel.cc rungs stay built and running, only native-blocked fails its check
 *      (a learner's compile error is a failure, issue 25) and the blocked rungs go unmeasured, with the compiler's first
 *      error naming blocked.cc and the fix. (Before, both files were built into every module, so a syntax error in the
 *      optional exercise took down the core rungs too.)
 * The second build reuses the first one's objects: kernel.cc's rungs are relinked, not compiled again, which is what
 * two copies cost before (about 10 CPU-seconds of compiler); its node-gyp runs are the same as a clean build's.
 * Only the modules each step needs are built (NATIVE_KERNEL_TARGETS). P is pinned (threads 1 and 2), so CI's
 * COURSE_CPUS=1 and =64 passes need not build this copy twice more: lab.test checks the same kernels on 1..64 threads.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkLab } from '@parallel-course/harness/testing.ts';
import { BLAS_FIX, rungStatus } from '../src/addon.ts';
import { buildCopyRoot } from './support/build-copy.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PKG = path.join(REPO, 'labs', 'native-kernel');
const built = rungStatus('solution', 'march').available && rungStatus('solution', 'O3').available;

/** Runs the copy's install script with these modules and env; returns its exit status and stderr. */
function buildCopy(pkg: string, targets: string[]): { status: number | null; stderr: string } {
  const env = { ...process.env, NATIVE_KERNEL_BLAS: 'none', NATIVE_KERNEL_TARGETS: targets.join(','), npm_config_userconfig: '/dev/null' };
  const build = spawnSync(process.execPath, ['scripts/build-addon.mjs'], { cwd: pkg, env, encoding: 'utf8', timeout: 300_000 });
  return { status: build.status, stderr: build.stderr };
}

function buildRecord(pkg: string) {
  return JSON.parse(readFileSync(path.join(pkg, 'build', 'native-kernel-build.json'), 'utf8'));
}

describe('a copy of the package, built as npm ci builds it', { skip: built ? false : 'no C++ toolchain here (the solution rungs are not built)' }, () => {
  let root = '';
  let pkg = '';
  let removeCopy = (): void => {};
  // The copy outlives each test (the second builds on the first) and goes when the suite ends.
  after(() => removeCopy());
  before(() => {
    root = buildCopyRoot({ after: (remove) => (removeCopy = remove) }, 'native-kernel-copy-build-');
    pkg = path.join(root, 'labs', 'native-kernel');
    const skipped = [path.join(PKG, 'build'), path.join(PKG, 'blas', 'build')];
    cpSync(PKG, pkg, { recursive: true, filter: (src) => !skipped.some((d) => src === d || src.startsWith(`${d}${path.sep}`)) });
    // The exercise is a copy of the solution: a learner who wrote the reference's code must pass.
    for (const dir of ['exercises', 'solutions']) cpSync(path.join(REPO, 'solutions', 'native-kernel'), path.join(root, dir, 'native-kernel'), { recursive: true });
    for (const name of ['node_modules', 'package.json']) symlinkSync(path.join(REPO, name), path.join(root, name));
  });

  it('with NATIVE_KERNEL_BLAS=none: exits 0, builds the other rungs and records native-blas unavailable with the fix; the solution copied into the exercise (kernel.cc and blocked.cc) passes the check', async () => {
    // The exercise's four modules, one of the solution's and the BLAS step (which NATIVE_KERNEL_BLAS=none skips).
    const install = buildCopy(pkg, ['solution_march', 'exercise_O0', 'exercise_O3', 'exercise_march', 'exercise_blocked', 'blas']);
    assert.equal(install.status, 0, `the install script must not fail: ${install.stderr}`);
    assert.match(install.stderr, /native-blas unavailable: BLAS detection was skipped \(NATIVE_KERNEL_BLAS=none\); fix: install OpenBLAS \(Debian\/Ubuntu: apt-get install -y libopenblas-dev/);
    const record = buildRecord(pkg);
    assert.deepEqual(record.targets.blas, { available: false, reason: 'BLAS detection was skipped (NATIVE_KERNEL_BLAS=none)', fix: BLAS_FIX });
    assert.equal(record.targets.solution_march.available, true, 'the other rungs still build');
    assert.equal(existsSync(path.join(pkg, 'blas', 'build', 'Release', 'blas.node')), false);

    // The exercise's check in that root (the copy's lab and build): every case passes, native-blocked included.
    const check = await checkLab({ lab: 'native-kernel', impl: 'exercise', rootDir: root, cpus: 2 });
    const failed = check.correctness.filter((e) => !e.passed);
    assert.deepEqual(failed.map((e) => `${e.variant} ${JSON.stringify(e.params)}: ${e.reason}`), []);
    assert.ok(check.correctness.some((e) => e.variant === 'native-blocked' && e.passed));
    assert.equal(check.exitCode, 0);
  });

  it("then a blocked.cc that does not compile leaves kernel.cc's rungs built and running; only native-blocked fails, naming blocked.cc", () => {
    assert.ok(existsSync(path.join(pkg, 'build', 'Release', 'exercise_O3.node')), 'the first build ran (this test builds on it)');
    // A syntax error planted in the exercise's blocked.cc, the line after `namespace kernel {`.
    const blocked = path.join(root, 'exercises', 'native-kernel', 'blocked.cc');
    const lines = readFileSync(blocked, 'utf8').split('\n');
    const badLine = lines.findIndex((line) => line.startsWith('namespace kernel {')) + 2; // 1-based: the line after it
    assert.ok(badLine > 1, 'the solution blocked.cc opens namespace kernel');
    lines.splice(badLine - 1, 0, 'int this_is_not_cxx = ;');
    writeFileSync(blocked, lines.join('\n'));

    const build = buildCopy(pkg, ['exercise_O3', 'exercise_march', 'exercise_blocked', 'solution_blocked']);
    assert.equal(build.status, 0, `the build script must not fail: ${build.stderr}`);
    const record = buildRecord(pkg);
    assert.equal(record.targets.exercise_O3?.available, true, `kernel.cc's -O3 rung still builds: ${record.targets.exercise_O3?.reason}`);
    assert.equal(record.targets.exercise_march?.available, true, `kernel.cc's -march=native rung still builds: ${record.targets.exercise_march?.reason}`);
    const failed = record.targets.exercise_blocked;
    assert.equal(failed?.available, false);
    assert.match(failed.reason, new RegExp(`^building the exercise blocked kernel \\(blocked\\.cc\\) failed: exercises/native-kernel/blocked\\.cc:${badLine}:\\d+: error: `));
    assert.match(failed.fix, /^fix the compile error in exercises\/native-kernel\/blocked\.cc \(the first error is shown above\), then run `npm run build -w labs\/native-kernel`$/);
    assert.match(build.stderr, /could not build exercise_blocked \(every other rung, TypeScript ones included, still runs\)/);
    assert.match(build.stderr, /why: building the exercise blocked kernel \(blocked\.cc\) failed: exercises\/native-kernel\/blocked\.cc:/);

    // The copy's lab (its own build record): the kernel.cc rungs are cases and multiply right; the blocked kernel is one
    // case whose set-up fails naming blocked.cc (the solution's blocked module built with the same compiler, so this is
    // the learner's compile error: a failed check and exit 1, issue 25), and the notes say why and what to do.
    const script = `
      const { default: lab } = await import(${JSON.stringify(path.join(pkg, 'src', 'lab.ts'))});
      const ctx = { impl: 'exercise', implDir: ${JSON.stringify(path.join(root, 'exercises', 'native-kernel'))}, rootDir: ${JSON.stringify(root)}, quick: true, availableParallelism: 2, seed: 1 };
      const cases = lab.cases(ctx);
      const checked = {};
      for (const variant of ['native-O3', 'native-march', 'native-threads']) {
        const c = cases.find((d) => d.variant === variant);
        if (!c) continue;
        const input = (await lab.inputs(c.params, ctx)).check[0];
        const instance = await c.setup(ctx);
        checked[variant] = lab.comparator.compare(await lab.expected(input), await instance.run(input)).equal;
        await instance.teardown();
      }
      const blockedCases = cases.filter((d) => d.variant.startsWith('native-blocked'));
      let blockedError = null;
      try { await blockedCases[0].setup(ctx); } catch (error) { blockedError = error.message; }
      console.log(JSON.stringify({ variants: [...new Set(cases.map((c) => c.variant))], blocked: blockedCases.map((c) => c.variant + ' ' + JSON.stringify(c.params)), blockedError, checked, notes: lab.notes(ctx) }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    assert.equal(child.status, 0, child.stderr);
    const { checked, notes, blocked: blockedCases, blockedError } = JSON.parse(child.stdout.trim().split('\n').pop()!);
    assert.deepEqual(checked, { 'native-O3': true, 'native-march': true, 'native-threads': true });
    assert.equal(blockedCases.length, 1, `one native-blocked case, to fail its check: ${blockedCases}`);
    assert.match(blockedCases[0], /^native-blocked \{"size":\d+\}$/);
    assert.match(blockedError ?? '', new RegExp(`^exercises/native-kernel/blocked\\.cc does not compile \\(the solution's blocked kernel built with the same compiler\\): building the exercise blocked kernel \\(blocked\\.cc\\) failed: exercises/native-kernel/blocked\\.cc:${badLine}:`));
    const note = (notes as string[]).find((n) => n.includes('native-blocked'));
    assert.match(note ?? '', new RegExp(
      `^Unavailable, not measured: native-blocked, native-blocked-threads \\(exercise\\)\\. Why: building the exercise blocked kernel \\(blocked\\.cc\\) failed: exercises/native-kernel/blocked\\.cc:${badLine}:\\d+: error: .*` +
        'Fix: fix the compile error in exercises/native-kernel/blocked\\.cc',
    ));
    assert.doesNotMatch(note ?? '', /native-O3|native-march/, 'the note names only the blocked rungs');
  });
});
