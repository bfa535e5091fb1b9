/** The statistics stage as assembled for results.json, on samples whose answers are known by hand. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze, findBaseline, findOneWorkerCase, summarizeObservation, type AnalysisInput } from '../src/analysis.ts';
import type { Params } from '../src/results-schema.ts';

const options = { baseline: 'inline', headline: { variant: 'pool', params: { workers: 2 } }, seed: 1, resamples: 200, availableParallelism: 2 };
const work = { amount: 12, unit: 'requests' };

test('findBaseline: the baseline case sharing the most params', () => {
  const cases: { variant: string; params: Params }[] = [
    { variant: 'ts', params: { size: 1 } },
    { variant: 'ts', params: { size: 2 } },
    { variant: 'native', params: { size: 2, threads: 4 } },
  ];
  assert.equal(findBaseline(cases, 'ts', cases[2]!), cases[1]);
  assert.equal(findBaseline(cases, 'ts', { variant: 'native', params: { size: 3 } }), null);
  assert.equal(findBaseline([{ variant: 'inline', params: {} }], 'inline', { variant: 'pool', params: { workers: 3 } })?.variant, 'inline');
});

test('speedup, efficiency, Karp-Flatt and oversubscription from constant samples', () => {
  // Reference: baseline median 120 ms; pool at 2 workers 75 ms -> speedup 1.6, efficiency 0.8,
  // Karp-Flatt (1/1.6 - 1/2)/(1 - 1/2) = 0.25. Constant samples make every bootstrap interval a point.
  const analysis = analyze(
    [
      { variant: 'inline', params: {}, samplesMs: [120, 120, 120], workPerSample: work, observations: {} },
      { variant: 'pool', params: { workers: 1 }, workers: 1, samplesMs: [120, 120, 120], workPerSample: work, observations: {} },
      { variant: 'pool', params: { workers: 2 }, workers: 2, samplesMs: [75, 75, 75], workPerSample: work, observations: {} },
      { variant: 'pool', params: { workers: 4 }, workers: 4, samplesMs: [80, 80, 80], workPerSample: work, observations: {} },
    ],
    options,
  );
  const two = analysis.speedups.find((s) => s.params.workers === 2)!;
  assert.equal(two.speedup, 1.6);
  assert.deepEqual(two.ci95, [1.6, 1.6]);
  // Efficiency is over the pool's own 1-worker case (120 ms here too): 1.6 / 2.
  assert.equal(two.efficiency, 0.8);
  assert.equal(two.efficiencyBasis, 'one-worker');
  assert.ok(Math.abs(two.karpFlatt! - 0.25) < 1e-12);
  assert.equal(two.baselineMedianMs, 120);
  assert.equal(two.oversubscribed, false);
  assert.equal(analysis.speedups.find((s) => s.params.workers === 4)!.oversubscribed, true);
  assert.equal(analysis.headline, two);
  // The Amdahl fit uses the 1- and 2-worker points (4 > 2 CPUs); the 1-worker point carries no weight in the
  // linearised fit, so f = 0.25, which solves 1/(f + (1-f)/2) = 1.6.
  assert.equal(analysis.amdahl.length, 1);
  assert.deepEqual(analysis.amdahl[0]!.params, {});
  assert.ok(Math.abs(analysis.amdahl[0]!.serialFraction - 0.25) < 1e-12);
  assert.equal(analysis.cases.find((c) => c.variant === 'inline')!.summary.median, 120);
});

test('the same samples and seed give the same intervals (a validator can recompute them)', () => {
  const inputs: AnalysisInput[] = [
    { variant: 'inline', params: {}, samplesMs: [100, 104, 98, 101, 120], workPerSample: work, observations: {} },
    { variant: 'pool', params: { workers: 2 }, workers: 2, samplesMs: [55, 52, 60, 51, 53], workPerSample: work, observations: {} },
  ];
  assert.deepEqual(analyze(inputs, options), analyze(inputs, options));
  const s = analyze(inputs, options).speedups[0]!;
  assert.ok(s.ci95[0] <= s.speedup && s.speedup <= s.ci95[1]);
});

test('observation summaries: p50, p99 and max; nulls when empty', () => {
  // Reference: R-7 p99 of [1,2,3,4] = 3 + 0.97*(4-3) = 3.97.
  const o = summarizeObservation({ unit: 'ms', description: 'd', samples: [4, 1, 3, 2] });
  assert.equal(o.p50, 2.5);
  assert.ok(Math.abs(o.p99! - 3.97) < 1e-12);
  assert.equal(o.max, 4);
  assert.deepEqual(
    [summarizeObservation({ unit: 'ms', description: 'd', samples: [] }).p50, summarizeObservation({ unit: 'ms', description: 'd', samples: [] }).max],
    [null, null],
  );
});

test('no Amdahl fit where the worker count does not vary (a chunk-size sweep at 2 workers)', () => {
  const analysis = analyze(
    [
      { variant: 'serial', params: {}, samplesMs: [100, 100], workPerSample: work, observations: {} },
      { variant: 'pool', params: { chunk: 1 }, workers: 2, samplesMs: [80, 80], workPerSample: work, observations: {} },
      { variant: 'pool', params: { chunk: 2 }, workers: 2, samplesMs: [60, 60], workPerSample: work, observations: {} },
    ],
    { ...options, baseline: 'serial', headline: { variant: 'pool', params: { chunk: 2 } } },
  );
  assert.deepEqual(analysis.amdahl, []);
  assert.equal(analysis.speedups.length, 2);
  // No 1-worker pool case: efficiency falls back to the baseline. Reference: 100 / 60 / 2 = 0.8333.
  const best = analysis.speedups.find((s) => s.params.chunk === 2)!;
  assert.equal(best.efficiencyBasis, 'baseline');
  assert.ok(Math.abs(best.efficiency! - 100 / 60 / 2) < 1e-12);
});

test('findOneWorkerCase: the same variant, differing only in the worker-count param', () => {
  const cases = [
    { variant: 'threads', params: { size: 256, threads: 1 }, workers: 1 },
    { variant: 'threads', params: { size: 64, threads: 1 }, workers: 1 },
    { variant: 'threads', params: { size: 256, threads: 2 }, workers: 2 },
    { variant: 'other', params: { size: 256, threads: 1 }, workers: 1 },
  ];
  assert.equal(findOneWorkerCase(cases, cases[2]!), cases[0]);
  assert.equal(findOneWorkerCase(cases, cases[0]!), cases[0]);
  assert.equal(findOneWorkerCase(cases, { variant: 'threads', params: { size: 128, threads: 2 }, workers: 2 }), null);
});
