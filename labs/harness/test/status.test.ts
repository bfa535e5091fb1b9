/** --status: each lab's state from its check and its runs on disk. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { CorrectnessEntry, Results } from '@parallel-course/core';
import type { RunOnDisk } from '../src/write/results-reader.ts';
import { listRuns } from '../src/write/results-reader.ts';
import { checkForStatus, designedFailuresOf, formatStatus, labStatus } from '../src/cli/status.ts';
import { cachedCheck, checkInputsKey } from '../src/cli/status-cache.ts';
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

test('labStatus: not started, failing, passing, measured, error; each with what to do next', async (t) => {
  const todo = [entry('loop', true), entry('mine', false, true, 'not implemented: x')];
  assert.deepEqual(labStatus('sums', todo, []), {
    lab: 'sums',
    state: 'not started',
    detail: '1 case of 2 not written yet.',
    next: 'write the TODO(learner) parts of exercises/sums/ (each comment says what), checked on every save',
    command: 'npm run lab -- sums --watch',
  });
  const wrong = [entry('loop', true), entry('mine', false, false, 'wrong output on check input #0'), entry('split', false, true, 'not implemented: y')];
  assert.deepEqual(labStatus('sums', wrong, []), {
    lab: 'sums',
    state: 'failing',
    detail: '2 cases of 3 fail; first: mine: wrong output on check input #0',
    next: "fix 'mine': the full message and its fix come with each check",
    command: 'npm run lab -- sums --watch',
  });
  const ok = [entry('loop', true), entry('mine', true)];
  assert.deepEqual(labStatus('sums', ok, []), { lab: 'sums', state: 'passing', detail: 'all 2 cases pass the check.', next: 'measure them', command: 'npm run lab -- sums' });
  const { results } = await genuineRun(t);
  const exerciseRun: RunOnDisk = { runDir: 'x', results: { ...results, impl: 'exercise' } as Results, problem: null };
  const solutionRun: RunOnDisk = { runDir: 'y', results, problem: null };
  assert.equal(labStatus('sums', ok, [solutionRun]).state, 'passing', 'a run of the solution is not the learner\'s');
  const measured = labStatus('sums', ok, [exerciseRun, { runDir: 'z', results: null, problem: 'bad file' }]);
  assert.equal(measured.state, 'measured');
  assert.match(measured.detail, /^measured \d{4}-\d\d-\d\d \d\d:\d\d: split \(workers=2\): \d+(\.\d+)?x \[/);
  assert.equal(labStatus('sums', wrong, [exerciseRun]).state, 'failing', 'a broken edit after a good run shows');
  assert.equal(labStatus('sums', { error: 'cannot load\nstack' }, []).detail, 'the check could not run: cannot load');
  const text = formatStatus([labStatus('sums', todo, []), measured], new Set(['sums']));
  assert.match(text, /^sums: not started \(nothing changed since the last check\)$/m);
  assert.match(text, /^sums: measured/m);
  assert.match(text, /^ {6}npm run lab -- sums --watch$/m, 'the command on its own line');
  assert.match(text, /1 of 2 labs measured\.$/);
  assert.doesNotMatch(text, /\[x\]|…/, 'no check-box marks that read as done, nothing cut');
});

test('a variant that ships failing on purpose reads as the exercise to do while its TODO(learner) is there', () => {
  const check = [entry('serial', true), entry('pool', false, true, 'not implemented: p'), entry('tally', false, false, 'wrong output on check input #2 at [total] ' + 'x'.repeat(200))];
  const designed = [{ variant: 'tally', lesson: 'it races on purpose: fixing the race is the exercise' }];
  const status = labStatus('task-granularity', check, [], designed);
  assert.equal(status.state, 'not started');
  assert.equal(status.detail, "1 case of 3 not written yet; 'tally' fails as shipped because it races on purpose: fixing the race is the exercise.");
  assert.equal(labStatus('task-granularity', check, []).state, 'failing', 'without the declaration the same failure is a bug');
  const long = formatStatus([labStatus('task-granularity', check, [])]);
  assert.ok(long.includes('x'.repeat(200)), 'a long reason is wrapped or kept whole, never cut');
  assert.ok(long.split('\n').every((line) => line.length <= 100 || !line.trim().includes(' ')), 'lines wrap at 100 columns');
});

test('designedFailuresOf: only while the exercise file still holds its TODO(learner)', (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'harness-designed-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'exercises', 'race'), { recursive: true });
  const file = path.join(root, 'exercises', 'race', 'tally.ts');
  const lab = { name: 'race', variants: [{ name: 'tally', description: 'd', source: '<impl>/tally.ts: tally', shipsFailing: 'the lesson' }, { name: 'other', description: 'd', source: '<impl>/tally.ts' }] };
  writeFileSync(file, '// TODO(learner): fix the race\n');
  assert.deepEqual(designedFailuresOf(lab, root), [{ variant: 'tally', lesson: 'the lesson' }]);
  writeFileSync(file, '// fixed\n');
  assert.deepEqual(designedFailuresOf(lab, root), [], 'once the learner has worked on it, a failure is theirs again');
});

test('--status cache: a cached check is reused while nothing changed, and a changed file is checked again', async (t) => {
  const root = tempRoot('workflow-root', 'harness-status-cache-', t);
  const cacheFile = path.join(root, 'results', '.status-cache.json');
  let checks = 0;
  const run = () => cachedCheck({
    lab: 'sums',
    rootDir: root,
    cacheFile,
    extra: { p: 2 },
    async compute() {
      checks++;
      const outcome = await checkForStatus({ lab: 'sums', impl: 'exercise', rootDir: root });
      return 'error' in outcome ? { check: outcome, designedFailures: [] } : { check: outcome.correctness, designedFailures: [] };
    },
  });
  const first = await run();
  assert.equal(first.reused, false);
  assert.equal(labStatus('sums', first.value.check, []).state, 'not started');
  const again = await run();
  assert.equal(again.reused, true, 'nothing changed: the stored check is reused');
  assert.equal(checks, 1);
  assert.deepEqual(again.value, first.value);

  writeFileSync(path.join(root, 'exercises', 'sums', 'impl.ts'), WRONG_IMPL);
  const edited = await run();
  assert.equal(edited.reused, false, 'the learner\'s file changed: checked again');
  assert.equal(checks, 2);
  assert.equal(labStatus('sums', edited.value.check, []).state, 'failing');
  assert.equal((await run()).reused, true);

  writeFileSync(path.join(root, 'labs', 'sums', 'src', 'extra.ts'), 'export const x = 1;\n');
  assert.equal((await run()).reused, false, 'a new file in the lab\'s package is a change too');
  assert.notEqual(checkInputsKey('sums', root, { p: 2 }), checkInputsKey('sums', root, { p: 4 }), 'the CPUs the check plans for are part of the key');
  const before = checkInputsKey('sums', root, { p: 2 });
  mkdirSync(path.join(root, 'labs', 'shared', 'src'), { recursive: true });
  writeFileSync(path.join(root, 'labs', 'shared', 'src', 'stats.ts'), 'export const median = 1;\n');
  assert.notEqual(checkInputsKey('sums', root, { p: 2 }), before, "a shared package's src (not a lab: no src/lab.ts) is part of the key");
  assert.equal(checks, 3);
  writeFileSync(cacheFile, 'not json');
  assert.equal((await run()).reused, false, 'an unreadable cache is a miss, not an error');
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
