/**
 * The report stage's drawing step: pure functions from the charts' selection (select.ts's ChartSelection, made once
 * from the results) to chart.js configurations plus text tables. They present what the statistics stage computed;
 * the only arithmetic is drawing (the Amdahl curve from its fitted serial fraction, deterministic jitter). In: a
 * ChartSelection. Out: ChartSpecs, which the reporters render. Nothing here reads Results.
 */
import { amdahlSpeedup, caseLabel, type CaseResult, formatPercent, formatSignificant, type Results } from '@parallel-course/core';
import type { ChartConfig, ChartDataset, ChartPoint, ChartSpec, DataTable } from './chart-spec.ts';
import { axisTitle, BASE_OPTIONS, intervalSegments, GUIDE_GREY, round, seriesColour, title, withAlpha } from './chart-spec.ts';
import { type ChartSelection, MAX_STRIP_POINTS, selectCharts } from './select.ts';
import { sweepChartSpec } from './sweep-chart.ts';

/**
 * Deterministic jitter in [-width/2, width/2) for the `index`-th point of a strip: the fractional parts of
 * index * golden ratio spread evenly without clumping (a Weyl sequence), and the same input always draws the same plot.
 */
export function jitter(index: number, width: number): number {
  const golden = 0.618033988749895;
  const fraction = (index * golden) % 1;
  return (fraction - 0.5) * width;
}

/**
 * (a) Speedup against worker count, one series per variant with a `workers` parameter: points with their 95%
 * interval (a vertical segment with caps), the Amdahl fit, the ideal y = x and a dashed vertical line at
 * availableParallelism. Returns null when no speedup has a worker count.
 */
export function speedupVsWorkersChart(selection: ChartSelection): ChartSpec | null {
  const groups = selection.workerSeries;
  if (groups.length === 0) return null;
  const available = selection.availableParallelism;
  const maxWorkers = Math.max(available, ...groups.flatMap((g) => g.entries.map((e) => e.workers)));
  const xMax = maxWorkers + 1;
  const datasets: ChartDataset[] = [];
  const rows: string[][] = [];

  let series = 0;
  for (const { label: variant, entries, fit } of groups) {
    const colour = seriesColour(series++);
    datasets.push({
      type: 'scatter',
      label: `${variant} (median speedup)`,
      data: entries.map((e) => ({ x: e.workers, y: round(e.speedup) })),
      showLine: true,
      borderColor: colour,
      backgroundColor: colour,
      borderWidth: 2,
      pointRadius: 5,
      // Oversubscribed points are triangles, so they stand out in print as well as in colour.
      pointStyle: entries.map((e) => (e.oversubscribed ? 'triangle' : 'circle')),
    });
    datasets.push({
      type: 'line',
      label: `${variant} 95% interval`,
      data: intervalSegments(entries.map((e) => ({ x: e.workers, low: round(e.ci95[0]), high: round(e.ci95[1]) }))),
      borderColor: colour,
      backgroundColor: colour,
      borderWidth: 2,
      // A horizontal 'line' point at each end of the segment draws the error-bar caps.
      pointStyle: 'line',
      pointRadius: 7,
      pointBorderWidth: 2,
      spanGaps: false,
    });
    if (fit) {
      const curve: ChartPoint[] = [];
      for (let tenth = 10; tenth <= xMax * 10; tenth++) {
        curve.push({ x: tenth / 10, y: round(amdahlSpeedup(fit.serialFraction, tenth / 10)) });
      }
      datasets.push({
        type: 'line',
        label: `${variant} Amdahl fit (serial fraction ${formatSignificant(fit.serialFraction, 2)})`,
        data: curve,
        borderColor: colour,
        borderDash: [6, 4],
        borderWidth: 1.5,
        pointRadius: 0,
      });
    }
    for (const e of entries) {
      rows.push([
        variant,
        String(e.workers),
        formatSignificant(e.speedup),
        formatSignificant(e.ci95[0]),
        formatSignificant(e.ci95[1]),
        e.efficiency === undefined ? '' : formatPercent(e.efficiency),
        fit ? formatSignificant(amdahlSpeedup(fit.serialFraction, e.workers)) : '',
        e.oversubscribed ? 'yes' : 'no',
      ]);
    }
  }

  // Guide lines, drawn after the data so the legend lists the variants first.
  const yTop = xMax;
  datasets.push(
    {
      type: 'line',
      label: 'ideal (speedup = workers)',
      data: [{ x: 1, y: 1 }, { x: xMax, y: xMax }],
      borderColor: GUIDE_GREY,
      borderDash: [2, 3],
      borderWidth: 1.5,
      pointRadius: 0,
    },
    {
      type: 'line',
      label: `available CPUs (${available})`,
      data: [{ x: available, y: 0 }, { x: available, y: yTop }],
      borderColor: GUIDE_GREY,
      borderDash: [10, 5],
      borderWidth: 2,
      pointRadius: 0,
    },
  );

  const { baseline } = selection;
  const config: ChartConfig = {
    type: 'scatter',
    data: { datasets },
    options: {
      ...BASE_OPTIONS,
      plugins: { title: title(`${selection.lab}: speedup vs workers`), legend: { position: 'bottom' } },
      scales: {
        x: { type: 'linear', min: 0, max: xMax, ticks: { stepSize: 1 }, title: axisTitle('workers') },
        y: { type: 'linear', min: 0, suggestedMax: yTop, title: axisTitle(`speedup vs ${baseline} (×)`) },
      },
    },
  };
  return {
    id: 'speedup-vs-workers',
    title: 'Speedup vs workers',
    description:
      `Median speedup over ${baseline} with its 95% interval (vertical bars), the Amdahl fit (dashed), the ideal ` +
      `speedup = workers (dotted) and the ${available} available CPUs (dashed vertical line). Triangles mark ` +
      'oversubscribed cases: more workers than available CPUs.',
    config,
    table: {
      headers: ['variant', 'workers', 'speedup', '95% CI low', '95% CI high', 'efficiency', 'Amdahl fit', 'oversubscribed'],
      rows,
    },
  };
}

