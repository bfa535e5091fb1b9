/**
 * The values and tables episode 08 renders (analysis/values.json, issue 20), on hand-computed results: the knee, the
 * overlap bound, throughput intervals, and every key the episode names, labelled with the execution provider.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze, buildAnalysisValues, type Results } from '@parallel-course/core';
import { gpuBatchingAnalysis } from '../src/analysis.ts';
import { analysisValues, kneeOf, overlapBound, overlapBoundInterval, throughputOf } from '../src/analysis-values.ts';

test('kneeOf: the smallest batch whose next swept size gains less than 10% per doubling', () => {
  // 1 -> 2: +50%; 2 -> 4: +20%; 4 -> 8: +5% (< 10%): the knee is 4, with a gain of 0.05.
  const knee = kneeOf([
    { batch: 1, throughput: 100 },
    { batch: 2, throughput: 150 },
    { batch: 4, throughput: 180 },
    { batch: 8, throughput: 189 },
  ]);
  assert.equal(knee?.batch, 4);
  assert.ok(Math.abs(knee!.nextGain - 0.05) < 1e-12);
  // A gap is judged per doubling: 8 -> 64 is three doublings; 1.331 = 1.1^3 is exactly 10% a doubling (not < 10%),
  // 64 -> 256 is two doublings at 1.1025 = 1.05^2: 5% a doubling, so the knee is 64.
  const gapped = kneeOf([
    { batch: 64, throughput: 1331 },
    { batch: 8, throughput: 1000 },
    { batch: 256, throughput: 1331 * 1.1025 },
  ]);
  assert.equal(gapped?.batch, 64);
  assert.ok(Math.abs(gapped!.nextGain - 0.05) < 1e-12);
  assert.equal(kneeOf([{ batch: 1, throughput: 100 }, { batch: 2, throughput: 200 }]), null, 'still doubling: no knee');
  assert.equal(kneeOf([]), null);
});

test('overlapBound is (io + compute) / max(io, compute), between 1 and 2', () => {
  assert.equal(overlapBound(50, 50), 2);
  assert.equal(overlapBound(20, 80), 1.25);
  assert.equal(overlapBound(0, 10), 1);
  assert.throws(() => overlapBound(0, 0), /overlapBound: times must be non-negative and not both 0/);
  assert.throws(() => overlapBound(-1, 5), RangeError);
});

test('overlapBoundInterval maps the MOVER interval of io / compute through 1 + min(r, 1 / r) (issue 43)', () => {
  // Reference: io 20 [18, 22], compute 80 [76, 84]: r in [0.25 e^-hypot(ln(20/18), ln(84/80)), 0.25 e^hypot(ln(22/20), ln(80/76))].
  const [low, high] = overlapBoundInterval(20, [18, 22], 80, [76, 84]);
  assert.ok(Math.abs(low - (1 + 0.25 * Math.exp(-Math.hypot(Math.log(20 / 18), Math.log(84 / 80))))) < 1e-12);
  assert.ok(Math.abs(high - (1 + 0.25 * Math.exp(Math.hypot(Math.log(22 / 20), Math.log(80 / 76))))) < 1e-12);
  // Where the ratio's interval contains 1 the bound can reach its peak: 2.
  assert.equal(overlapBoundInterval(50, [40, 60], 50, [45, 55])[1], 2);
});

test('throughputOf: work / median, and the interval with its bounds swapped', () => {
  // 1000 samples in 100 ms = 10,000/s; the time interval [80, 125] ms gives [8000, 12,500]/s.
  assert.deepEqual(throughputOf(1000, 100, [80, 125]), { value: 10_000, ci95: [8000, 12_500] });
  assert.deepEqual(throughputOf(1000, 100, null), { value: 10_000, ci95: null });
});

/** A case as results.json holds it: the fields the analysis reads, with the summary's median and interval. */
function fakeCase(variant: string, params: Record<string, number | string>, samplesMs: number[], observations: Record<string, number[]> = {}) {
  const xs = [...samplesMs].sort((a, b) => a - b);
  const mid = xs.length % 2 ? xs[(xs.length - 1) / 2]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2;
  return {
    variant,
    params,
    ...(variant === 'devices' ? { workers: Number(params.devices) } : {}),
    samplesMs,
    sampleRounds: samplesMs.map((_, i) => i),
    workPerSample: { amount: 1000, unit: 'samples' },
    summary: { median: mid, ci95: [xs[0]!, xs.at(-1)!] },
    observations: Object.fromEntries(Object.entries(observations).map(([k, samples]) => [k, { unit: 'ms', description: k, samples }])),
  };
}

