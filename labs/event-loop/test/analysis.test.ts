/**
 * The event-loop lab's analysis on a hand-made run with known values: the roles its cases play, the values and the
 * table it derives (checked against hand-computed numbers), and that they pass the course's values schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAnalysisValues } from '@parallel-course/core';
import type { CaseResult, Observation, Results, SpeedupEntry } from '@parallel-course/core';
import { eventLoopAnalysis, caseForRole, casesTable, eventLoopValues, LOAD_CPU, LOOP_DELAY_MAX, LOOP_DELAY_P99, medianWithInterval, PING, requestsPerSecond } from '../src/analysis.ts';
import lab from '../src/lab.ts';

const obs = (samples: number[], p50: number | null, p99: number | null, max: number | null): Observation => ({ unit: 'ms', description: '', samples, p50, p99, max });

/** A case with a burst of 24 requests; its times and observations are the test's known values. */
function serverCase(variant: string, workers: number | undefined, medianMs: number, ci95: [number, number], loadCpu: number[], delayP99: number[]): CaseResult {
  return {
    variant,
    params: workers === undefined ? {} : { workers },
    ...(workers === undefined ? {} : { workers }),
    samplesMs: [medianMs],
    sampleRounds: [0],
    workPerSample: { amount: 24, unit: 'requests' },
    sample: { item: 'request', itemsPerSample: 24 },
    summary: { median: medianMs, ci95 } as CaseResult['summary'],
    observations: {
      [PING]: obs([1, 2, 3], 2, 3, 3),
      [LOOP_DELAY_P99]: obs(delayP99, null, null, null),
      [LOOP_DELAY_MAX]: obs(delayP99.map((d) => d + 10), null, null, null),
      [LOAD_CPU]: obs(loadCpu, loadCpu.length ? loadCpu.slice().sort((a, b) => a - b)[Math.floor(loadCpu.length / 2)]! : null, null, null),
    },
    oversubscribed: workers !== undefined && workers > 2,
  };
}

const speedup = (variant: string, workers: number | undefined, s: number, extra: Partial<SpeedupEntry> = {}): SpeedupEntry => ({
  variant,
  baseline: 'inline',
  baselineParams: {},
  params: workers === undefined ? {} : { workers },
  speedup: s,
  ci95: [Math.round(100 * s - 10) / 100, Math.round(100 * s + 10) / 100],
  pairing: 'rounds',
  baselineMedianMs: 576,
  variantMedianMs: 576 / s,
  ...(workers === undefined ? {} : { workers }),
  oversubscribed: workers !== undefined && workers > 2,
  ...extra,
});

/** A run on P = 2: inline, threadpool, pools of 1, 2 and 4 (no chunked case: it is optional). */
function run(): Results {
  return {
    schemaVersion: 1,
    lab: 'event-loop',
    startedAt: '2026-12-03T10:00:00.000Z',
    cpus: { available: 2 },
    cases: [
      serverCase('inline', undefined, 576, [567, 590], [20, 30, 40], [90, 100, 110, 95, 105]),
      serverCase('threadpool', undefined, 322, [315, 343], [50], [6]),
      serverCase('pool', 1, 575, [567, 583], [30, 32], [7, 8]),
      serverCase('pool', 2, 337, [331, 352], [60, 80, 70], [8, 9, 7]),
      serverCase('pool', 4, 330, [324, 340], [], []),
    ],
    speedups: [
      speedup('threadpool', undefined, 1.79),
      speedup('pool', 1, 1.0, { efficiency: 1, efficiencyCi95: [0.98, 1.03], efficiencyBasis: 'one-worker' }),
      speedup('pool', 2, 1.71, { efficiency: 0.85, efficiencyCi95: [0.8, 0.9], efficiencyBasis: 'one-worker', karpFlatt: 0.17 }),
      speedup('pool', 4, 1.74, { efficiency: 0.44, karpFlatt: 0.43 }),
    ],
    amdahl: [{ variant: 'pool', param: 'workers', serialFraction: 0.17, maxSpeedup: 1 / 0.17, rmse: 0, points: 2 }],
  } as unknown as Results;
}

test('medianWithInterval: the median and its order-statistic interval', () => {
  assert.equal(medianWithInterval([]), null);
  // Reference: median([3, 1, 2]) = 2; below 6 samples the interval is [min, max].
  assert.deepEqual(medianWithInterval([3, 1, 2]), { value: 2, ci95: [1, 3] });
  // n = 12: ranks 3 and 10 (order-statistic.ts).
  assert.deepEqual(medianWithInterval([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]), { value: 6.5, ci95: [3, 10] });
});

