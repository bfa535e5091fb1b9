/**
 * The optional blocked.cc is built apart from kernel.cc (binding.gyp: <impl>_blocked): a learner's blocked.cc that
 * does not compile leaves the kernel.cc rungs built and running, and only native-blocked failing its check (a learner's
 * compile error is a failure, issue 25) and the blocked rungs unmeasured, with the compiler's first error naming
 * blocked.cc and the fix. (Before, both files were built into
 * every module, so a syntax error in the optional exercise took down the core rungs too.)
 * Builds a copy of the package whose exercise is the solution with one bad line planted in blocked.cc; only the
 * modules this needs (NATIVE_KERNEL_TARGETS), without the BLAS.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildCopyRoot } from './support/build-copy.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PKG = path.join(REPO, 'labs', 'native-kernel');

function builtHere(): boolean {
  try {
    return JSON.parse(readFileSync(path.join(PKG, 'build', 'native-kernel-build.json'), 'utf8')).targets?.solution_O3?.available === true;
  } catch {
    return false;
  }
}

test("a blocked.cc that does not compile leaves kernel.cc's rungs built and running; only native-blocked fails, naming blocked.cc", { skip: builtHere() ? false : 'no C++ toolchain here (the solution rungs are not built)' }, (t) => {
  const root = buildCopyRoot(t, 'native-kernel-blocked-error-');
  const pkg = path.join(root, 'labs', 'native-kernel');
  const skipped = [path.join(PKG, 'build'), path.join(PKG, 'blas', 'build')];
  cpSync(PKG, pkg, { recursive: true, filter: (src) => !skipped.some((d) => src === d || src.startsWith(`${d}${path.sep}`)) });
  // The exercise is the solution (so its kernel.cc rungs multiply right), with a syntax error planted in blocked.cc.
  for (const dir of ['exercises', 'solutions']) cpSync(path.join(REPO, 'solutions', 'native-kernel'), path.join(root, dir, 'native-kernel'), { recursive: true });
  const blocked = path.join(root, 'exercises', 'native-kernel', 'blocked.cc');
  const lines = readFileSync(blocked, 'utf8').split('\n');
  const badLine = lines.findIndex((line) => line.startsWith('namespace kernel {')) + 2; // 1-based: the line after it
  assert.ok(badLine > 1, 'the solution blocked.cc opens namespace kernel');
  lines.splice(badLine - 1, 0, 'int this_is_not_cxx = ;');
  writeFileSync(blocked, lines.join('\n'));
  for (const name of ['node_modules', 'package.json']) symlinkSync(path.join(REPO, name), path.join(root, name));

  const env = { ...process.env, NATIVE_KERNEL_TARGETS: 'exercise_O3,exercise_march,exercise_blocked,solution_blocked', NATIVE_KERNEL_BLAS: 'none', npm_config_userconfig: '/dev/null' };
  const build = spawnSync(process.execPath, ['scripts/build-addon.mjs'], { cwd: pkg, env, encoding: 'utf8', timeout: 300_000 });
  assert.equal(build.status, 0, `the build script must not fail: ${build.stderr}`);
  const record = JSON.parse(readFileSync(path.join(pkg, 'build', 'native-kernel-build.json'), 'utf8'));
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
      checked[variant] = lab.comparator.compare(await lab.reference(input), await instance.run(input)).equal;
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
