/** --status: each lab's state from its check and its runs on disk. */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { CorrectnessEntry, Results } from '@parallel-course/core';
import type { RunOnDisk } from '../src/results-reader.ts';
import { listRuns } from '../src/results-reader.ts';
import { checkForStatus, formatStatus, labStatus } from '../src/status.ts';
import { genuineRun } from './support/genuine-run.ts';
import { tempRoot, WRONG_IMPL } from './support/temp-root.ts';

// One genuine run of the workflow fixture for the file (a run costs seconds): its results, and its folder on disk.
let genuine: Awaited<ReturnType<typeof genuineRun>>;
before(async () => {
  genuine = await genuineRun();
});
after(() => rmSync(genuine.root, { recursive: true, force: true }));

function entry(variant: string, passed: boolean, notImplemented = false, reason: string | null = null): CorrectnessEntry {
  return { variant, params: {}, passed, comparator: 'exact', reason, notImplemented, firstMismatch: null, maxAbsError: null, maxRelError: null, inputsChecked: 1, failedAt: passed ? null : { stage: 'check', sample: null } };
}

test('labStatus: not started, failing, passing, measured, error', () => {
  const todo = [entry('loop', true), entry('mine', false, true, 'not implemented: x')];
  assert.deepEqual(labStatus('sums', todo, []), { lab: 'sums', state: 'not started', detail: '1 of 2 cases not implemented: npm run lab -- sums --watch' });
  const wrong = [entry('loop', true), entry('mine', false, false, 'wrong output on check input #0'), entry('split', false, true, 'not implemented: y')];
  assert.deepEqual(labStatus('sums', wrong, []), { lab: 'sums', state: 'failing', detail: '2 of 3 cases fail; first: mine: wrong output on check input #0' });
  const ok = [entry('loop', true), entry('mine', true)];
  assert.deepEqual(labStatus('sums', ok, []), { lab: 'sums', state: 'passing', detail: 'all 2 cases pass; measure them: npm run lab -- sums' });
  const { results } = genuine;
  const exerciseRun: RunOnDisk = { runDir: 'x', results: { ...results, impl: 'exercise' } as Results, problem: null };
  const solutionRun: RunOnDisk = { runDir: 'y', results, problem: null };
  assert.equal(labStatus('sums', ok, [solutionRun]).state, 'passing', 'a run of the reference solution is not the learner\'s');
  const measured = labStatus('sums', ok, [exerciseRun, { runDir: 'z', results: null, problem: 'bad file' }]);
  assert.equal(measured.state, 'measured');
  assert.match(measured.detail, /^\d{4}-\d\d-\d\d \d\d:\d\d: split \(workers=2\): \d+(\.\d+)?x \[/);
  assert.equal(labStatus('sums', wrong, [exerciseRun]).state, 'failing', 'a broken edit after a good run shows');
  assert.deepEqual(labStatus('sums', { error: 'cannot load\nstack' }, []), { lab: 'sums', state: 'error', detail: 'the check could not run: cannot load' });
  const text = formatStatus([labStatus('sums', todo, []), measured]);
  assert.match(text, /^ {2}\[ \] {2}sums {2}not started/m);
  assert.match(text, /^ {2}\[v\] {2}sums {2}measured/m);
  assert.match(text, /1 of 2 labs measured\.$/);
});

test('checkForStatus checks the learner\'s current files, and listRuns reads the runs kept on disk', async (t) => {
  const root = tempRoot('workflow-root', 'harness-status-', t);
  const fresh = await checkForStatus({ lab: 'sums', impl: 'exercise', rootDir: root });
  assert.ok(!('error' in fresh));
  if (!('error' in fresh)) assert.equal(labStatus('sums', fresh.correctness, []).state, 'not started');
  writeFileSync(path.join(root, 'exercises', 'sums', 'impl.ts'), WRONG_IMPL);
  const wrong = await checkForStatus({ lab: 'sums', impl: 'exercise', rootDir: root });
  assert.ok(!('error' in wrong));
  if (!('error' in wrong)) assert.equal(labStatus('sums', wrong.correctness, []).state, 'failing');
  const missing = await checkForStatus({ lab: 'nope', impl: 'exercise', rootDir: root });
  assert.ok('error' in missing && /^unknown lab 'nope'\. The labs are: sums\./.test(missing.error));

  const { root: runRoot } = genuine;
  const runs = listRuns(path.join(runRoot, 'results'), 'sums');
  assert.equal(runs.length, 1);
  assert.equal(runs[0]?.results?.lab, 'sums');
  assert.deepEqual(listRuns(path.join(runRoot, 'results'), 'other'), []);
});
