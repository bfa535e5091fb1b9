/**
 * --grade: the learner's graded case and the reference solution's, measured together in one run; the ratio with its
 * interval against the lab's target; recorded in results.json and recomputed by validate (a hand-edited grade is
 * caught); failed checks are not graded.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run-lab.ts';
import { parseResultsJson } from '../src/results-schema.ts';
import { validateSubmission } from '../src/tools/validate.ts';
import { formatGrade } from '../src/report/terminal.ts';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupIterations: 2, rounds: 4, iterationsPerRound: 3 };

async function grade(t: Parameters<typeof tempRoot>[2] & object, exercise: string) {
  const root = tempRoot('faults-root', 'harness-grade-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), exercise);
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true });
  return { outcome, results: outcome.results ? parseResultsJson(readFileSync(path.join(outcome.runDir!, 'results.json'), 'utf8'), 'results.json') : null };
}

const SAME = readFileSync(new URL('./fixtures/faults-root/solutions/faulty/faulty.ts', import.meta.url), 'utf8');
const SLOW = `export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let r = 0; r < 300; r++) { s = 0; for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!; }
  return s;
}
`;

test('the reference solution copied into the exercise passes its grade; the reference runs beside it in the same rounds', async (t) => {
  const { outcome, results } = await grade(t, SAME);
  assert.equal(outcome.exitCode, 0, outcome.summary);
  const entry = results!.grade!.entries[0]!;
  assert.deepEqual([entry.variant, entry.params, entry.pairing, entry.passed], ['learner', {}, 'rounds', true]);
  assert.ok(entry.ratio! > 0.2 && entry.ci95![0] <= entry.ratio! && entry.ratio! <= entry.ci95![1]);
  // The reference's copy is a measured case of its own: the same variant, marked impl=reference.
  assert.ok(results!.cases.some((c) => c.variant === 'learner' && c.params['impl'] === 'reference'));
  assert.equal(results!.grade!.passed, true);
  assert.match(formatGrade(results!.grade!).join('\n'), /^ {2}learner: [\d.]+ of the reference \[[\d.]+, [\d.]+\]: PASS/m);
  assert.deepEqual(validateSubmission(results).problems, []);
  // A hand-edited grade does not recompute.
  const edited = structuredClone(results!);
  edited.grade!.entries[0]!.ratio = 1.5;
  assert.ok(validateSubmission(edited).problems.some((p) => p.startsWith('grade')), JSON.stringify(validateSubmission(edited).problems));
});

test('a correct but 300x slower answer fails the grade and the run exits 1', async (t) => {
  const { outcome, results } = await grade(t, SLOW);
  assert.equal(outcome.exitCode, 1);
  assert.ok(outcome.correctness.every((e) => e.passed), 'it is correct: only the grade fails');
  const entry = results!.grade!.entries[0]!;
  assert.equal(entry.passed, false);
  assert.ok(entry.ratio! < 0.2, `ratio ${entry.ratio}`);
  assert.match(outcome.summary, /learner: 0\.\d+ of the reference .*: FAIL/);
});

test('an exercise that fails its check is not graded', async (t) => {
  const { outcome, results } = await grade(t, SAME.replace('return s;', 'return s + 1;'));
  assert.equal(outcome.exitCode, 1);
  const entry = results!.grade!.entries[0]!;
  assert.deepEqual([entry.ratio, entry.passed, entry.reason], [null, false, 'your case did not pass its check or was not measured']);
});
