/**
 * Implausible is flagged, never graded (issue 25): the forged run's 11,968 % efficiency and its grade of 102 times
 * the solution are flagged, and such a grade does not pass; the committed reference runs raise no flag.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EFFICIENCY_MAX, GRADE_RATIO_MAX, plausibilityFlags, type PlausibilityInput } from '@parallel-course/core';
import { analyzeRun, gradeCases } from '@parallel-course/core';

const speedup = (workers: number, efficiency: number, basis: 'one-worker' | 'baseline' = 'one-worker') => ({
  variant: 'pool', params: { workers }, speedup: efficiency * workers, workers, efficiency, efficiencyBasis: basis,
});

test('an efficiency above the stated margin is flagged, one at or below it is not', () => {
  const input: PlausibilityInput = { cpus: { available: 2 }, grade: null, speedups: [speedup(2, 119.68), speedup(2, 0.87), speedup(1, EFFICIENCY_MAX)] };
  const flags = plausibilityFlags(input);
  assert.deepEqual(flags.map((f) => [f.kind, f.params['workers']]), [['efficiency', 2]]);
  assert.match(flags[0]!.message, /^pool \(workers=2\): efficiency 11968 % is above 150 %/);
});

test('more workers than CPUs cannot scale past the CPUs', () => {
  const flags = plausibilityFlags({ cpus: { available: 2 }, grade: null, speedups: [speedup(4, 1.0), speedup(4, 0.47), speedup(2, 1.0)] });
  assert.deepEqual(flags.map((f) => [f.kind, f.value]), [['scaling', 4]]);
  assert.match(flags[0]!.message, /4 workers on 2 CPUs/);
});

test('a grade of more than ten times the solution is flagged and does not pass', () => {
  const input = (variant: string, params: Record<string, string | number>, ms: number) => ({ variant, params, samplesMs: [ms, ms, ms], workPerSample: { amount: 1, unit: 'x' }, observations: {} });
  const spec = { cases: [{ variant: 'pool', params: {} }], target: 0.9, targetText: 't' };
  const grade = (learnerMs: number) =>
    gradeCases([input('pool', {}, learnerMs), input('pool', { impl: 'solution' }, 102.1)], [], spec, (r, l) => {
      const ratio = (r.samplesMs[0] as number) / (l.samplesMs[0] as number);
      return { ci95: [ratio * 0.9, ratio * 1.1], pairing: 'rounds' };
    });
  const forged = grade(1);
  assert.equal(forged.entries[0]!.ratio, 102.1);
  assert.equal(forged.entries[0]!.passed, false);
  assert.equal(forged.passed, false);
  assert.match(forged.entries[0]!.reason ?? '', /^implausible: 102 times the solution's speed, above the 10x/);
  assert.equal(plausibilityFlags({ cpus: { available: 2 }, speedups: [], grade: forged })[0]?.kind, 'grade');
  const honest = grade(102.1 / 2);
  assert.equal(honest.passed, true, 'twice the solution is a plausible improvement');
  assert.ok(GRADE_RATIO_MAX === 10);
});

test('a graded case with an implausible efficiency fails its grade, whatever its ratio to the solution (issue 42)', () => {
  // A pool of 2 workers 10x faster than the one-thread baseline: an efficiency of 500 % (the attack gave 404 %,
  // graded PASS, by timing a cached input). Its solution's copy is as fast, so the ratio alone would pass.
  const input = (variant: string, params: Record<string, string | number>, ms: number, workers?: number) => ({
    variant, params, ...(workers !== undefined ? { workers } : {}), samplesMs: [ms, ms * 1.01, ms * 0.99, ms, ms * 1.02, ms * 0.98],
    sampleRounds: [0, 0, 1, 1, 2, 2], workPerSample: { amount: 1, unit: 'x' }, observations: {},
  });
  const run = (poolMs: number) =>
    analyzeRun([input('loop', {}, 100), input('pool', { workers: 2 }, poolMs, 2), input('pool', { workers: 2, impl: 'solution' }, poolMs, 2)], {
      baseline: 'loop', headline: { variant: 'pool', params: { workers: 2 } }, seed: 1, resamples: 200, availableParallelism: 2,
      grading: { cases: [{ variant: 'pool', params: { workers: 2 } }], target: 0.9, targetText: 't' },
    });
  const cached = run(10);
  assert.equal(cached.grade?.passed, false);
  assert.match(cached.grade?.entries[0]?.reason ?? '', /^implausible: pool \(workers=2\): efficiency 500 % is above 150 %.*not graded as a pass/);
  assert.equal(run(60).grade?.passed, true, 'an efficiency of 83 % is graded by its ratio');
});

test("no committed reference run raises a flag", () => {
  const reference = fileURLToPath(new URL('../../../reference/', import.meta.url));
  let files = 0;
  for (const lab of readdirSync(reference, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const run of readdirSync(path.join(reference, lab.name), { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const results = JSON.parse(readFileSync(path.join(reference, lab.name, run.name, 'results.json'), 'utf8'));
      assert.deepEqual(plausibilityFlags(results).map((f) => f.message), [], `${lab.name}/${run.name}`);
      files++;
    }
  }
  assert.ok(files >= 4, `${files} reference runs`);
});
