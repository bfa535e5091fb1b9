/**
 * Without a C++ compiler: the install script still exits 0, records why the build failed and how to fix it, and a
 * lab run in that checkout measures the TypeScript rungs and leaves the native ones out with a printed reason.
 * Runs on a temporary copy of the package, with CC/CXX pointing at a compiler that does not exist.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildCopyRoot } from './support/build-copy.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

test('no compiler: install succeeds, the reason and the fix are recorded, TypeScript rungs still run', async (t) => {
  const root = buildCopyRoot(t, 'native-kernel-nocc-');
  const pkg = path.join(root, 'labs', 'native-kernel');
  const builtDir = path.join(REPO, 'labs', 'native-kernel', 'build');
  cpSync(path.join(REPO, 'labs', 'native-kernel'), pkg, { recursive: true, filter: (src) => src !== builtDir && !src.startsWith(`${builtDir}${path.sep}`) });
  for (const dir of ['exercises', 'solutions']) cpSync(path.join(REPO, dir, 'native-kernel'), path.join(root, dir, 'native-kernel'), { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));

  const env = { ...process.env, CC: '/nonexistent/gcc', CXX: '/nonexistent/g++', npm_config_userconfig: '/dev/null' };
  const install = spawnSync(process.execPath, ['scripts/build-addon.mjs'], { cwd: pkg, env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(install.status, 0, `the install script must not fail: ${install.stderr}`);
  assert.match(install.stderr, /could not build solution_O0, solution_O3, solution_march/);
  assert.match(install.stderr, /fix: install a C\+\+ toolchain/);
  const record = JSON.parse(readFileSync(path.join(pkg, 'build', 'native-kernel-build.json'), 'utf8'));
  // What is missing first: the compiler we pointed at, or Python on a machine without it (node-gyp needs both).
  assert.match(record.reason, /nonexistent\/gcc|Python/, 'the recorded reason names what was missing');
  assert.match(record.fix, /apt-get install -y g\+\+ make python3/);
  assert.equal(existsSync(path.join(pkg, 'build', 'Release', 'solution_O3.node')), false);

  // A lab run in the copy, in a child process so its modules are the copy's (and its build record).
  const script = `
    import { runLab } from ${JSON.stringify(pathToFileURL(path.join(REPO, 'labs/harness/src/run/run-lab.ts')).href)};
    const outcome = await runLab({ lab: 'native-kernel', impl: 'solution', quick: true, silent: true, rootDir: ${JSON.stringify(root)},
      outDir: ${JSON.stringify(path.join(root, 'results'))}, sampling: { warmupSamples: 1, rounds: 1, samplesPerRound: 2 }, cpus: 2 });
    console.log(JSON.stringify({ exitCode: outcome.exitCode, variants: [...new Set(outcome.results?.cases.map((c) => c.variant))], notes: outcome.results?.notes }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  const outcome = JSON.parse(run.stdout.trim().split('\n').pop() as string);
  assert.deepEqual({ exitCode: outcome.exitCode, variants: outcome.variants }, { exitCode: 0, variants: ['ts-naive', 'ts-typed'] });
  // The reason and the fix are in the results (and so in every report), not only on the terminal.
  assert.match(outcome.notes.join('\n'), /Unavailable, not measured: native-O0, native-O3, native-march, native-threads, triad, native-blocked, native-blocked-threads, native-blas, native-blas-threads \(solution\)\. Why: node-gyp configure failed: .*(nonexistent\/gcc|Python).*Fix: install a C\+\+ toolchain/);
});
