/**
 * `npm run report -- validate`: a genuine submission passes; tampered, malformed and failed-correctness ones are
 * rejected with reasons that name the field (pinned here: the messages are what an instructor reads).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runLab } from '../src/run/run-lab.ts';
import { formatSignificant, type Results } from '@parallel-course/core';
import { diffRecomputed, validateFile, validateSubmission } from '../src/tools/validate.ts';
import { genuineRun } from './support/genuine-run.ts';
import { fileTempDirs } from './support/temp-dir.ts';

const REPORT_CLI = fileURLToPath(new URL('../src/tools/report-cli.ts', import.meta.url));
const TOY_ROOT = fileURLToPath(new URL('./fixtures/root/', import.meta.url));
let genuine: Results;
let genuineFile: string;
/** Temp folders of this file, removed at the end. */
const temps = fileTempDirs();
const tempDir = temps.make;

before(async () => {
  const run = await genuineRun();
  temps.keep(run.root);
  genuine = run.results;
  genuineFile = path.join(run.runDir, 'results.json');
});

const copy = (): Results => structuredClone(genuine);

test('a genuine submission is valid: every number recomputes from its samples', () => {
  const result = validateFile(genuineFile);
  assert.deepEqual(result.problems, []);
  assert.equal(result.valid, true);
});

test('a hand-edited speedup is caught and named with the number the samples give', () => {
  const tampered = copy();
  const i = tampered.speedups.findIndex((s) => s.variant === 'split' && s.params['workers'] === 2);
  const real = tampered.speedups[i]!.speedup;
  tampered.speedups[i]!.speedup = 2.5;
  const result = validateSubmission(tampered);
  assert.equal(result.valid, false);
  assert.equal(result.problems[0], `speedups[${i}].speedup is 2.500 but the samples give ${formatSignificant(real, 4)}`);
  // The headline is the same entry, so it is named too.
  assert.ok(result.problems.includes(`headline.speedup is 2.500 but the samples give ${formatSignificant(real, 4)}`), result.problems.join('\n'));
});

test('an edited median, interval, flag or Amdahl fit is named by its path', () => {
  const tampered = copy();
  tampered.cases[1]!.summary.median = 0.001;
  tampered.cases[2]!.summary.ci95 = [0, 99];
  tampered.cases[3]!.summary.noisy = !tampered.cases[3]!.summary.noisy;
  // The fixture sweeps split over 1 and 2 workers: one free point, so no fit (issue 43); a planted one is named.
  assert.deepEqual(genuine.amdahl, []);
  tampered.amdahl = [{ variant: 'split', param: 'workers', params: {}, serialFraction: 0.5, maxSpeedup: 2, rmse: 0, points: 2 }];
  const problems = validateSubmission(tampered).problems;
  assert.match(problems[0] ?? '', /^cases\[1\]\.summary\.median is 0\.001000 but the samples give [\d.e-]+$/);
  assert.match(problems[1] ?? '', /^cases\[2\]\.summary\.ci95\[0\] is 0 but the samples give [\d.e-]+$/);
  assert.match(problems[2] ?? '', /^cases\[2\]\.summary\.ci95\[1\] is 99 but the samples give [\d.e-]+$/);
  assert.equal(problems[3], `cases[3].summary.noisy is ${tampered.cases[3]!.summary.noisy} but the samples give ${!tampered.cases[3]!.summary.noisy}`);
  assert.equal(problems[4], 'amdahl has 1 entries but the samples give 0');
  assert.equal(problems.length, 5);
});

test('a removed speedup entry is named', () => {
  const tampered = copy();
  tampered.speedups.pop();
  assert.ok(validateSubmission(tampered).problems.includes(`speedups has ${genuine.speedups.length - 1} entries but the samples give ${genuine.speedups.length}`));
});

test('malformed files are rejected with the schema problem', () => {
  assert.deepEqual(validateSubmission('{"schemaVersion": 1', 'x.json').problems, [
    "schema: not JSON: Expected ',' or '}' after property value in JSON at position 19 (line 1 column 20)",
  ]);
  const noSeed = copy() as Partial<Results>;
  delete noSeed.seed;
  assert.deepEqual(validateSubmission(noSeed).problems, ['schema: seed: Invalid input: expected number, received undefined']);
  assert.deepEqual(validateSubmission({ ...copy(), schemaVersion: 9 }).problems, [
    'schema: schemaVersion is 9, this tool reads version 5: re-run the lab with this version of the course, or update the course to read it',
  ]);
  const negative = copy();
  negative.cases[0]!.samplesMs[0] = -1;
  assert.deepEqual(validateSubmission(negative).problems, ['schema: cases.0.samplesMs.0: must be >= 0']);
});

test('a run whose check failed is rejected, naming each failed case and why', async () => {
  const outDir = tempDir('harness-failed-');
  const outcome = await runLab({ lab: 'toy', impl: 'solution', quick: true, outDir, rootDir: TOY_ROOT, silent: true, sampling: { warmupSamples: 1, rounds: 2, samplesPerRound: 3 } });
  const problems = validateSubmission(outcome.results).problems;
  assert.match(problems[0] ?? '', /^correctness: wrong did not pass its check \(wrong output on check input #0 at \[0\]: expected \d+, got \d+\)$/);
  assert.equal(problems[1], 'correctness: todo did not pass its check (not implemented: the toy in exercises/toy/impl.ts)');
  assert.equal(problems.length, 2);
});

test('diffRecomputed: missing and extra values are named', () => {
  const problems: string[] = [];
  diffRecomputed('x', { a: 1, b: 2 }, { a: 1, c: 3 }, problems);
  assert.deepEqual(problems, ['x.c is missing but the samples give 3', 'x.b is 2 but the samples give no value']);
});

test('npm run report -- validate: exit 0 for a genuine file, 1 with the reasons for a tampered one', () => {
  const dir = tempDir('harness-validate-cli-');
  const tampered = copy();
  tampered.speedups[0]!.speedup = 3;
  const bad = path.join(dir, 'tampered.json');
  writeFileSync(bad, JSON.stringify(tampered));
  const ok = spawnSync(process.execPath, [REPORT_CLI, 'validate', genuineFile], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^valid {4}.*results\.json: schema, correctness and every recomputed number agree$/m);
  const rejected = spawnSync(process.execPath, [REPORT_CLI, 'validate', bad], { encoding: 'utf8' });
  assert.equal(rejected.status, 1);
  assert.match(rejected.stdout, /^INVALID {2}.*tampered\.json:\n {2}- speedups\[0\]\.speedup is 3 but the samples give [\d.]+$/m);
  const none = spawnSync(process.execPath, [REPORT_CLI, 'validate'], { encoding: 'utf8' });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^error: validate needs a file: npm run report -- validate path\/to\/results\.json$/m);
});

test('validateFile: a folder or a missing file is refused with its reason, never read', () => {
  const dir = tempDir('harness-validate-refused-');
  const folder = validateFile(dir);
  assert.equal(folder.valid, false);
  assert.equal(folder.refused?.code, 'FILE_NOT_REGULAR');
  assert.deepEqual(folder.problems, [
    `file: ${dir} is a folder, not a regular file, so it was not read: give the results.json that "npm run lab" wrote into results/<lab>/<time>/ (a plain file)`,
  ]);
  const missing = validateFile(path.join(dir, 'nope.json'));
  assert.equal(missing.refused?.code, 'FILE_NOT_FOUND');
  assert.equal(missing.problems[0], `file: ${dir}/nope.json does not exist: give the results.json that "npm run lab" wrote into results/<lab>/<time>/ (a plain file)`);
});
