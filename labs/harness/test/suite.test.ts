/** The suite runner's choices (support/suite.ts): which files start first, how many run at once, which files run. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { concurrencyFor, MAX_CONCURRENCY, orderFiles, runsAlone, selectFiles, slowFile } from './support/suite.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

test('slowFile: a browser, a lab run, a check, a native or site build, the CLI or the early line mark a file slow; plain unit tests do not', () => {
  for (const text of ['/** A file. */\n// npm test starts this file early: it simulates for 15 s\nimport x from "y";', 'site = await openSite();', 'await runLab({ lab })', 'await checkLab({ lab })', "spawnSync(process.execPath, ['scripts/build-addon.mjs'])", "['scripts/build-checked.ts']", 'spawnSync(process.execPath, [CLI, "x"])', 'chromium.launch({})', 'const build = buildPlantedCourse({ X: 1 });']) {
    assert.equal(slowFile(text), true, text);
  }
  for (const text of ["import { test } from 'node:test';\ntest('x', () => assert.equal(1, 1));", 'const runLabels = 1;', 'checkLabel(x)', '// npm test starts this file early:', ' * // npm test starts this file early: quoted in a comment']) {
    assert.equal(slowFile(text), false, text);
  }
});

test('orderFiles: slow files first, each group in name order, nothing lost or repeated', () => {
  const files = [
    { file: 'b.test.ts', text: 'plain' },
    { file: 'z.test.ts', text: 'await runLab({})' },
    { file: 'a.test.ts', text: 'plain' },
    { file: 'c.test.ts', text: 'site = await openSite()' },
  ];
  assert.deepEqual(orderFiles(files), ['c.test.ts', 'z.test.ts', 'a.test.ts', 'b.test.ts']);
});

test('concurrencyFor: the job CPUs within [2, 8]; COURSE_TEST_CONCURRENCY wins; a bad value is an error naming it', () => {
  assert.equal(concurrencyFor({}, 1), 2, 'files that wait on timers and browsers overlap even on one CPU');
  assert.equal(concurrencyFor({}, 2), 2);
  assert.equal(concurrencyFor({}, 6), 6);
  assert.equal(concurrencyFor({}, 128), MAX_CONCURRENCY);
  assert.equal(concurrencyFor({ COURSE_TEST_CONCURRENCY: '1' }, 64), 1);
  assert.equal(concurrencyFor({ COURSE_TEST_CONCURRENCY: ' ' }, 4), 4, 'blank: unset');
  for (const bad of ['0', '-1', '1.5', 'two']) assert.throws(() => concurrencyFor({ COURSE_TEST_CONCURRENCY: bad }, 2), /COURSE_TEST_CONCURRENCY must be a whole number >= 1/);
});

test('selectFiles: no argument is every lab and site test file; a group or file paths select those', () => {
  const all = selectFiles([], ROOT);
  const labs = selectFiles(['labs'], ROOT);
  const site = selectFiles(['site'], ROOT);
  assert.ok(labs.includes('labs/harness/test/suite.test.ts'));
  assert.ok(site.includes('site/test/pages.test.ts'));
  assert.deepEqual([...all].sort(), [...labs, ...site].sort());
  assert.ok(all.every((file) => file.endsWith('.test.ts')));
  assert.deepEqual(selectFiles(['labs/core/test/format.test.ts'], ROOT), ['labs/core/test/format.test.ts']);
  // The scripts run the suite through this file, so a change of runner cannot leave one of them behind.
  const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  for (const name of ['test', 'test:labs', 'test:p']) assert.match(scripts[name] ?? '', /node labs\/harness\/test\/support\/suite\.ts/, name);
});

test('runsAlone: only the marker line at the start of a line, with a reason', () => {
  assert.equal(runsAlone('/** x */\n// npm test runs this file alone: a grade of real timings.\nimport x;'), true);
  assert.equal(runsAlone('// npm test runs this file alone:\n'), false, 'a reason is required');
  assert.equal(runsAlone("const s = '// npm test runs this file alone: x';"), false);
  // The files that compare real timings carry it.
  for (const file of ['grade', 'compare', 'forgery']) assert.equal(runsAlone(readFileSync(path.join(ROOT, `labs/harness/test/${file}.test.ts`), 'utf8')), true, file);
});

test('the runner exits 1 when a test fails and 0 when all pass', () => {
  const suite = path.join(ROOT, 'labs/harness/test/support/suite.ts');
  // NODE_TEST_CONTEXT is how a test runner tells its child it is one; the inner runner must report as a top-level run.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const failing = spawnSync(process.execPath, [suite, 'labs/harness/test/fixtures/suite/fails.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(failing.status, 1, failing.stdout + failing.stderr);
  assert.match(failing.stdout, /✖ fails on purpose/);
  const passing = spawnSync(process.execPath, [suite, 'labs/core/test/format.test.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(passing.status, 0, passing.stdout + passing.stderr);
});
