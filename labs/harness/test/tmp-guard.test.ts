/**
 * The temp-folder guard of `npm test` (support/tmp-guard.ts): the suite runner (support/suite.ts, which sets it up as
 * `node --test --test-global-setup` would), on a fixture test that leaves a folder behind, fails and names the folder;
 * on one that cleans up, passes. Either way the guard's folder is gone.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from './support/temp-dir.ts';

const SUITE = fileURLToPath(new URL('./support/suite.ts', import.meta.url));
const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/tmp-guard/${name}`, import.meta.url));

/** The suite runner on one file, with TMPDIR set to a folder of this test's own, which is returned as `tmp`. */
function runGuarded(t: TestContext, file: string) {
  const tmp = tempDir(t, 'tmp-guard-test-');
  // NODE_TEST_CONTEXT is how a test runner tells its child it is one; the inner runner must report as a top-level run.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, [SUITE, file], {
    encoding: 'utf8',
    env: { ...env, TMPDIR: tmp },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, tmp };
}

test('a test that leaves a temp folder fails the run, which names it; the guard still removes its folder', (t) => {
  const run = runGuarded(t, fixture('leaks-a-folder.ts'));
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^ℹ fail 0$/m, 'the fixture test itself passes: only the guard fails the run');
  assert.match(run.stderr, /^tmp-guard: the tests left 1 entry in the temp folder \(.*course-test-tmp-\w+\):\n {2}tmp-guard-fixture-leak-\w+\/\n/m);
  assert.match(run.stderr, /t\.after\(\(\) => rmSync\(dir, \{ recursive: true, force: true \}\)\)/);
  assert.deepEqual(readdirSync(run.tmp), [], 'neither the guard folder nor the leak is left');
});

test('a test that cleans up passes; a lab cache the guard knows is not a leak, and goes with the guard folder', (t) => {
  const run = runGuarded(t, fixture('cleans-up.ts'));
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stderr, /tmp-guard/);
  assert.deepEqual(readdirSync(run.tmp), []);
});