function fakeResults(ep: 'cpu' | 'cuda'): Results {
  const results = {
    seed: 1,
    bootstrapResamples: 200,
    environment: { gpus: ep === 'cuda' ? [{}, {}] : [] },
    cases: [
      // 1000 samples in 500 ms: 500 µs a call, 2000 samples/s.
      fakeCase('one-at-a-time', { ep }, [400, 500, 600], { 'call latency': [0.4, 0.5, 0.6] }),
      fakeCase('batched', { ep, batch: 1 }, [400, 500, 600]),
      // 4000/s, then 4200/s: +5% for two doublings; the knee is 4.
      fakeCase('batched', { ep, batch: 4 }, [250, 250, 250], { 'call latency': [1, 2, 3, 4, 5] }),
      fakeCase('batched', { ep, batch: 16 }, [1000 / 4.2, 1000 / 4.2, 1000 / 4.2]),
      // The solution's copy of a graded case in a --grade run is not part of the sweep.
      fakeCase('batched', { ep, batch: 16, impl: 'solution' }, [1, 1, 1]),
      fakeCase('read-then-infer', { ep, batch: 64, reader: 'worker' }, [300, 300, 300], { 'read ms': [100, 100, 100], 'compute ms': [200, 200, 200] }),
      // 230 ms / max(100, 200) ms = 1.15; 300 / 230 over read-then-infer.
      fakeCase('pipeline', { ep, batch: 64, prefetch: 4, reader: 'worker' }, [230, 230, 230], { 'compute ms': [210, 210, 210] }),
      fakeCase('sessions', { ep, batch: 64, sessions: 1 }, [200, 200, 200], { 'call latency': [2, 2, 2] }),
      fakeCase('sessions', { ep, batch: 64, sessions: 2 }, [250, 250, 250], { 'call latency': [4, 4, 8] }),
      fakeCase('devices', { ep, batch: 64, devices: 1, source: 'disk' }, [200, 200, 200], { 'device 0 busy fraction': [0.9, 0.9, 0.9], 'device 0 resident MiB': [150, 160, 170] }),
      // 1000 / 0.125 s = 8000/s = 0.8 x 2 x 5000/s.
      fakeCase('devices', { ep, batch: 64, devices: 2, source: 'disk' }, [125, 125, 125], { 'device 0 busy fraction': [0.6, 0.6, 0.6], 'device 1 busy fraction': [0.8, 0.8, 0.8] }),
    ],
  } as unknown as Results;
  const analysis = analyze(results.cases, { baseline: 'one-at-a-time', headline: { variant: 'batched', params: { ep, batch: 4 } }, seed: 1, resamples: 200, availableParallelism: 4 });
  results.speedups = analysis.speedups;
  results.headline = analysis.headline;
  return results;
}

test('the values episode 08 names, on hand-computed results, labelled CPU fallback on a CPU run', () => {
  const results = fakeResults('cpu');
  const { values, tables } = analysisValues(results, gpuBatchingAnalysis(results));
  const v = (key: string) => {
    assert.ok(values[key], `values has ${key}`);
    return values[key]!;
  };
  assert.equal(v('perCallUsOneAtATime').value, 500);
  assert.equal(v('perCallUsOneAtATime').unit, 'µs');
  assert.deepEqual(v('perCallUsOneAtATime').ci95, [400, 600]);
  assert.equal(v('throughputOneAtATime').value, 2000);
  assert.equal(v('throughputBatch4').value, 4000);
  assert.equal(v('speedupBatch4').value, 2); // 500 / 250
  assert.equal(v('callP50MsBatch4').value, 3);
  assert.equal(v('kneeBatch').value, 4);
  assert.ok(Math.abs(v('kneeNextGainPct').value - 100 * (Math.sqrt(1.05) - 1)) < 1e-9);
  assert.equal(v('bestBatch').value, 16, 'the solution\'s graded case is not the best batch');
  assert.equal(v('pureIoMs').value, 100);
  assert.equal(v('pureComputeMs').value, 200);
  assert.equal(v('overlapBound').value, 1.5);
  // The bound and the medians it comes from carry intervals, so a page can compare the measured gain with it.
  for (const key of ['pureIoMs', 'pureComputeMs', 'overlapBound', 'pipelineComputeMsPrefetch4']) {
    const { value, ci95 } = v(key);
    assert.ok(ci95 && ci95[0] <= value && value <= ci95[1], `${key}: ${value} [${ci95?.join(', ')}]`);
  }
  assert.equal(v('pipelineRatioPrefetch4').value, 1.15);
  assert.equal(v('pipelineComputeMsPrefetch4').value, 210);
  assert.equal(v('pipelineGain').value, 300 / 230);
  assert.equal(v('sessionsVsOne2').value, 0.8);
  assert.equal(v('sessionsCallP50Ms2').value, 4);
  assert.equal(v('deviceEfficiencyDisk2').value, 0.8);
  assert.equal(v('deviceBusyDisk2').value, 0.7);
  assert.equal(v('deviceThroughputDisk2').value, 8000);
  assert.equal(v('deviceResidentMiB').value, 160);
  assert.equal(v('devicesMax').value, 2);
  assert.equal(v('gpusUsed').value, 0);
  assert.equal(values.deviceEfficiencyDisk1, undefined, 'one device against itself is not a value');
  assert.equal(values.pipelineRatioThreadpool, undefined, 'no threadpool reader in this run');
  for (const [key, value] of Object.entries(values)) assert.match(value.what, /CPU fallback: no GPU used/, key);
  assert.deepEqual(Object.keys(tables).sort(), ['batchSweep', 'devices', 'pipeline', 'sessions']);
  assert.match(tables.batchSweep!.caption, /CPU execution provider: no GPU was used/);
  assert.deepEqual(tables.batchSweep!.rows.map((r) => r[0]), ['one at a time (baseline)', '1', '4 (headline, knee)', '16 (best)']);
  assert.deepEqual(tables.devices!.rows.map((r) => [r[0], r[1], r[5]]), [['1', 'disk', '0.90'], ['2', 'disk', '0.60 / 0.80']]);
  // The whole file passes the harness's schema (every row as wide as its columns).
  buildAnalysisValues({ lab: 'gpu-batching', startedAt: '2026-12-03T12:00:00.000Z' }, { values, tables });
});

test('on a CUDA run the values say CUDA and count the GPUs used', () => {
  const results = fakeResults('cuda');
  const { values, tables } = analysisValues(results, gpuBatchingAnalysis(results));
  assert.equal(values.gpusUsed?.value, 2);
  assert.equal(values.gpusFound?.value, 2);
  assert.match(values.perCallUsOneAtATime!.what, /CUDA execution provider \(GPU\)$/);
  assert.doesNotMatch(tables.devices!.caption, /CPU/);
});
