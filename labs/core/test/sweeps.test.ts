/** Declared sweeps become curves over their own param: on the committed reference runs, and never a one-point series. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseResultsJson, sweepAxis, sweepChart, sweepCharts, type Results } from '@parallel-course/core';

function reference(lab: string): Results {
  const dir = new URL(`../../../reference/${lab}/`, import.meta.url);
  const run = readdirSync(dir).find((d) => /^\d{4}-/.test(d))!;
  return parseResultsJson(readFileSync(new URL(`${run}/results.json`, dir), 'utf8'), lab);
}

test('each lab declares its sweeps and each draws curves over its own param', () => {
  const params = (lab: string) => sweepCharts(reference(lab)).map((c) => c.sweep.param);
  assert.deepEqual(params('native-kernel'), ['size', 'threads']);
  assert.deepEqual(params('gpu-batching'), ['batch', 'sessions', 'devices']);
  assert.ok(params('task-granularity').includes('chunk'));
  assert.deepEqual(params('event-loop'), ['workers']);
  const batch = sweepCharts(reference('gpu-batching')).find((c) => c.sweep.param === 'batch')!;
  assert.equal(batch.axis, 'log2');
  assert.equal(batch.curves[0]!.points.length, 10);
  assert.deepEqual(batch.curves[0]!.points.map((p) => p.x), [...batch.curves[0]!.points.map((p) => p.x)].sort((a, b) => a - b));
  const threads = sweepCharts(reference('native-kernel')).find((c) => c.sweep.param === 'threads')!;
  for (const curve of threads.curves) {
    const one = curve.points.find((p) => p.x === 1)!;
    assert.equal(one.y, 1, `${curve.label}: one thread over itself`);
    assert.deepEqual(one.over, { variant: curve.variant, params: { ...curve.fixed, threads: 1 } });
  }
});

test('a curve needs two points: a quick run with one point per chunk draws no one-point series', () => {
  const results = reference('task-granularity');
  const chunk = results.sweeps.find((s) => s.param === 'chunk')!;
  // Keep one chunk size per curve, as a --quick run would.
  const seen = new Set<string>();
  const quick: Results = {
    ...results,
    speedups: results.speedups.filter((s) => {
      const key = `${s.variant}|${s.params['points']}|${s.params['workers']}`;
      if (s.params['chunk'] === undefined || seen.has(key)) return s.params['chunk'] === undefined;
      seen.add(key);
      return true;
    }),
  };
  assert.equal(sweepChart(quick, chunk).curves.length, 0);
  assert.ok(sweepCharts(results).every((c) => c.curves.every((curve) => curve.points.length >= 2)));
});

test('the axis: log2 for powers of two, log10 for other wide spans, else linear', () => {
  assert.equal(sweepAxis([1, 2, 4, 8, 16]), 'log2');
  assert.equal(sweepAxis([1, 2, 4]), 'linear');
  assert.equal(sweepAxis([512, 4096, 2796203]), 'log10');
  assert.equal(sweepAxis([1, 2, 3]), 'linear');
});
