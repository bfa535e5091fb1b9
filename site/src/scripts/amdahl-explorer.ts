/**
 * Behaviour of <AmdahlExplorer />: sliders -> curves -> chart and table; an optional results file adds points.
 * Data flows one way: an input changes the state (f, p and the measured points), then `render` draws them.
 */
import type { ChartDataset } from 'chart.js';
import { Chart } from '../lib/chart-setup.ts';
import { amdahlLimit, amdahlSpeedup, formatInterval, formatPercent, formatSignificant, gustafsonSpeedup, type Results, speedupCurves } from '@parallel-course/core';
import { currentTheme, followTheme, seriesColour, styleAxes, type ChartTheme } from '../lib/chart-theme.ts';
import { textTable } from '../lib/dom.ts';
import { loadErrorMessage, readResults } from '../lib/results-file-lazy.ts';
import { workerSeries, type WorkerPoint } from '../lib/results-view.ts';

type Point = { x: number; y: number };
type Curves = ReturnType<typeof speedupCurves>;
/** Measured series from a loaded results file, keyed by variant; empty until the learner loads one. */
type Measured = Map<string, WorkerPoint[]>;

interface ExplorerElements {
  fInput: HTMLInputElement;
  pInput: HTMLInputElement;
  fOut: HTMLOutputElement;
  pOut: HTMLOutputElement;
  readout: HTMLElement;
  canvas: HTMLCanvasElement;
  tableHolder: HTMLElement;
  fileInput: HTMLInputElement;
  loadStatus: HTMLElement;
}

function findElements(root: HTMLElement): ExplorerElements | null {
  const q = <T extends HTMLElement>(selector: string): T | null => root.querySelector<T>(selector);
  const els = {
    fInput: q<HTMLInputElement>('[data-ae-f]'),
    pInput: q<HTMLInputElement>('[data-ae-p]'),
    fOut: q<HTMLOutputElement>('[data-ae-f-out]'),
    pOut: q<HTMLOutputElement>('[data-ae-p-out]'),
    readout: q('[data-ae-readout]'),
    canvas: q<HTMLCanvasElement>('[data-ae-chart]'),
    tableHolder: q('[data-ae-table]'),
    fileInput: q<HTMLInputElement>('[data-ae-file]'),
    loadStatus: q('[data-ae-load-status]'),
  };
  return Object.values(els).every((el) => el !== null) ? (els as ExplorerElements) : null;
}

/** Amdahl's and Gustafson's curves in the series colours, the ideal line in its own, measured points after them. */
function styleDatasets(chart: Chart, theme: ChartTheme): void {
  styleAxes(chart, theme);
  chart.data.datasets.forEach((dataset, index) => {
    const colour = index === 2 ? theme.ideal : seriesColour(theme, index < 2 ? index : index - 1);
    dataset.borderColor = colour;
    dataset.backgroundColor = colour;
  });
}

