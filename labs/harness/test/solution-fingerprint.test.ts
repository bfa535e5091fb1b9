/**
 * A grade is a ratio to the solution, so a changed solution (the issue-25 sabotage: a busy wait added to
 * solutions/<lab>) makes any learner pass. Every graded run records the solution's fingerprint; validate and the
 * class gradebook refuse a grade whose solution is not the checkout's.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { fingerprintSolution } from '../src/supervise/solution-fingerprint.ts';
import { validateFile } from '../src/tools/validate.ts';
import { gradebookRow } from '../src/tools/gradebook.ts';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };

test('a graded run records the solution fingerprint; validate and the gradebook refuse it once the solution changes', async (t) => {
  const root = tempRoot('faults-root', 'harness-fingerprint-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), readFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts')));
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  const file = path.join(outcome.runDir!, 'results.json');
  const results = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(results.solutionFingerprint, fingerprintSolution(root, 'faulty'));
  assert.equal(results.solutionFingerprint.folder, 'solutions/faulty');

  const before = validateFile(file, { courseRoot: root });
  assert.equal(before.valid, true, before.problems.join('\n'));

  appendFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), '\n// a busy wait would go here\n');
  const after = validateFile(file, { courseRoot: root });
  assert.equal(after.valid, false);
  assert.match(after.problems.join('\n'), /^grade: measured against a changed solution \(solutions\/faulty was [0-9a-f]{12}\.\.\..*the grade is refused/m);
  const row = gradebookRow('mallory', file, { courseRoot: root });
  assert.equal(row.grade, 'none');
  assert.equal(row.status, 'invalid');
  assert.match(row.problem, /changed solution/);
});

test('a graded run without a fingerprint gets no grade', async (t) => {
  const root = tempRoot('faults-root', 'harness-fingerprint-', t);
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  const file = path.join(outcome.runDir!, 'results.json');
  const results = JSON.parse(readFileSync(file, 'utf8'));
  delete results.solutionFingerprint;
  writeFileSync(file, JSON.stringify(results));
  const checked = validateFile(file, { courseRoot: root });
  assert.equal(checked.valid, false);
  assert.match(checked.problems.join('\n'), /does not record which solution/);
});
