/** The values and the ladder table episode 07 quotes (analysis-values.ts), on hand-computed cases. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analysisValuesSchema } from '@parallel-course/core';
import type { CaseResult, Results } from '@parallel-course/core';
import { nativeKernelAnalysis } from '../src/analysis.ts';
import { COPY_OBSERVATION, keyPart, nativeKernelValues, speedRatio } from '../src/analysis-values.ts';
import { PEAK_OBSERVATIONS } from '../src/peaks.ts';
import { serialPathLines } from '../src/analysis-report.ts';

/** A case whose samples are `samples` (ms), in rounds 0, 0, 1, 1, ...; its median and interval are given. */
function fakeCase(variant: string, size: number, samples: number[], median: number, observations: CaseResult['observations'] = {}): CaseResult {
  return {
    variant,
    params: { size },
    samplesMs: samples,
    sampleRounds: samples.map((_, i) => Math.floor(i / 2)),
    workPerSample: { amount: 2 * size ** 3, unit: 'flop' },
    sample: { item: 'call', itemsPerSample: 1 },
    summary: {
      n: samples.length, median, ci95: [Math.min(...samples), Math.max(...samples)], mean: median, sd: 0, mad: 0, iqr: 0, min: Math.min(...samples), max: Math.max(...samples), cv: 0, robustCv: 0, noisy: false,
      outliers: { lowSevere: 0, lowMild: 0, highMild: 0, highSevere: 0 },
    },
    observations,
    oversubscribed: false,
  };
}

const peak = (p50: number) => ({ unit: 'Gflop/s', description: 'probe', n: 2, p50, p99: p50, max: p50 });
const observations = {
  [PEAK_OBSERVATIONS.flops1]: peak(100),
  [PEAK_OBSERVATIONS.flopsAll]: peak(180),
  [PEAK_OBSERVATIONS.bandwidth1]: peak(20),
  [PEAK_OBSERVATIONS.bandwidthAll]: peak(30),
} as unknown as CaseResult['observations'];

// n = 1024: 2 * 1024^3 = 2.147 483 648 Gflop per product. march 100 ms -> 21.47 GFLOP/s; blocked 40 ms -> 53.69;
// blas 32 ms -> 67.11. Blocked over march: 100 / 40 = 2.5; over blas: 32 / 40 = 0.8. Peak 100 -> 53.69%.
const cases = [
  fakeCase('native-march', 256, [2, 2, 2, 2], 2, observations),
  fakeCase('native-march', 1024, [100, 100, 100, 100], 100),
  fakeCase('native-blocked', 1024, [40, 40, 40, 40], 40),
  fakeCase('native-blas', 1024, [32, 32, 32, 32], 32),
];
const results = { seed: 7, bootstrapResamples: 10_000, cases, speedups: [], correctness: [], cpus: { p: 2 } } as unknown as Results;

test('keyPart: variant names as camelCase key parts', () => {
  assert.deepEqual(['native-march', 'ts-naive', 'native-O3', 'native-blocked-threads'].map(keyPart), ['NativeMarch', 'TsNaive', 'NativeO3', 'NativeBlockedThreads']);
});

test('the blocked kernel against -march=native and the BLAS: ratios of medians, paired by round, with intervals', () => {
  const march = speedRatio(results, 'native-blocked', 'native-march', 1024)!;
  assert.equal(march.value, 2.5);
  assert.equal(march.paired, true);
  // Constant samples: every resample gives the same ratio.
  assert.deepEqual(march.ci95, [2.5, 2.5]);
  assert.equal(speedRatio(results, 'native-blocked', 'native-blas', 1024)!.value, 0.8);
  assert.equal(speedRatio(results, 'native-blocked', 'native-blas', 512), null, 'no case at 512: no ratio');
});