function createChart(canvas: HTMLCanvasElement): Chart {
  const chart = new Chart(canvas, {
    type: 'line',
    data: { datasets: [] },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: false,
      scales: {
        x: { type: 'linear', min: 1, title: { display: true, text: 'workers p' } },
        y: { type: 'linear', min: 0, title: { display: true, text: 'speedup S(p)' } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });
  followTheme(chart, styleDatasets);
  return chart;
}

function readoutText(f: number, p: number): string {
  const limit = amdahlLimit(f);
  return (
    `With f = ${formatPercent(f)} and p = ${p}: Amdahl S = ${formatSignificant(amdahlSpeedup(f, p))} ` +
    `(never more than ${Number.isFinite(limit) ? formatSignificant(limit) : 'unbounded'}), ` +
    `Gustafson S = ${formatSignificant(gustafsonSpeedup(f, p))}.`
  );
}

/** The three model curves, then each measured series up to p workers as points. */
function datasetsFor(curves: Curves, measured: Measured, p: number): ChartDataset<'line', Point[]>[] {
  const datasets: ChartDataset<'line', Point[]>[] = [
    { label: 'Amdahl (fixed size)', data: curves.map((c) => ({ x: c.workers, y: c.amdahl })), pointRadius: 0, borderWidth: 2 },
    { label: 'Gustafson (scaled size)', data: curves.map((c) => ({ x: c.workers, y: c.gustafson })), pointRadius: 0, borderWidth: 2, borderDash: [6, 4] },
    { label: 'Ideal S = p', data: curves.map((c) => ({ x: c.workers, y: c.ideal })), pointRadius: 0, borderWidth: 1, borderDash: [2, 3] },
  ];
  for (const [variant, points] of measured) {
    datasets.push({
      label: `measured: ${variant}`,
      data: points.filter((pt) => pt.workers <= p).map((pt) => ({ x: pt.workers, y: pt.speedup })),
      showLine: false,
      pointRadius: 5,
      pointStyle: 'rectRot',
    });
  }
  return datasets;
}

/** The curves' table, and the learner's measured speedups when a file is loaded. */
function tablesFor(curves: Curves, measured: Measured, f: number): HTMLElement[] {
  const rows = curves.map((c) => [String(c.workers), formatSignificant(c.amdahl), formatSignificant(c.gustafson), String(c.ideal)]);
  const parts: HTMLElement[] = [textTable(`Speedup for f = ${formatPercent(f)}`, ['workers', 'Amdahl', 'Gustafson', 'ideal'], rows)];
  const measuredRows = [...measured].flatMap(([variant, points]) => points.map((pt) => [variant, String(pt.workers), formatSignificant(pt.speedup), formatInterval(pt.ci95)]));
  if (measuredRows.length > 0) parts.push(textTable('Your measured speedups', ['variant', 'workers', 'speedup', '95% interval'], measuredRows));
  return parts;
}

function render(els: ExplorerElements, chart: Chart, measured: Measured): void {
  const f = Number(els.fInput.value);
  const p = Number(els.pInput.value);
  els.fOut.value = formatPercent(f);
  els.pOut.value = String(p);
  const curves = speedupCurves(f, p);
  els.readout.textContent = readoutText(f, p);
  chart.data.datasets = datasetsFor(curves, measured, p);
  const scales = chart.options.scales;
  if (scales?.['x']) scales['x'].max = p;
  styleDatasets(chart, currentTheme());
  chart.update();
  els.tableHolder.replaceChildren(...tablesFor(curves, measured, f));
}

/** A loaded file moves the sliders to its fitted serial fraction and its largest worker count, and says so. */
function applyFile(els: ExplorerElements, results: Results, measured: Measured, fileName: string): void {
  if (measured.size === 0) {
    els.loadStatus.textContent = `${fileName} is valid but has no speedups against a "workers" parameter to overlay.`;
    return;
  }
  const fit = results.amdahl[0];
  if (fit) els.fInput.value = String(Math.min(0.5, Math.round(fit.serialFraction * 100) / 100));
  const most = Math.max(...[...measured.values()].flat().map((pt) => pt.workers));
  if (most > Number(els.pInput.value)) els.pInput.value = String(Math.min(64, most));
  els.loadStatus.textContent =
    `Loaded ${fileName} (${results.lab}, ${results.impl}, ${results.environment.availableParallelism} cores available).` +
    (fit ? ` f set to the fitted serial fraction of ${fit.variant}: ${formatSignificant(fit.serialFraction)}.` : '');
}

export function mountAmdahlExplorer(root: HTMLElement): void {
  const els = findElements(root);
  if (els === null) return;
  const chart = createChart(els.canvas);
  let measured: Measured = new Map();
  const draw = (): void => render(els, chart, measured);
  els.fInput.addEventListener('input', draw);
  els.pInput.addEventListener('input', draw);
  els.fileInput.addEventListener('change', () => {
    const file = els.fileInput.files?.[0];
    if (!file) return;
    readResults(file)
      .then((results) => {
        measured = workerSeries(results);
        applyFile(els, results, measured, file.name);
        draw();
      })
      .catch(async (error: unknown) => {
        els.loadStatus.textContent = await loadErrorMessage(error);
      });
  });
  draw();
}
