/**
 * The lab's analysis on hand-computed values: the per-task overhead (slope and interval), the knee of a curve, the
 * rule's verdict, the efficiency split, the sweeps read from a results file by their points and W, and the values
 * and tables written to values.json (validated by the harness's schema).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAnalysisValues } from '@parallel-course/core';
import type { Results } from '@parallel-course/core';
import { deriveGranularity, formatEfficiencySplit, formatGranularity, formatRuleCheck } from '../src/analysis.ts';
import { sweepOf } from '../src/sweep-model.ts';
import { granularityTables, granularityValues } from '../src/analysis-tables.ts';
import { UTILISATION, WORKER_NS_PER_POINT } from '../src/busy-clock.ts';
import { findKnee, fitOverhead, ruleMinTaskUs, ruleVerdict, verdictText } from '../src/rule-check.ts';
import { efficiencySplitChart, TARGET_EFFICIENCY } from '../src/split-chart.ts';

test('fitOverhead: the slope in µs per task, and an interval that holds it when the samples vary', () => {
  // 64 tasks in 10 ms, 128 in 12 ms: (12 - 10) ms / 64 tasks = 31.25 µs per task.
  assert.deepEqual(fitOverhead([{ tasks: 64, medianMs: 10 }, { tasks: 128, medianMs: 12 }]), { perTaskUs: 31.25, ci95: null });
  assert.equal(fitOverhead([{ tasks: 64, medianMs: 10 }]), null, 'one size: no slope');
  assert.equal(fitOverhead([{ tasks: 64, medianMs: 10 }, { tasks: 64, medianMs: 11 }]), null, 'one task count: no slope');
  // Exact samples: every resample has the same medians, so the interval is the slope itself.
  const exact = fitOverhead([{ tasks: 64, medianMs: 10, samplesMs: [10, 10, 10] }, { tasks: 128, medianMs: 12, samplesMs: [12, 12, 12] }])!;
  assert.deepEqual(exact.ci95, [31.25, 31.25]);
  // Samples 10 +- 1 and 12 +- 1: slopes between (11 - 11) / 64 = 0 and (13 - 9) / 64 = 62.5 µs.
  const noisy = fitOverhead([{ tasks: 64, medianMs: 10, samplesMs: [9, 10, 11, 10, 9, 11] }, { tasks: 128, medianMs: 12, samplesMs: [11, 12, 13, 12, 11, 13] }], 7)!;
  assert.ok(noisy.ci95![0] <= 31.25 && noisy.ci95![1] >= 31.25 && noisy.ci95![0] >= 0 && noisy.ci95![1] <= 62.5, String(noisy.ci95));
  assert.deepEqual(fitOverhead([{ tasks: 64, medianMs: 10, samplesMs: [9, 10, 11] }, { tasks: 128, medianMs: 12, samplesMs: [11, 12, 13] }], 7), fitOverhead([{ tasks: 64, medianMs: 10, samplesMs: [9, 10, 11] }, { tasks: 128, medianMs: 12, samplesMs: [11, 12, 13] }], 7), 'same seed, same interval');
});

test('the rule: 9·W·o, none for a slope that noise made zero or negative', () => {
  assert.equal(ruleMinTaskUs(2, 50), 900);
  assert.equal(ruleMinTaskUs(1, 50), 450);
  assert.equal(ruleMinTaskUs(2, 0), null);
  assert.equal(ruleMinTaskUs(2, -3), null);
  assert.equal(ruleMinTaskUs(2, null), null);
});

test('findKnee: where the efficiency first reaches 90% of the best, interpolated in log task length', () => {
  // Best 1.0, threshold 0.9: between 100 µs (0.5) and 1000 µs (1.0) the crossing is 0.8 of the way in log:
  // (0.9 - 0.5) / (1.0 - 0.5) = 0.8 -> 10^(2 + 0.8) = 630.96 µs.
  const knee = findKnee([{ taskUs: 1000, efficiency: 1 }, { taskUs: 10, efficiency: 0.1 }, { taskUs: 100, efficiency: 0.5 }, { taskUs: 10_000, efficiency: 0.6 }])!;
  assert.equal(knee.best, 1);
  assert.equal(knee.threshold, 0.9);
  assert.ok(Math.abs(knee.taskUs - 10 ** 2.8) < 1e-9, String(knee.taskUs));
  assert.deepEqual(knee.between, [100, 1000]);
  // A point exactly at the threshold is the knee itself (share 1).
  assert.equal(findKnee([{ taskUs: 10, efficiency: 0.5 }, { taskUs: 20, efficiency: 0.9 }, { taskUs: 40, efficiency: 1 }])!.taskUs, 20);
  // Already good at the shortest size: the knee is at or below it.
  assert.deepEqual(findKnee([{ taskUs: 50, efficiency: 0.95 }, { taskUs: 500, efficiency: 1 }])!.between, [null, 50]);
  // The first crossing counts, not a later dip and recovery.
  assert.deepEqual(findKnee([{ taskUs: 1, efficiency: 0.2 }, { taskUs: 2, efficiency: 0.95 }, { taskUs: 4, efficiency: 0.5 }, { taskUs: 8, efficiency: 1 }])!.between, [1, 2]);
  assert.equal(findKnee([{ taskUs: 1, efficiency: 0.2 }, { taskUs: 2, efficiency: null }]), null, 'one efficiency: no curve');
});

test('ruleVerdict: within a factor of 2 agrees; beyond, too cautious or too optimistic; unknown without both', () => {
  const knee = { best: 1, threshold: 0.9, taskUs: 500, between: [250, 1000] as [number, number] };
  assert.equal(ruleVerdict(500, knee), 'agrees');
  assert.equal(ruleVerdict(1000, knee), 'agrees', 'exactly 2x still agrees');
  assert.equal(ruleVerdict(250, knee), 'agrees', 'exactly 1/2 still agrees');
  assert.equal(ruleVerdict(1001, knee), 'too-cautious');
  assert.equal(ruleVerdict(249, knee), 'too-optimistic');
  assert.equal(ruleVerdict(null, knee), 'undetermined');
  assert.equal(ruleVerdict(500, null), 'undetermined');
  const atShortest = { ...knee, taskUs: 50, between: [null, 50] as [null, number] };
  assert.equal(ruleVerdict(80, atShortest), 'undetermined', 'the knee may lie anywhere below 50 µs');
  assert.equal(ruleVerdict(101, atShortest), 'too-cautious', 'over 2x the shortest size, so over 2x the knee');
  assert.match(verdictText('agrees'), /within a factor of 2/);
  assert.match(verdictText('too-cautious'), /too cautious/);
});

/**
 * A hand-made run at P = 2: serial 8 ms for 8192 points (976.5625 ns per point) for W = 2, serial 4 ms for 4096 points
 * for W = 1. W = 2: 128 tasks 12 ms, 64 tasks 10 ms (slope 31.25 µs, rule 9 x 2 x 31.25 = 562.5 µs), 2 tasks 4.4 ms.
 */
