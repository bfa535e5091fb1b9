/**
 * One run on show: whose run it is, its warning, its charts and its tables. In: a validated run, its warning (null
 * for a file that passed every check) and the line that says whose it is. Out: the viewer's output area filled,
 * the charts in `charts` (run-charts.ts), the text from run-text.ts.
 */
import { type Results, speedupsOutsideSweeps, sweepCharts } from '@parallel-course/core';
import type { ResultsWarning } from '../../lib/results-file.ts';
import { maxWorkers, otherSpeedups, workerSeries } from '../../lib/results-view.ts';
import type { ViewerElements } from './elements.ts';
import { type ChartSet, othersChart, sweepChart, workersChart } from './run-charts.ts';
import { describeHeadline, describeRun, runTables, warningParts } from './run-text.ts';

export type RunViewElements = Pick<
  ViewerElements,
  'output' | 'warningBox' | 'source' | 'title' | 'summary' | 'headline' | 'sweepsHolder' | 'workersBox' | 'workersCanvas' | 'otherBox' | 'otherCanvas' | 'tableHolder'
>;

function showWarning(box: HTMLElement, warning: ResultsWarning | null): void {
  box.replaceChildren(...(warning === null ? [] : warningParts(warning)));
  box.hidden = warning === null;
}

/** One run as charts and tables, under the line that says whose run it is. */
export function showRun(els: RunViewElements, charts: ChartSet, results: Results, warning: ResultsWarning | null, label: string): void {
  charts.clear();
  // Visible before the charts are made, so chart.js measures a real box.
  els.output.hidden = false;
  showWarning(els.warningBox, warning);
  els.source.textContent = label;
  els.title.textContent = results.title;
  els.summary.textContent = describeRun(results);
  els.headline.textContent = describeHeadline(results);

  // The lab's declared sweeps (results.sweeps), each as curves over its own param; an older file without them keeps
  // the chart against params.workers.
  els.sweepsHolder.replaceChildren();
  for (const sweep of sweepCharts(results)) sweepChart(els.sweepsHolder, sweep, charts);
  const series: ReturnType<typeof workerSeries> = results.sweeps.length > 0 ? new Map() : workerSeries(results);
  els.workersBox.hidden = series.size === 0;
  if (series.size > 0) workersChart(els.workersCanvas, results, series, maxWorkers(results), charts);

  const others = results.sweeps.length > 0 ? speedupsOutsideSweeps(results) : otherSpeedups(results);
  els.otherBox.hidden = others.length === 0;
  // About 3 rem per bar plus room for the axis, so two bars do not fill a whole chart.
  els.otherBox.style.height = `min(${4 + 3 * others.length}rem, 80vh)`;
  if (others.length > 0) othersChart(els.otherCanvas, others, charts);

  els.tableHolder.replaceChildren(...runTables(results));
}

/** Nothing on show: no lab picked and no file open. */
export function hideRun(els: RunViewElements, charts: ChartSet): void {
  charts.clear();
  els.output.hidden = true;
}