test('values: GFLOP/s and % of the one-core peak per rung and size, the ratios, the peaks; the ladder table; valid against the schema', () => {
  const { values, tables } = nativeKernelValues(results, nativeKernelAnalysis(results));
  assert.equal(values.peakGflops1!.value, 100);
  assert.equal(values.gflopsNativeMarch1024!.value, 2 * 1024 ** 3 / 100e6);
  assert.equal(values.gflopsNativeBlocked1024!.value, 2 * 1024 ** 3 / 40e6);
  assert.ok(Math.abs(values.peakFractionNativeBlocked1024!.value - 53.687) < 1e-3);
  assert.equal(values.peakFractionNativeBlocked1024!.unit, '%');
  assert.deepEqual([values.blockedOverMarch1024!.value, values.blockedOverMarch1024!.unit], [2.5, 'x']);
  assert.equal(values.blockedOverBlas1024!.value, 0.8);
  assert.match(values.blockedOverMarch1024!.what, /paired by round/);
  const ladder = tables.ladder!;
  assert.deepEqual(ladder.columns, ['rung', 'n = 256: GFLOP/s', 'n = 256: % of peak', 'n = 1024: GFLOP/s', 'n = 1024: % of peak']);
  assert.deepEqual(ladder.rows.map((r) => r[0]), ['native-march', 'native-blocked', 'native-blas']);
  assert.deepEqual(ladder.rows[1]!.slice(1, 3), ['not measured', 'not measured']);
  analysisValuesSchema.parse({ schemaVersion: 1, lab: 'native-kernel', startedAt: '2026-12-03T15:00:00.000Z', values, tables });
});

test('the peaks are the best probe sample, not the median: interference only ever lowers a probe', async () => {
  const { peaksFrom } = await import('../src/analysis.ts');
  // A probe that read 60, 100 and 61 Gflop/s (two samples slowed by another process): the machine's peak is 100.
  const slowed = (max: number) => ({ unit: 'Gflop/s', description: 'probe', samples: [60, max, 61], p50: 61, p99: max, max });
  const c = fakeCase('native-march', 256, [2, 2], 2, {
    [PEAK_OBSERVATIONS.flops1]: slowed(100),
    [PEAK_OBSERVATIONS.flopsAll]: slowed(180),
    [PEAK_OBSERVATIONS.bandwidth1]: slowed(20),
    [PEAK_OBSERVATIONS.bandwidthAll]: slowed(30),
  } as unknown as CaseResult['observations']);
  assert.deepEqual(peaksFrom({ cases: [c] } as unknown as Results), { gflops1: 100, gbps1: 20, gflopsAll: 180, gbpsAll: 30 });
});

test('a rung measured above its roof is named in a warning: the roof read low, not the rung beat the hardware', async () => {
  const { aboveRoof, aboveRoofWarning } = await import('../src/analysis-report.ts');
  // 90.0 Gflop/s against an all-threads roof of 60.3 is 149%; 59.6 (98.9%) and 1.04 are within the 5% allowed.
  const above = aboveRoof([
    { variant: 'native-blas-threads', threads: 2, size: 512, fractionOfPeak: 90.0 / 60.3 },
    { variant: 'native-blocked-threads', threads: 2, size: 512, fractionOfPeak: 0.989 },
    { variant: 'native-blas', threads: null, size: 1024, fractionOfPeak: 1.04 },
  ]);
  assert.deepEqual(above, ['native-blas-threads x2 at n = 512 (149%)']);
  assert.match(aboveRoofWarning(above), /^Warning: measured above its roof: native-blas-threads x2 at n = 512 \(149%\)\. .*lower bounds/);
});

test('the threads efficiency over the fastest one-thread form of the same product (issue 43)', () => {
  // Reference: n = 512: native-march 15.2 ms (synchronous), native-threads on 1 thread 23.1 ms, on 2 threads 12.5 ms.
  // Over its own 1-thread case: 23.1 / 12.5 / 2 = 0.924; over the fastest one-thread form (native-march):
  // 15.2 / 12.5 / 2 = 0.608.
  const threadCase = (threads: number, ms: number): CaseResult => ({ ...fakeCase('native-threads', 512, [ms, ms, ms, ms], ms), params: { size: 512, threads }, workers: threads });
  const withThreads = {
    ...results,
    cases: [fakeCase('native-march', 512, [15.2, 15.2, 15.2, 15.2], 15.2), threadCase(1, 23.1), threadCase(2, 12.5)],
    speedups: [
      { variant: 'native-threads', params: { size: 512, threads: 2 }, workers: 2, efficiency: 23.1 / 12.5 / 2, efficiencyCi95: [0.9, 0.95], efficiencyBasis: 'one-worker' },
    ],
  } as unknown as Results;
  const { values } = nativeKernelValues(withThreads, nativeKernelAnalysis(withThreads));
  assert.ok(Math.abs(values.efficiencyNativeThreads512At2!.value - 0.924) < 1e-12);
  const fastest = values.efficiencyOverFastestNativeThreads512At2!;
  assert.ok(Math.abs(fastest.value - 0.608) < 1e-12);
  assert.deepEqual(fastest.ci95!.map((x) => Math.round(x * 1e9) / 1e9), [0.608, 0.608]); // constant samples
  assert.match(fastest.what, /over the fastest one-thread form of the same product, native-march \(one synchronous call\)/);
});