test('requestsPerSecond: 24 requests in 576 ms [567, 590] is 41.67 req/s [40.68, 42.33]', () => {
  const r = requestsPerSecond(24, 576, [567, 590]);
  assert.equal(r.unit, 'req/s');
  assert.ok(Math.abs(r.value - 41.6667) < 1e-3);
  assert.ok(Math.abs(r.ci95[0] - 40.678) < 1e-3 && Math.abs(r.ci95[1] - 42.328) < 1e-3, String(r.ci95));
  assert.throws(() => requestsPerSecond(24, 0, [0, 1]), /requests and times must be positive/);
});

test('roles: the pool at P and the oversubscribed pool are found by their place in the sweep', () => {
  const results = run();
  assert.equal(caseForRole(results, 'poolAtP')?.workers, 2);
  assert.equal(caseForRole(results, 'poolOver')?.workers, 4);
  assert.equal(caseForRole(results, 'pool1')?.workers, 1);
  assert.equal(caseForRole(results, 'chunked'), undefined);
  // P = 4: the pool of 4 is the one at P and none is oversubscribed.
  const big = { ...results, cpus: { available: 4 } } as Results;
  assert.equal(caseForRole(big, 'poolAtP')?.workers, 4);
  assert.equal(caseForRole(big, 'poolOver'), undefined);
});

test('values: the numbers the episodes quote, hand-computed', () => {
  const v = eventLoopValues(run());
  assert.equal(v.cpus?.value, 2);
  assert.equal(v.requestsPerBurst?.value, 24);
  assert.deepEqual([v.smallestPool?.value, v.largestPool?.value], [1, 4]);
  assert.deepEqual(v.inlineBurstMs, { value: 576, unit: 'ms', ci95: [567, 590], what: v.inlineBurstMs!.what });
  // 576 ms / 24 requests = 24 ms per request; 567 / 24 = 23.625, 590 / 24 = 24.583...
  assert.equal(v.inlineMsPerRequest?.value, 24);
  assert.deepEqual(v.inlineMsPerRequest?.ci95, [567 / 24, 590 / 24]);
  assert.equal(v.inlinePingP99Ms?.value, 3);
  assert.equal(v.inlinePingP99Ms?.ci95, null);
  // Per-sample p99 delays [90, 100, 110, 95, 105]: median 100, 5 samples -> [min, max].
  assert.deepEqual([v.inlineLoopDelayP99Ms?.value, v.inlineLoopDelayP99Ms?.ci95], [100, [90, 110]]);
  assert.equal(v.inlineLoopDelayMaxMs?.value, 110);
  assert.equal(v.inlineLoadCpuPercent?.value, 30);
  assert.equal(v.inlineSpeedup, undefined, 'the baseline has no speedup over itself');
  assert.deepEqual([v.poolAtPSpeedup?.value, v.poolAtPSpeedup?.ci95, v.poolAtPEfficiency?.value, v.poolAtPKarpFlatt?.value], [1.71, [1.61, 1.81], 0.85, 0.17]);
  assert.equal(v.poolAtPLoadCpuPercent?.value, 70);
  assert.equal(v.poolOverSpeedup?.value, 1.74);
  assert.equal(v.poolOverPingP99Ms?.value, 3);
  assert.equal(v.poolOverLoopDelayP99Ms, undefined, 'no samples, no value');
  assert.equal(v.threadpoolSpeedup?.value, 1.79);
  assert.equal(v.chunkedBurstMs, undefined);
  assert.equal(v.poolSerialFraction?.value, 0.17);
  assert.ok(Math.abs(v.poolAmdahlMaxSpeedup!.value - 5.882) < 1e-3);
  // Load generator: medians 30, 50, 31 (of [30, 32]), 70, none; the pool of 2 competes (2 + 0.7 > 2), so does pool 1? 1 + 0.31 < 2: no.
  assert.equal(v.loadCpuMaxPercent?.value, 70);
  assert.equal(v.loadCpuCompetingCases?.value, 1);
});

test('table: one row per case, cells with units and intervals, and a valid values file', () => {
  const results = run();
  const table = casesTable(results);
  assert.equal(table.rows.length, 5);
  assert.equal(table.columns.length, 8);
  assert.deepEqual(table.rows.map((r) => r[0]), ['inline', 'threadpool', 'pool (workers=1)', 'pool (workers=2 = P)', 'pool (workers=4, oversubscribed)']);
  assert.equal(table.rows[0]![2], 'baseline');
  assert.deepEqual(table.rows[3]![2], { value: 1.71, unit: 'x', ci95: [1.61, 1.81], what: 'speedup over inline' });
  assert.equal(table.rows[1]![3], '', 'the threadpool has no worker count, so no efficiency');
  assert.equal(table.rows[4]![6], '', 'no loop-delay samples');
  const analysis = eventLoopAnalysis(results);
  assert.match(analysis.text, /competes: workers \+ load generator > P/);
  const file = buildAnalysisValues(results, analysis);
  assert.equal(file.values.poolAtPSpeedup?.value, 1.71);
  assert.equal(file.tables.cases?.rows.length, 5);
  // The lab declares this analysis.
  assert.equal(lab.labAnalysis, eventLoopAnalysis);
});
