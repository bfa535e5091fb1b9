import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ChartDataset, ChartPoint } from '../src/report/chart-spec.ts';
import {
  buildCharts,
  speedupPerCaseChart,
  speedupVsWorkersChart,
  timeDistributionChart,
} from '../src/report/charts.ts';
import { selectCharts } from '../src/report/select.ts';
import { amdahlSpeedup, parseResults, type Results } from '@parallel-course/core';

const FIXTURE = new URL('./fixtures/results-event-loop.json', import.meta.url);

function loadFixture(): Results {
  return parseResults(JSON.parse(readFileSync(FIXTURE, 'utf8')), 'results-event-loop.json');
}

function dataset(datasets: ChartDataset[], label: string): ChartDataset {
  const found = datasets.find((d) => d.label === label);
  assert.ok(found, `no dataset "${label}" in ${JSON.stringify(datasets.map((d) => d.label))}`);
  return found;
}

function points(d: ChartDataset): ChartPoint[] {
  return d.data as ChartPoint[];
}

describe('buildCharts', () => {
  const results = loadFixture();

  it('builds the workers chart, the per-case speedup chart and the time distribution for the fixture', () => {
    assert.deepEqual(
      buildCharts(results).map((c) => c.id),
      ['speedup-vs-workers', 'speedup-per-case', 'time-distribution'],
    );
  });

  it('returns plain JSON: no functions, nothing lost in JSON.stringify', () => {
    for (const spec of buildCharts(results)) {
      assert.deepEqual(JSON.parse(JSON.stringify(spec)), spec, spec.id);
      assert.equal(spec.config.options['animation'], false);
    }
  });

  it('is deterministic (no Math.random in the jitter)', () => {
    assert.deepEqual(buildCharts(results), buildCharts(results));
  });

  it('leaves out the workers chart for a lab without a workers parameter', () => {
    const copy = structuredClone(results);
    copy.speedups = copy.speedups.filter((s) => !('workers' in s.params));
    copy.amdahl = [];
    copy.headline = null;
    assert.equal(speedupVsWorkersChart(selectCharts(parseResults(copy))), null);
    assert.deepEqual(
      buildCharts(parseResults(copy)).map((c) => c.id),
      ['speedup-per-case', 'time-distribution'],
    );
  });
});

describe('speedupVsWorkersChart', () => {
  const results = loadFixture();
  const spec = speedupVsWorkersChart(selectCharts(results));
  assert.ok(spec);
  const datasets = spec.config.data.datasets;

  it('plots the median speedup of each worker count, triangles where oversubscribed', () => {
    const medians = dataset(datasets, 'pool (median speedup)');
    assert.deepEqual(points(medians), [
      { x: 1, y: 0.9514 },
      { x: 2, y: 1.773 },
      { x: 3, y: 1.838 },
      { x: 4, y: 1.789 },
    ]);
    assert.deepEqual(medians['pointStyle'], ['circle', 'circle', 'triangle', 'triangle']);
  });

  it('draws each 95% interval as its own segment, separated by null points', () => {
    const intervals = points(dataset(datasets, 'pool 95% interval'));
    // workers=2: ci95 [1.7209, 1.8384] in the fixture.
    assert.deepEqual(intervals.slice(3, 6), [
      { x: 2, y: 1.721 },
      { x: 2, y: 1.838 },
      { x: 2, y: null },
    ]);
    assert.equal(intervals.length, 4 * 3);
  });

  it('draws the Amdahl fit from the serial fraction, the ideal line and the available CPUs', () => {
    const fit = points(dataset(datasets, 'pool Amdahl fit (serial fraction 0.11)'));
    // f = 0.11, p = 2: 1 / (0.11 + 0.445) = 1.8018
    assert.deepEqual(
      fit.find((p) => p.x === 2),
      { x: 2, y: 1.802 },
    );
    assert.equal(fit[0]?.x, 1);
    assert.equal(fit[0]?.y, 1);
    assert.deepEqual(points(dataset(datasets, 'ideal (speedup = workers)')), [
      { x: 1, y: 1 },
      { x: 5, y: 5 },
    ]);
    const cpus = points(dataset(datasets, 'available CPUs (2)'));
    assert.ok(cpus.every((p) => p.x === 2));
  });

  it('gives the same numbers as a table', () => {
    assert.deepEqual(spec.table.rows[2], ['pool', '3', '1.84', '1.72', '1.92', '61%', '2.46', 'yes']);
    assert.equal(spec.table.rows[2]?.[6], amdahlSpeedup(0.11, 3).toFixed(2));
  });
});

describe('timeDistributionChart', () => {
  const results = loadFixture();
  const spec = timeDistributionChart(selectCharts(results));
  assert.ok(spec);

  it('puts every sample of case i within i +- 0.25 and marks its median', () => {
    const samples = points(dataset(spec.config.data.datasets, 'samples'));
    assert.equal(samples.length, results.cases.reduce((n, c) => n + c.samplesMs.length, 0));
    let offset = 0;
    results.cases.forEach((c, i) => {
      const mine = samples.slice(offset, offset + c.samplesMs.length);
      offset += c.samplesMs.length;
      assert.deepEqual(mine.map((p) => p.y), c.samplesMs);
      assert.ok(mine.every((p) => typeof p.x === 'number' && Math.abs(p.x - i) <= 0.25));
    });
    const medians = points(dataset(spec.config.data.datasets, 'median'));
    assert.deepEqual(medians.slice(0, 2), [
      { x: -0.32, y: 40.9955 },
      { x: 0.32, y: 40.9955 },
    ]);
  });

  it('labels the category axis with the case names and aligns the hidden point axis with it', () => {
    const scales = spec.config.options['scales'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(scales['x']?.['labels'], [
      'inline',
      'chunked',
      'threadpool',
      'pool (workers=1)',
      'pool (workers=2)',
      'pool (workers=3)',
      'pool (workers=4)',
    ]);
    assert.equal(scales['xIndex']?.['min'], -0.5);
    assert.equal(scales['xIndex']?.['max'], results.cases.length - 0.5);
    // 20.3 ms .. 46.0 ms is less than 30x apart: a linear axis.
    assert.equal(scales['y']?.['type'], 'linear');
  });

  it('switches to a log axis when times differ by more than 30x', () => {
    const copy = structuredClone(results);
    copy.cases[0]!.summary.min = 0.5;
    const scales = timeDistributionChart(selectCharts(parseResults(copy)))?.config.options['scales'] as Record<string, Record<string, unknown>>;
    assert.equal(scales['y']?.['type'], 'logarithmic');
  });
});

describe('speedupPerCaseChart', () => {
  it('shows a bar and an interval per case without workers', () => {
    const spec = speedupPerCaseChart(selectCharts(loadFixture()));
    assert.ok(spec);
    assert.deepEqual(spec.config.data.labels, ['chunked', 'threadpool']);
    assert.deepEqual(dataset(spec.config.data.datasets, 'median speedup').data, [0.9307, 1.754]);
    assert.deepEqual(points(dataset(spec.config.data.datasets, '95% interval')).slice(0, 2), [
      { x: 0, y: 0.91 },
      { x: 0, y: 0.9551 },
    ]);
    assert.deepEqual(spec.table.rows[1], ['threadpool', 'inline', '1.75', '1.67', '1.92', 'no']);
  });
});
