/** The statistics stage as assembled for results.json, on samples whose answers are known by hand. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnalysisInput, analyze, findBaseline, findOneWorkerCase, pairingOf, type Params, type Results, summarizeObservation, workerParam } from '@parallel-course/core';
import { amdahlFitFor, speedupsWithoutWorkers, workerSeries } from '../src/report/select.ts';

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
  assert.deepEqual(two.efficiencyCi95, [0.8, 0.8]);
  assert.equal(two.efficiencyBasis, 'one-worker');
  assert.equal(two.workers, 2, 'the declared worker count is carried into the entry');
  // No round indices given: every interval resamples the two cases independently.
  assert.equal(two.pairing, 'independent');
  assert.equal(two.efficiencyPairing, 'independent');
  // The 1-worker case against itself: efficiency exactly 1, no resampling.
  const one = analysis.speedups.find((s) => s.params.workers === 1)!;
  assert.deepEqual([one.efficiency, one.efficiencyCi95, one.efficiencyBasis], [1, [1, 1], 'one-worker']);
  assert.ok(Math.abs(two.karpFlatt! - 0.25) < 1e-12);
  assert.equal(two.baselineMedianMs, 120);
  assert.equal(two.oversubscribed, false);
  assert.equal(analysis.speedups.find((s) => s.params.workers === 4)!.oversubscribed, true);
  assert.equal(analysis.headline, two);
  // No Amdahl fit (issue 43): up to P = 2 the sweep has one free point (2 workers; 4 > 2 CPUs is left out and the
  // 1-worker point carries no information), and a one-parameter fit through one point tests nothing: its f would be
  // the Karp-Flatt value 0.25 with rmse 0.
  assert.deepEqual(analysis.amdahl, []);
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
  // Its interval is the speedup's over 2 workers (same resamples, no second bootstrap).
  assert.deepEqual(best.efficiencyCi95, [best.ci95[0] / 2, best.ci95[1] / 2]);
  // Reporters: a chunk sweep at a fixed 2 workers is no worker sweep; both cases go to the per-case chart.
  const results = { speedups: analysis.speedups, amdahl: analysis.amdahl } as unknown as Results;
  assert.deepEqual(workerSeries(results), []);
  assert.equal(speedupsWithoutWorkers(results).length, 2);
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

test('workerParam: the param that carries the declared worker count, whatever it is called', () => {
  const cases: { variant: string; params: Params; workers?: number }[] = [
    { variant: 'native-threads', params: { size: 64, threads: 1 }, workers: 1 },
    { variant: 'native-threads', params: { size: 64, threads: 2 }, workers: 2 },
    { variant: 'native-threads', params: { size: 2, threads: 2 }, workers: 2 },
    { variant: 'pool', params: { chunk: 64 }, workers: 2 },
    { variant: 'pool', params: { chunk: 128 }, workers: 2 },
    { variant: 'ts', params: { size: 64 } },
  ];
  // Reference: size = 2 = threads in one case only, so `size` is not the worker param; `threads` is, in every case.
  assert.equal(workerParam(cases, 'native-threads'), 'threads');
  assert.equal(workerParam(cases, 'pool'), null);
  assert.equal(workerParam(cases, 'ts'), null);
});

test('a thread sweep named `threads` gets efficiency over 1 thread and an Amdahl fit per size', () => {
  // Reference (on 4 CPUs, so 2 and 4 threads are two free points): size 256: 1 thread 10 ms, 2 threads 5.5 ms ->
  // 1.8182, efficiency 0.9091, 4 threads 3.25 ms -> 3.0769 = 1 / (0.1 + 0.9 / 4): f = 0.1 exactly. Size 64: 1 thread
  // 1 ms, 2 threads 0.8 ms -> 1.25 (y = 0.3, x = 0.5), 4 threads 0.7 ms (y = 0.45, x = 0.75):
  // f = (0.15 + 0.3375) / (0.25 + 0.5625) = 0.6.
  const input = (variant: string, params: Params, ms: number, workers?: number): AnalysisInput => ({
    variant,
    params,
    ...(workers === undefined ? {} : { workers }),
    samplesMs: [ms, ms, ms, ms],
    workPerSample: work,
    observations: {},
  });
  const analysis = analyze(
    [
      input('ts', { size: 256 }, 40),
      input('ts', { size: 64 }, 2),
      input('native-threads', { size: 256, threads: 1 }, 10, 1),
      input('native-threads', { size: 256, threads: 2 }, 5.5, 2),
      input('native-threads', { size: 64, threads: 1 }, 1, 1),
      input('native-threads', { size: 64, threads: 2 }, 0.8, 2),
      input('native-threads', { size: 256, threads: 4 }, 3.25, 4),
      input('native-threads', { size: 64, threads: 4 }, 0.7, 4),
    ],
    { ...options, availableParallelism: 4, baseline: 'ts', headline: { variant: 'native-threads', params: { size: 256, threads: 2 } } },
  );
  const two = analysis.headline!;
  assert.equal(two.workers, 2);
  assert.equal(two.efficiencyBasis, 'one-worker');
  assert.ok(Math.abs(two.efficiency! - 10 / 11) < 1e-12);
  assert.deepEqual(
    analysis.amdahl.map((a) => [a.variant, a.param, a.params, Math.round(a.serialFraction * 1e9) / 1e9]),
    [
      ['native-threads', 'threads', { size: 256 }, 0.1],
      ['native-threads', 'threads', { size: 64 }, 0.6],
    ],
  );
  // What the reporters draw from it: one speedup-vs-workers series per size, each with its own fit; the ts rung is not
  // part of a sweep.
  const results = { speedups: analysis.speedups, amdahl: analysis.amdahl } as unknown as Results;
  assert.deepEqual(
    workerSeries(results).map((s) => [s.label, s.entries.map((e) => e.workers), amdahlFitFor(results, s.entries[0]!)?.params]),
    [
      ['native-threads (size=256)', [1, 2, 4], { size: 256 }],
      ['native-threads (size=64)', [1, 2, 4], { size: 64 }],
    ],
  );
  assert.deepEqual(speedupsWithoutWorkers(results), []);
});

test('speedups are paired by round within a group, and independent across groups or without rounds', () => {
  const rounds = [0, 0, 1, 1, 2, 2];
  const base: AnalysisInput = { variant: 'serial', params: {}, samplesMs: [1, 1, 1, 1, 1, 1], sampleRounds: rounds, workPerSample: work, observations: {} };
  const same: AnalysisInput = { ...base, variant: 'pool' };
  assert.equal(pairingOf(base, same), 'rounds');
  assert.equal(pairingOf(base, { ...same, measureGroup: 'threads' }), 'independent', 'round r of another group is another moment');
  assert.equal(pairingOf(base, { ...same, sampleRounds: [0, 0, 1, 1, 3, 3] }), 'independent', 'different rounds');
  assert.equal(pairingOf(base, { ...same, sampleRounds: undefined }), 'independent');
  assert.equal(pairingOf({ ...base, sampleRounds: [0, 0, 0, 0, 0, 0] }, { ...same, sampleRounds: [0, 0, 0, 0, 0, 0] }), 'independent', 'one round: nothing to pair');
});

test('drift between rounds: the paired interval stays narrow where the independent one cannot', () => {
  // Each round is 1 or 1.55 times slower for both cases, as when a vCPU switches speed; the variant is twice as fast.
  // Reference: within a round the times are constant, so every paired resample gives exactly 2; the same samples
  // resampled independently (here: the variant in another measure group) mix fast and slow rounds.
  const speeds = [1, 1.55, 1, 1.55, 1.55, 1];
  const sampleRounds = speeds.flatMap((_, r) => [r, r, r]);
  const slow = speeds.flatMap((d) => [10 * d, 10 * d, 10 * d]);
  const fast = speeds.flatMap((d) => [5 * d, 5 * d, 5 * d]);
  const inputs = (group?: string): AnalysisInput[] => [
    { variant: 'serial', params: {}, samplesMs: slow, sampleRounds, workPerSample: work, observations: {} },
    { variant: 'pool', params: {}, samplesMs: fast, sampleRounds, ...(group ? { measureGroup: group } : {}), workPerSample: work, observations: {} },
  ];
  const opts = { ...options, baseline: 'serial', headline: { variant: 'pool', params: {} } };
  const paired = analyze(inputs(), opts).speedups[0]!;
  assert.deepEqual([paired.speedup, paired.pairing, paired.ci95], [2, 'rounds', [2, 2]]);
  const independent = analyze(inputs('elsewhere'), opts).speedups[0]!;
  assert.equal(independent.pairing, 'independent');
  assert.ok(independent.ci95[0] < 1.5 && independent.ci95[1] > 2.5, `[${independent.ci95}]`);
  // The case records its rounds as given, for a validator to recompute the same pairing.
  assert.deepEqual(analyze(inputs(), opts).cases[0]!.sampleRounds, sampleRounds);
});

test('the noisy flag follows the robust spread: one slow sample is not noise, two clusters are', () => {
  const analysis = analyze(
    [
      { variant: 'inline', params: {}, samplesMs: [10, 10.2, 9.9, 10.1, 10, 30], workPerSample: work, observations: {} },
      { variant: 'pool', params: {}, samplesMs: [62, 61, 63, 62, 97, 96, 98, 97], workPerSample: work, observations: {} },
    ],
    { ...options, headline: { variant: 'pool', params: {} } },
  );
  // Reference: robustCv 0.0148 (cv 0.61) and 1.4826 * 17.5 / 79.5 = 0.326 (see statistics.test.ts).
  assert.deepEqual(analysis.cases.map((c) => c.summary.noisy), [false, true]);
});