test('the blocked threads rung: efficiency over the plain native-blocked call, and its 1-thread case over that call (issue 47)', () => {
  // Reference: n = 512: native-blocked 4.0 ms (synchronous), native-blocked-threads on 1 thread 4.6 ms, on 2 threads
  // 2.5 ms. Over its own 1-thread case: 4.6 / 2.5 / 2 = 0.92; over the fastest one-thread form (native-blocked):
  // 4.0 / 2.5 / 2 = 0.8; the 1-thread case over the plain call: 4.6 / 4.0 = 1.15.
  // The copies, observed on the 1-thread case: 0.5 ms, 100 x 0.5 / 4.0 = 12.5% of the plain call.
  const copies = { [COPY_OBSERVATION]: { unit: 'ms', description: 'copies', samples: [0.4, 0.5, 0.6], p50: 0.5, p99: 0.6, max: 0.6 } } as unknown as CaseResult['observations'];
  const threadCase = (threads: number, ms: number): CaseResult => ({ ...fakeCase('native-blocked-threads', 512, [ms, ms, ms, ms], ms, threads === 1 ? copies : {}), params: { size: 512, threads }, workers: threads });
  const withThreads = {
    ...results,
    cases: [fakeCase('native-blocked', 512, [4, 4, 4, 4], 4), threadCase(1, 4.6), threadCase(2, 2.5)],
    speedups: [
      { variant: 'native-blocked-threads', params: { size: 512, threads: 2 }, workers: 2, efficiency: 4.6 / 2.5 / 2, efficiencyCi95: [0.9, 0.95], efficiencyBasis: 'one-worker' },
    ],
  } as unknown as Results;
  const { values } = nativeKernelValues(withThreads, nativeKernelAnalysis(withThreads));
  assert.ok(Math.abs(values.efficiencyNativeBlockedThreads512At2!.value - 0.92) < 1e-12);
  const fastest = values.efficiencyOverFastestNativeBlockedThreads512At2!;
  assert.ok(Math.abs(fastest.value - 0.8) < 1e-12);
  assert.match(fastest.what, /native-blocked \(one synchronous call\)/);
  const oneThread = values.oneThreadOverSyncNativeBlockedThreads512!;
  assert.ok(Math.abs(oneThread.value - 1.15) < 1e-12);
  assert.deepEqual([oneThread.unit, oneThread.ci95!.map((x) => Math.round(x * 1e9) / 1e9)], ['x', [1.15, 1.15]]); // constant samples
  assert.equal(values.oneThreadOverSyncNativeThreads512, undefined, 'no native-threads cases: no value');
  assert.deepEqual([values.copyMsNativeBlockedThreads512!.value, values.copyMsNativeBlockedThreads512!.unit], [0.5, 'ms']);
  assert.deepEqual([values.copyShareNativeBlockedThreads512!.value, values.copyShareNativeBlockedThreads512!.unit], [12.5, '%']);
  // analysis.md says it in one line under the threads' efficiencies.
  assert.deepEqual(serialPathLines(values), [
    '- native-blocked-threads, n = 512, 1 thread: 1.15x [1.15, 1.15] the time of native-blocked (one synchronous call): the call path\'s serial work (copies, the hop to a libuv thread and back, waking sleeping threads); the copies alone (3 n² doubles) 500 µs, 12.5% of the synchronous call.',
  ]);
});