/**
 * (b) Time per sample for every case as a strip plot: samples spread sideways by a deterministic jitter, the median
 * as a short horizontal bar. The visible x axis is a category axis of case names; the points sit on a hidden linear
 * axis from -0.5 to n - 0.5, which lines up with the category centres (both are offset by half a category).
 */
export function timeDistributionChart(selection: ChartSelection): ChartSpec | null {
  const { cases } = selection;
  if (cases.length === 0) return null;
  const labels = cases.map((c) => caseLabel(c));
  const points: ChartPoint[] = [];
  selection.shownSamples.forEach((shown, i) => {
    shown.forEach((ms, k) => points.push({ x: round(i + jitter(k, 0.5)), y: ms }));
  });
  const medians = cases.flatMap((c, i) => [
    { x: i - 0.32, y: c.summary.median },
    { x: i + 0.32, y: c.summary.median },
    { x: i, y: null },
  ]);
  // A log axis when times differ by more than 30x, so fast cases are not squashed onto the floor.
  const all = cases.flatMap((c) => [c.summary.min, c.summary.max]);
  const low = Math.min(...all);
  const logarithmic = low > 0 && Math.max(...all) / low > 30;
  const thinned = cases.some((c) => c.samplesMs.length > MAX_STRIP_POINTS);

  const config: ChartConfig = {
    type: 'scatter',
    data: {
      datasets: [
        {
          type: 'scatter',
          label: thinned ? `samples (at most ${MAX_STRIP_POINTS} per case, evenly spaced ranks)` : 'samples',
          data: points,
          xAxisID: 'xIndex',
          backgroundColor: withAlpha(seriesColour(1), 0.55),
          borderColor: seriesColour(1),
          borderWidth: 0.5,
          pointRadius: 2.5,
        },
        {
          type: 'line',
          label: 'median',
          data: medians,
          xAxisID: 'xIndex',
          borderColor: seriesColour(3),
          backgroundColor: seriesColour(3),
          borderWidth: 3,
          pointRadius: 0,
          spanGaps: false,
        },
      ],
    },
    options: {
      ...BASE_OPTIONS,
      plugins: { title: title(`${selection.lab}: time per sample`), legend: { position: 'bottom' } },
      scales: {
        x: { type: 'category', labels, offset: true, grid: { display: false }, title: axisTitle('case') },
        xIndex: { type: 'linear', position: 'bottom', offset: false, display: false, min: -0.5, max: cases.length - 0.5 },
        y: {
          type: logarithmic ? 'logarithmic' : 'linear',
          ...(logarithmic ? {} : { beginAtZero: true }),
          title: axisTitle(`time per sample (ms${logarithmic ? ', log scale' : ''})`),
        },
      },
    },
  };
  return {
    id: 'time-distribution',
    title: 'Time per sample',
    description:
      'Every measured sample of every case (spread sideways so they do not overlap; the spread means nothing) ' +
      'and its median (horizontal bar). Lower is faster.',
    config,
    table: {
      headers: ['case', 'n', 'min (ms)', 'median (ms)', '95% CI low (ms)', '95% CI high (ms)', 'max (ms)', 'cv'],
      rows: cases.map((c: CaseResult) => [
        caseLabel(c),
        String(c.summary.n),
        formatSignificant(c.summary.min),
        formatSignificant(c.summary.median),
        formatSignificant(c.summary.ci95[0]),
        formatSignificant(c.summary.ci95[1]),
        formatSignificant(c.summary.max),
        formatPercent(c.summary.cv),
      ]),
    },
  };
}

