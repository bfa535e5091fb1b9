/**
 * The gate and the run as a whole, on the toy lab in fixtures/root: a wrong variant is rejected by the check and
 * never timed, a not-implemented one is reported as such, and a run writes valid results and both reports.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runLabAnalysis, writeAnalysis } from '../src/analyse/lab-analysis.ts';
import { runLab } from '../src/run/run-lab.ts';
import { PROBE_SAMPLES } from '../src/measure/sample-limits.ts';
import { parseResultsJson } from '@parallel-course/core';
import { tempRoot } from './support/temp-root.ts';

const rootDir = fileURLToPath(new URL('./fixtures/root/', import.meta.url));
const tiny = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };

/** Counts of calls per variant, from the lines the toy lab appends to COURSE_TEST_TOY_CALLS_FILE in the harness's child process (a COURSE_ variable: the sandbox passes those on). */
function readCalls(file: string): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const name of readFileSync(file, 'utf8').split('\n').filter(Boolean)) calls[name] = (calls[name] ?? 0) + 1;
  return calls;
}

test('a wrong variant fails the check, is never timed, and the run exits 1', async (t) => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'harness-gate-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  // In a copy of the root: the lab process may write only the folder the toy lab declares (`sandbox.writes`).
  const root = tempRoot('root', 'harness-gate-root-', t);
  const callsFile = path.join(root, 'labs', 'toy', 'calls', 'calls.txt');
  process.env.COURSE_TEST_TOY_CALLS_FILE = callsFile;
  let outcome;
  try {
    outcome = await runLab({ lab: 'toy', impl: 'solution', quick: true, outDir, sampling: tiny, silent: true, rootDir: root });
  } finally {
    delete process.env.COURSE_TEST_TOY_CALLS_FILE;
  }
  const calls = readCalls(callsFile);

  assert.equal(outcome.exitCode, 1);
  const wrong = outcome.correctness.find((e) => e.variant === 'wrong');
  assert.equal(wrong?.passed, false);
  assert.match(wrong?.reason ?? '', /wrong output on check input #0 at \[0\]: expected \d+, got \d+/);
  assert.equal(wrong?.maxAbsError, 1);
  // Called on each check input (2 + the measured one: the judge compares the outputs, so the runner, which does not
  // know it is wrong, runs them all) and never again: not in warm-up, not in measurement.
  assert.equal(calls.wrong, 3);
  const todo = outcome.correctness.find((e) => e.variant === 'todo');
  assert.equal(todo?.notImplemented, true);
  assert.equal(todo?.reason, 'not implemented: the toy in exercises/toy/impl.ts');

  // The passing cases were measured: 2 check inputs + 1 measure input, 1 warm-up, 2 rounds x 3 samples of its calls
  // per sample, and, where the warm-up asked for several calls, PROBE_SAMPLES probes of that many (judge-sampler.ts).
  const results = outcome.results!;
  const perSample = results.cases.find((c) => c.variant === 'good')?.callsPerSample ?? 0;
  assert.ok(perSample >= 1);
  const probes = (calls.good ?? 0) - (3 + 1 + 6 * perSample);
  assert.ok(probes === 0 || (probes > 0 && probes % PROBE_SAMPLES === 0), `${calls.good} calls, ${perSample} a sample`);
  assert.deepEqual(results.cases.map((c) => c.variant).sort(), ['good', 'loop']);
  assert.ok(results.speedups.every((s) => s.variant !== 'wrong' && s.variant !== 'todo'));
  assert.equal(results.headline?.variant, 'good');
  assert.ok(results.harnessOverheadMs >= 0);
});

test('a run writes a valid results.json and both reports into a new folder per run', async (t) => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'harness-run-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  const first = await runLab({ lab: 'toy', impl: 'solution', quick: true, outDir, sampling: tiny, silent: true, rootDir });
  const second = await runLab({ lab: 'toy', impl: 'solution', quick: true, outDir, sampling: tiny, silent: true, rootDir });
  assert.notEqual(first.runDir, second.runDir);
  assert.equal(readdirSync(path.join(outDir, 'toy')).length, 2);
  for (const runDir of [first.runDir!, second.runDir!]) {
    const text = readFileSync(path.join(runDir, 'results.json'), 'utf8');
    const results = parseResultsJson(text, 'results.json');
    assert.equal(results.lab, 'toy');
    assert.equal(results.cases.find((c) => c.variant === 'loop')?.samplesMs.length, 6);
    assert.ok(existsSync(path.join(runDir, 'report.html')));
    assert.ok(existsSync(path.join(runDir, 'report.md')));
    // The lab's own analysis, run by the harness at the end of every run, in a folder of its own.
    assert.equal(readFileSync(path.join(runDir, 'analysis', 'analysis.md'), 'utf8'), '# Toy analysis\n\nMeasured: good, loop.\n');
    assert.equal(readFileSync(path.join(runDir, 'analysis', 'cases.txt'), 'utf8'), 'good, loop\n');
  }
});

test('the shipped exercise is reported as not implemented, nothing is measured and nothing is written', async (t) => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'harness-todo-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  const outcome = await runLab({ lab: 'toy', impl: 'exercise', quick: true, outDir, sampling: tiny, silent: true, rootDir });
  assert.equal(outcome.exitCode, 1);
  assert.equal(outcome.results, null);
  assert.equal(outcome.runDir, null);
  const good = outcome.correctness.find((e) => e.variant === 'good');
  assert.equal(good?.notImplemented, true);
  assert.equal(good?.reason, 'not implemented: sumSquares in exercises/toy/impl.ts');
  assert.equal(existsSync(path.join(outDir, 'toy')), false);
});

test('analysing a run again writes a new folder and never replaces a file; a lab may not write outside it', async (t) => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'harness-analyse-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  const run = await runLab({ lab: 'toy', impl: 'solution', quick: true, outDir, sampling: tiny, silent: true, rootDir });
  const again = await runLabAnalysis(run.results!, rootDir);
  const written = writeAnalysis(run.runDir!, again!);
  assert.equal(path.basename(written.dir), 'analysis-2');
  assert.deepEqual(readdirSync(written.dir).sort(), ['analysis.md', 'cases.txt', 'values.json']);
  assert.throws(() => writeAnalysis(run.runDir!, { text: 'x', files: [{ name: '../results.json', contents: '{}' }] }), /may not write '\.\.\/results\.json'/);
  assert.ok(!existsSync(path.join(run.runDir!, 'analysis-3')), 'a refused analysis creates no folder');
});
