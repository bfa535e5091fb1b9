/**
 * Stage "render charts" of the results viewer. In: a run's chart plan (lib/results-view.ts `chartPlan`: its sweeps,
 * its speedups against workers, the rest) and the canvases to draw on. Out: chart.js charts that follow the site's
 * theme, kept in a ChartSet so the next run on show removes them. Every chart has a table with the same numbers
 * (run-text.ts).
 */
import type { ChartDataset } from 'chart.js';
import { amdahlSpeedup, caseLabel, formatSignificant, type SpeedupEntry, type SweepChart } from '@parallel-course/core';
import { Chart } from '../../lib/chart-setup.ts';
import { type BarWithErrors, errorBarsPlugin } from '../../lib/error-bars.ts';
import { currentTheme, followTheme, seriesColour, styleAxes, type ChartTheme } from '../../lib/chart-theme.ts';
import { element } from '../../lib/dom.ts';
import type { WorkersPlan } from '../../lib/results-view.ts';

type Point = { x: number; y: number };

/** The charts of the run on show. */
export interface ChartSet {
  /** Styles `chart` for the current theme and keeps it following the theme until `clear`. */
  add(chart: Chart): void;
  /** Stops and destroys every chart added. */
  clear(): void;
}

const IDEAL_LABEL = 'ideal S = p';

function restyleLines(chart: Chart, theme: ChartTheme): void {
  styleAxes(chart, theme);
  let seriesIndex = 0;
  for (const dataset of chart.data.datasets) {
    const colour = dataset.label === IDEAL_LABEL ? theme.ideal : seriesColour(theme, seriesIndex++);
    dataset.borderColor = colour;
    dataset.backgroundColor = colour;
  }
}

export function chartSet(): ChartSet {
  let charts: { chart: Chart; unfollow: () => void }[] = [];
  return {
    add(chart) {
      restyleLines(chart, currentTheme());
      chart.update();
      charts.push({ chart, unfollow: followTheme(chart, restyleLines) });
    },
    clear() {
      for (const { chart, unfollow } of charts) {
        unfollow();
        chart.destroy();
      }
      charts = [];
    },
  };
}

/** The x axis of a sweep's chart: linear, or logarithmic with a tick at each swept value for powers of two. */
function sweepXAxis(sweep: SweepChart, xs: readonly number[]): Record<string, unknown> {
  const title = { display: true, text: sweep.axis === 'linear' ? sweep.sweep.param : `${sweep.sweep.param} (log scale)` };
  if (sweep.axis === 'linear') return { type: 'linear', title };
  return {
    type: 'logarithmic',
    min: xs[0]! / 1.2,
    max: xs[xs.length - 1]! * 1.2,
    title,
    // Powers of two: a tick at each swept value, not at 1, 2, 5, 10.
    ...(sweep.axis === 'log2' ? { afterBuildTicks: (axis: { ticks: { value: number }[] }) => { axis.ticks = xs.map((value) => ({ value })); } } : {}),
  };
}

/** One declared sweep as a line chart over its param, in a new box in `holder`; its data also on the box, for the browser test. */
export function sweepChart(holder: HTMLElement, sweep: SweepChart, charts: ChartSet): void {
  const box = element('div', undefined, 'chart-box');
  box.dataset['rvSweep'] = sweep.sweep.param;
  box.dataset['rvSweepData'] = JSON.stringify(sweep.curves.map((c) => ({ label: c.label, points: c.points.map((p) => [p.x, p.y]) })));
  const canvas = element('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${sweep.sweep.title}; the speedup table below holds the same numbers.`);
  box.append(canvas);
  holder.append(box);
  const xs = [...new Set(sweep.curves.flatMap((c) => c.points.map((p) => p.x)))].sort((a, b) => a - b);
  const datasets: ChartDataset<'line', Point[]>[] = sweep.curves.map((c) => ({ label: c.label, data: c.points.map((p) => ({ x: p.x, y: p.y })), pointRadius: 4, borderWidth: 2 }));
  charts.add(
    new Chart(canvas, {
      type: 'line',
      data: { datasets },
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        scales: { x: sweepXAxis(sweep, xs), y: { type: 'linear', min: 0, title: { display: true, text: sweep.yTitle } } },
        plugins: { title: { display: true, text: sweep.sweep.title }, legend: { position: 'bottom' } },
      },
    }),
  );
}

/** Each series's points, the ideal line up to `top` workers and each variant's Amdahl fit. */
function workerDatasets({ series, top, fits }: WorkersPlan): ChartDataset<'line', Point[]>[] {
  const datasets: ChartDataset<'line', Point[]>[] = [];
  for (const [name, points] of series) {
    datasets.push({ label: name, data: points.map((p) => ({ x: p.workers, y: p.speedup })), pointRadius: 4, borderWidth: 2 });
  }
  datasets.push({ label: IDEAL_LABEL, data: [{ x: 1, y: 1 }, { x: top, y: top }], pointRadius: 0, borderWidth: 1, borderDash: [2, 3] });
  for (const fit of fits) {
    const xs = Array.from({ length: top }, (_, i) => i + 1);
    datasets.push({
      label: `Amdahl fit ${fit.variant} (f = ${formatSignificant(fit.serialFraction)})`,
      data: xs.map((x) => ({ x, y: amdahlSpeedup(fit.serialFraction, x) })),
      pointRadius: 0,
      borderWidth: 1,
      borderDash: [6, 4],
    });
  }
  return datasets;
}

/** Speedup against workers (an older file without declared sweeps), with the ideal line and the Amdahl fits. */
export function workersChart(canvas: HTMLCanvasElement, workers: WorkersPlan, charts: ChartSet): void {
  const { top } = workers;
  charts.add(
    new Chart(canvas, {
      type: 'line',
      data: { datasets: workerDatasets(workers) },
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        scales: {
          x: { type: 'linear', min: 1, max: top, ticks: { stepSize: 1 }, title: { display: true, text: 'workers' } },
          y: { type: 'linear', min: 0, title: { display: true, text: 'speedup' } },
        },
        plugins: { legend: { position: 'bottom' } },
      },
    }),
  );
}

/** The speedups outside any sweep as horizontal bars, each with its 95% interval as a whisker (error-bars.ts). */
export function othersChart(canvas: HTMLCanvasElement, others: readonly SpeedupEntry[], charts: ChartSet): void {
  charts.add(
    new Chart(canvas, {
      type: 'bar',
      data: {
        labels: others.map((s) => caseLabel(s)),
        datasets: [{ label: 'speedup', data: others.map((s) => s.speedup), errorBars: others.map((s) => [s.ci95[0], s.ci95[1]] as const) } as BarWithErrors],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        indexAxis: 'y',
        scales: { x: { min: 0, suggestedMax: Math.max(...others.map((s) => s.ci95[1])) * 1.05, title: { display: true, text: 'speedup (whiskers: 95% interval)' } } },
        plugins: { legend: { display: false } },
      },
      plugins: [errorBarsPlugin(() => currentTheme().text)],
    }),
  );
}
