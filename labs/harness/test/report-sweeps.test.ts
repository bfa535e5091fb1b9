/**
 * The reports draw each declared sweep as a curve over its own param (issue 24): native-kernel's size and threads
 * sweeps, gpu-batching's batch, sessions and devices sweeps, task-granularity's chunk sweep, each chart's data taken
 * from the run, log axes for powers of two, and no per-case bar chart of speedups a sweep already shows.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import { buildCharts } from '../src/report/charts.ts';
import { renderChartPng } from '../src/report/png.ts';
import { ROOT_DIR } from '../src/lab-registry.ts';
import { readResults } from '../src/write/results-reader.ts';
import { findRunFolders } from '../src/tools/run-folders.ts';
import { formatSignificant } from '@parallel-course/core';

const reference = (lab: string) => readResults(findRunFolders(path.join(ROOT_DIR, 'reference'), lab)[0]!).results;

test('every declared sweep of every reference run is a chart of curves over its param, with the run\'s numbers', () => {
  const expected: Record<string, string[]> = { 'native-kernel': ['size', 'threads'], 'gpu-batching': ['batch', 'sessions', 'devices'], 'event-loop': ['workers'] };
  for (const [lab, params] of Object.entries(expected)) {
    const results = reference(lab);
    const sweeps = buildCharts(results).filter((c) => c.id.startsWith('sweep-'));
    assert.deepEqual(sweeps.map((c) => c.table.headers[1]), params, `${lab}: one chart per declared sweep`);
    for (const chart of sweeps) {
      for (const row of chart.table.rows) {
        const param = chart.table.headers[1]!;
        const entry = results.speedups.find((s) => String(s.params[param]) === row[1] && (row[0] === s.variant || row[0]!.startsWith(`${s.variant} (`)) && [formatSignificant(s.speedup), formatSignificant(s.efficiencySpeedup ?? -1)].includes(row[2]!));
        assert.ok(entry, `${lab} ${chart.id}: a row for a speedup of the run (${row.join(', ')})`);
      }
      const curves = chart.config.data.datasets.filter((d) => d.type === 'scatter');
      assert.ok(curves.every((d) => d.data.length >= 2), `${lab} ${chart.id}: no one-point series`);
    }
  }
  const batch = buildCharts(reference('gpu-batching')).find((c) => c.title.includes('batch size'))!;
  assert.equal((batch.config.options['scales'] as { x: { type: string } }).x.type, 'logarithmic');
  const batched = reference('gpu-batching').speedups.filter((s) => s.variant === 'batched');
  assert.deepEqual(batch.config.data.datasets[0]!.data.map((p) => (p as { x: number }).x), batched.map((s) => s.params['batch']).sort((a, b) => Number(a) - Number(b)));
  assert.equal(buildCharts(reference('native-kernel')).some((c) => c.id === 'speedup-per-case'), false, 'native-kernel: every speedup is on a sweep curve, no 71-bar chart');
  assert.ok(buildCharts(reference('task-granularity')).some((c) => c.id.startsWith('sweep-') && c.table.headers[1] === 'chunk'));
});

test('a sweep chart with a log axis renders to PNG', async () => {
  const chart = buildCharts(reference('gpu-batching')).find((c) => c.id === 'sweep-1')!;
  const png = await renderChartPng(chart.config, 800, 440);
  assert.ok(png.length > 1000);
});