/**
 * (c) Speedup per case for cases without a worker count (a size sweep, single-threaded variants): a bar per case,
 * its 95% interval as a capped vertical segment on top, and the speedup-1 line. Returns null when there are none.
 */
export function speedupPerCaseChart(selection: ChartSelection): ChartSpec | null {
  const { perCase: entries, baseline } = selection;
  if (entries.length === 0) return null;
  const labels = entries.map((e) => caseLabel(e));
  const config: ChartConfig = {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          type: 'bar',
          label: 'median speedup',
          data: entries.map((e) => round(e.speedup)),
          backgroundColor: withAlpha(seriesColour(1), 0.6),
          borderColor: seriesColour(1),
          borderWidth: 1,
          barPercentage: 0.7,
          // One bar per category: without this chart.js leaves room for a second group and shifts the bar sideways.
          grouped: false,
          xAxisID: 'x',
          order: 2,
        },
        {
          type: 'line',
          label: '95% interval',
          data: intervalSegments(entries.map((e, i) => ({ x: i, low: round(e.ci95[0]), high: round(e.ci95[1]) }))),
          xAxisID: 'xIndex',
          borderColor: seriesColour(3),
          backgroundColor: seriesColour(3),
          borderWidth: 2.5,
          pointStyle: 'line',
          pointRadius: 9,
          pointBorderWidth: 2.5,
          spanGaps: false,
          // chart.js draws the dataset with the lowest order on top: the interval over the bar.
          order: 0,
        },
        {
          type: 'line',
          label: `${baseline} (speedup = 1)`,
          data: [{ x: -0.5, y: 1 }, { x: entries.length - 0.5, y: 1 }],
          xAxisID: 'xIndex',
          borderColor: GUIDE_GREY,
          borderDash: [6, 4],
          borderWidth: 1.5,
          pointRadius: 0,
          order: 1,
        },
      ],
    },
    options: {
      ...BASE_OPTIONS,
      plugins: { title: title(`${selection.lab}: speedup per case`), legend: { position: 'bottom' } },
      scales: {
        x: { type: 'category', offset: true, title: axisTitle('case') },
        // Hidden axis under the category axis for the interval and the speedup-1 line (see timeDistributionChart).
        xIndex: { type: 'linear', position: 'bottom', offset: false, display: false, min: -0.5, max: entries.length - 0.5 },
        y: { beginAtZero: true, title: axisTitle(`speedup vs ${baseline} (×)`) },
      },
    },
  };
  return {
    id: 'speedup-per-case',
    title: 'Speedup per case',
    description: `Median speedup over ${baseline} for each case without a worker count, with its 95% interval (vertical bar with caps). Above 1 is faster.`,
    config,
    table: {
      headers: ['case', 'vs', 'speedup', '95% CI low', '95% CI high', 'oversubscribed'],
      rows: entries.map((e) => [
        caseLabel(e),
        e.baseline,
        formatSignificant(e.speedup),
        formatSignificant(e.ci95[0]),
        formatSignificant(e.ci95[1]),
        e.oversubscribed ? 'yes' : 'no',
      ]),
    },
  };
}

/**
 * Every chart of a selection, in report order: a file with declared sweeps gets one chart per sweep (and bars for the
 * speedups no sweep shows); an older file without them keeps the worker chart it always had.
 */
export function chartSpecs(selection: ChartSelection): ChartSpec[] {
  const workers = speedupVsWorkersChart(selection);
  const perCase = speedupPerCaseChart(selection);
  const times = timeDistributionChart(selection);
  const sweeps = selection.sweeps.map((sweep, i) => sweepChartSpec(selection.lab, sweep, i));
  return [workers, ...sweeps, perCase, times].filter((spec): spec is ChartSpec => spec !== null);
}

/** Every chart that applies to these results: select, then draw (for a caller that holds only the results). */
export function buildCharts(results: Results): ChartSpec[] {
  return chartSpecs(selectCharts(results));
}

export type { ChartSpec, DataTable };
