/**
 * One run on show: whose run it is, its warning, its charts and its tables. In: a validated run, its warning (null
 * for a file that passed every check) and the line that says whose it is. Out: the viewer's output area filled,
 * the charts in `charts` (run-charts.ts), the words of run-text.ts as elements.
 */
import type { Results } from '@parallel-course/core';
import { element, textTable } from '../../lib/dom.ts';
import type { ResultsWarning } from '../../lib/results-file.ts';
import { type ChartPlan, chartPlan } from '../../lib/results-view.ts';
import type { ViewerElements } from './elements.ts';
import { type ChartSet, othersChart, sweepChart, workersChart } from './run-charts.ts';
import { runWords, type TextBlock, warningParts } from './run-text.ts';

export type RunViewElements = Pick<
  ViewerElements,
  'output' | 'warningBox' | 'source' | 'title' | 'summary' | 'headline' | 'sweepsHolder' | 'workersBox' | 'workersCanvas' | 'otherBox' | 'otherCanvas' | 'tableHolder'
>;

/** A block of the run's words as an element, its strings as text (lib/dom.ts). */
function blockElement(block: TextBlock): HTMLElement {
  if (block.kind === 'table') return textTable(block.caption, block.headers, block.rows, block.note);
  if (block.kind === 'paragraph') return element('p', block.text, block.className);
  const list = element('ul');
  list.append(...block.items.map((item) => element('li', item)));
  return list;
}

function showWarning(box: HTMLElement, warning: ResultsWarning | null): void {
  box.replaceChildren(...(warning === null ? [] : warningParts(warning).map(blockElement)));
  box.hidden = warning === null;
}

/** The run's charts, as chartPlan decided them: each declared sweep; speedup against workers for an older file; the rest as bars. */
function showCharts(els: RunViewElements, charts: ChartSet, plan: ChartPlan): void {
  els.sweepsHolder.replaceChildren();
  for (const sweep of plan.sweeps) sweepChart(els.sweepsHolder, sweep, charts);
  els.workersBox.hidden = plan.workers === null;
  if (plan.workers !== null) workersChart(els.workersCanvas, plan.workers, charts);
  els.otherBox.hidden = plan.others.length === 0;
  // About 3 rem per bar plus room for the axis, so two bars do not fill a whole chart.
  els.otherBox.style.height = `min(${4 + 3 * plan.others.length}rem, 80vh)`;
  if (plan.others.length > 0) othersChart(els.otherCanvas, plan.others, charts);
}

/** One run as charts and tables, under the line that says whose run it is: its words and charts first, then the page. */
export function showRun(els: RunViewElements, charts: ChartSet, results: Results, warning: ResultsWarning | null, label: string): void {
  const words = runWords(results);
  const plan = chartPlan(results);
  charts.clear();
  // Visible before the charts are made, so chart.js measures a real box.
  els.output.hidden = false;
  showWarning(els.warningBox, warning);
  els.source.textContent = label;
  els.title.textContent = results.title;
  els.summary.textContent = words.summary;
  els.headline.textContent = words.headline;
  showCharts(els, charts, plan);
  els.tableHolder.replaceChildren(...words.tables.map(blockElement));
}

/** Nothing on show: no lab picked and no file open. */
export function hideRun(els: RunViewElements, charts: ChartSet): void {
  charts.clear();
  els.output.hidden = true;
}