function handMadeRun(): Results {
  const samples = (median: number) => [median, median, median];
  const caseOf = (variant: string, params: Record<string, number>, median: number, observations: Record<string, unknown> = {}) => ({
    variant, params, samplesMs: samples(median), summary: { median, ci95: [median * 0.9, median * 1.1] }, observations,
  });
  const observed = (p50: number, samplesOf: number[] = [p50]) => ({ p50, samples: samplesOf });
  const speedupOf = (params: Record<string, number>, base: number, median: number) => ({
    variant: params['payloadMiB'] === undefined ? 'pool' : 'clone', params, speedup: base / median, ci95: [(base / median) * 0.9, (base / median) * 1.1],
  });
  const w2 = (chunk: number) => ({ chunk, points: 8192, workers: 2 });
  const w1 = (chunk: number) => ({ chunk, points: 4096, workers: 1 });
  return {
    lab: 'task-granularity',
    startedAt: '2026-12-03T10:00:00.000Z',
    seed: 42,
    cpus: { p: 2, available: 2 },
    cases: [
      caseOf('serial', { points: 8192 }, 8),
      caseOf('serial', { points: 4096 }, 4),
      caseOf('pool', w2(64), 12, { [UTILISATION]: observed(30), [WORKER_NS_PER_POINT]: observed(1000) }),
      caseOf('pool', w2(128), 10),
      caseOf('pool', w2(4096), 4.4, { [UTILISATION]: observed(90), [WORKER_NS_PER_POINT]: observed(976.5625 / 1.01), 'start-up': observed(200), 'memory per worker': observed(20) }),
      caseOf('pool', w1(64), 8),
      caseOf('pool', w1(512), 4.2),
      caseOf('serial', { payloadMiB: 1 }, 0.2),
      caseOf('clone', { payloadMiB: 1 }, 0.8, { 'hand-off': observed(0.4) }),
    ],
    speedups: [speedupOf(w2(64), 8, 12), speedupOf(w2(128), 8, 10), speedupOf(w2(4096), 8, 4.4), speedupOf(w1(64), 4, 8), speedupOf(w1(512), 4, 4.2), speedupOf({ payloadMiB: 1 }, 0.2, 0.8)],
    headline: { variant: 'pool', params: w2(4096), speedup: 8 / 4.4, ci95: [1.6, 2], workers: 2, baselineMedianMs: 8, variantMedianMs: 4.4 },
  } as unknown as Results;
}

