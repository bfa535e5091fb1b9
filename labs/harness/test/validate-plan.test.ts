/**
 * validate checks a file's samples against the sampling plan it records (issue 42): forged rounds gave a graded case
 * 24 samples where the plan had 6, every summary consistent with them, and `npm run report -- validate` called the
 * file valid. This test failed on the code before (checked: the file with twice the learner's samples was valid).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { recompute, validateFile, validateSubmission } from '../src/tools/validate.ts';
import { tempRoot } from './support/temp-root.ts';

test('a graded file whose case has more samples than its plan takes, or that records no plan, is not valid', async (t) => {
  const root = tempRoot('faults-root', 'harness-validate-plan-', t);
  const outcome = await runLab({ lab: 'faulty', impl: 'solution', quick: true, outDir: path.join(root, 'results'), sampling: { warmupSamples: 1, rounds: 3, samplesPerRound: 3 }, silent: true, rootDir: root, grade: true, forks: 2 });
  assert.ok(outcome.runDir);
  const file = path.join(outcome.runDir, 'results.json');
  assert.deepEqual(validateFile(file, { courseRoot: root }).problems, [], 'the run as written is valid');

  // The learner's case with three more rounds of fast samples, and every computed number made to agree with them.
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const k = data.cases.findIndex((c: { variant: string; params: Record<string, unknown> }) => c.variant === 'learner' && c.params.impl === undefined);
  const learner = data.cases[k];
  learner.samplesMs = [...learner.samplesMs, ...learner.samplesMs.map((ms: number) => ms / 100)];
  learner.sampleRounds = [...learner.sampleRounds, ...learner.sampleRounds.map((r: number) => r + 3)];
  // A graded case's samples say their process (forks): the forged ones too, so the file's shape still holds.
  if (learner.sampleProcesses) learner.sampleProcesses = [...learner.sampleProcesses, ...learner.sampleProcesses];
  const again = recompute(data);
  Object.assign(data, { cases: again.cases, speedups: again.speedups, amdahl: again.amdahl, headline: again.headline, grade: again.grade });
  const forged = validateSubmission(data, 'forged');
  assert.ok(forged.problems.some((p) => new RegExp(`^cases\\[${k}\\] \\(learner\\) has 18 samples but the plan takes 9 \\(3 rounds of 3\\)`).test(p)), forged.problems.join('\n'));

  const planless = JSON.parse(readFileSync(file, 'utf8'));
  delete planless.sampling;
  assert.ok(validateSubmission(planless, 'no plan').problems.includes('sampling: a graded run must record its sampling plan (this file has none); re-run with --grade'));
});