test('derived granularity: one sweep per W, each against the serial loop of its own points, by hand', () => {
  const g = deriveGranularity(handMadeRun(), { points: 1, workers: 1 });
  assert.deepEqual(g.sweeps.map((s) => [s.variant, s.workers, s.points]), [['pool', 1, 4096], ['pool', 2, 8192]]);
  const s2 = sweepOf(g, 'pool', 2)!;
  assert.equal(s2.nsPerPoint, (8 * 1e6) / 8192);
  assert.equal(s2.best.chunk, 4096);
  assert.equal(s2.worst.chunk, 64);
  // (12 - 10) ms / (128 - 64) tasks = 31.25 µs; the samples are exact, so is the interval.
  assert.ok(Math.abs(s2.overheadPerTaskUs! - 31.25) < 1e-9);
  assert.deepEqual(s2.overheadCi95!.map((x) => Math.round(x * 1e6) / 1e6), [31.25, 31.25]);
  assert.ok(Math.abs(s2.minTaskUs! - 562.5) < 1e-9);
  // Efficiency is speedup / W against the serial loop: chunk 4096 -> 8 / 4.4 / 2.
  assert.ok(Math.abs(s2.curve.at(-1)!.efficiency! - 8 / 4.4 / 2) < 1e-12);
  // W = 1 against its own baseline of 4 ms: 512 points per task = 500 µs of work, efficiency 4 / 4.2.
  const s1 = sweepOf(g, 'pool', 1)!;
  assert.equal(s1.serialMedianMs, 4);
  assert.equal(s1.curve.at(-1)!.taskUs, 500);
  assert.equal(s1.overheadPerTaskUs, null, 'one size with >= 64 tasks: no slope');
  assert.equal(s1.verdict, 'undetermined');
  assert.match(formatGranularity(g), /pool W=2: each extra task adds 31\.3 µs \[31\.3, 31\.3\] of wall time with 2 workers; for at most 10% overhead a task should take >= 563 µs/);
  assert.match(formatGranularity(g), /pool W=1: .*not measurable in this run/);
  assert.match(formatRuleCheck(g), /- pool W=2: rule 563 µs \(\d.*x the knee\); the curve reaches/);
  assert.ok(g.sweeps.every((s) => !s.oversubscribed));
  // Forced to P = 2 on a machine that has 1 CPU: the W = 2 sweep time-slices, and the rule check says so.
  const forced = deriveGranularity({ ...handMadeRun(), cpus: { p: 2, available: 1 } } as unknown as Results, { points: 1, workers: 1 });
  assert.deepEqual(forced.sweeps.map((s) => s.oversubscribed), [false, true]);
  assert.match(formatRuleCheck(forced), /- pool W=2: .*\(oversubscribed: 2 workers on fewer CPUs/);
  assert.doesNotMatch(formatRuleCheck(forced), /- pool W=1: [^\n]*oversubscribed/);
  // A run from before the params carried points and W: one sweep, from the fallback.
  const old = handMadeRun();
  old.cases = old.cases.filter((c) => c.params['workers'] !== 1 && c.params['points'] !== 4096).map((c) => ({ ...c, params: c.params['chunk'] === undefined ? (c.params['payloadMiB'] === undefined ? {} : c.params) : { chunk: c.params['chunk'] } }));
  assert.deepEqual(deriveGranularity(old, { points: 8192, workers: 2 }).sweeps.map((s) => [s.workers, s.points, s.curve.length]), [[2, 8192, 3]]);
});

test('efficiency split: utilisation and speed ratio from the observations, by hand', () => {
  const g = deriveGranularity(handMadeRun(), { points: 1, workers: 1 });
  const point = sweepOf(g, 'pool', 2)!.curve[0]!; // chunk 64: busy 30%, 1000 ns per point against 976.5625 serial
  assert.equal(point.utilisation, 0.3);
  assert.ok(Math.abs(point.speedRatio! - 0.9765625) < 1e-12);
  assert.equal(sweepOf(g, 'pool', 1)!.curve[0]!.utilisation, null); // no observations (a run from before they were recorded)
  assert.match(formatEfficiencySplit(g), / +pool W=2 chunk +tasks.*\n +64 +128 +12\.0 +0\.33 +0\.30 +0\.98\n/);
  assert.doesNotMatch(formatEfficiencySplit(g), /pool W=1 chunk/); // nothing to split for a curve without observations
});

test('values and tables: stable keys, units, intervals, and a file the harness schema accepts', () => {
  const results = handMadeRun();
  const g = deriveGranularity(results, { points: 1, workers: 1 });
  const values = granularityValues(results, g);
  assert.deepEqual(values['serialMedianMs'], { value: 8, unit: 'ms', what: values['serialMedianMs']!.what, ci95: [7.2, 8.8] });
  assert.equal(values['perTaskOverheadUsP']!.value, values['perTaskOverheadUsW2']!.value, 'at P = 2 the W = 2 sweep is the P sweep');
  assert.equal(values['ruleMinTaskUsP']!.unit, 'µs');
  assert.equal(values['perTaskOverheadUsW1'], undefined, 'not measurable: left out rather than made up');
  assert.ok(Math.abs(values['headlineEfficiency']!.value - 8 / 4.4 / 2) < 1e-12);
  assert.deepEqual(values['headlineEfficiency']!.ci95, [0.8, 1]);
  assert.ok(Math.abs(values['headlineBusyPct']!.value - 90) < 1e-9);
  assert.equal(values['threadStartupMs']!.value, 200);
  assert.equal(values['cloneRoundTripMs1MiB']!.value, 0.8);
  assert.equal(values['cloneHandOffMs1MiB']!.value, 0.4);
  assert.equal(values['checksumMs1MiB']!.value, 0.2);
  const tables = granularityTables(results, g);
  assert.deepEqual(Object.keys(tables).sort(), ['chunkSweepP', 'chunkSweepW1', 'chunkSweepW2', 'handoffOneWay', 'handoffRoundTrip', 'ruleCheck', 'threadsVsProcesses']);
  assert.deepEqual(tables['chunkSweepP']!.columns, ['chunk (points)', 'tasks', 'work per task', 'median', 'speedup vs serial', 'efficiency', 'workers busy', 'speed ratio']);
  assert.equal(tables['chunkSweepP']!.rows[0]![0], '64');
  assert.deepEqual(tables['ruleCheck']!.rows.map((r) => r[0]), ['1', '2']);
  assert.equal(tables['ruleCheck']!.rows[0]![6], verdictText('undetermined'));
  // The harness validates what it writes: every key camelCase, every row as wide as its columns.
  const file = buildAnalysisValues(results, { values, tables });
  assert.equal(file.lab, 'task-granularity');
});

test('the efficiency-split chart: one category per chunk size, the three factors, the target line; none without points', async () => {
  const point = (chunk: number, tasks: number, efficiency: number | null, utilisation: number | null, speedRatio: number | null) => ({
    chunk, tasks, taskUs: 1, medianMs: 1, medianCi95: null, samplesMs: [], speedup: null, speedupCi95: null, efficiency, efficiencyCi95: null, utilisation, speedRatio,
  });
  const sweep = { points: 4096, workers: 2, curve: [point(1024, 4, 0.8, 0.9, 0.8888), point(4096, 1, 0.5, 0.5, null)] };
  const chart = efficiencySplitChart(sweep, 'test machine')!;
  assert.deepEqual(chart.config.data.labels, ['1,024 (4)', '4,096 (1)']);
  const [efficiency, busy, speed, target] = chart.config.data.datasets;
  assert.deepEqual(efficiency!.data, [{ x: '1,024 (4)', y: 0.8 }, { x: '4,096 (1)', y: 0.5 }]);
  assert.deepEqual(busy!.data.map((p) => (p as { y: number }).y), [0.9, 0.5]);
  assert.deepEqual(speed!.data.map((p) => (p as { y: number | null }).y), [0.889, null]); // 3 digits; a gap where unknown
  assert.ok(target!.data.every((p) => (p as { y: number }).y === TARGET_EFFICIENCY));
  assert.match(JSON.stringify(chart.config.options), /test machine/);
  assert.match(JSON.stringify(chart.config.options), /2 workers/);
  assert.deepEqual(chart.table.rows[1], ['4096', '1', '0.50', '0.50', 'n/a']);
  assert.equal(efficiencySplitChart({ ...sweep, curve: [] }, 'test machine'), null);
  const { renderChartPng } = await import('@parallel-course/harness');
  const png = await renderChartPng(chart.config, 400, 300);
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]); // "\x89PNG"
});
