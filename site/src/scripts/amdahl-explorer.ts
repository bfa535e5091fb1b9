/** Behaviour of <AmdahlExplorer />: sliders -> curves -> chart and table; an optional results file adds points. */
import type { ChartDataset } from 'chart.js';
import { Chart } from '../lib/chart-setup.ts';
import { amdahlLimit, amdahlSpeedup, formatInterval, formatSignificant, gustafsonSpeedup, speedupCurves } from '@parallel-course/core';
import { currentTheme, followTheme, seriesColour, styleAxes, type ChartTheme } from '../lib/chart-theme.ts';
import { textTable } from '../lib/dom.ts';
import { workerSeries, type WorkerPoint } from '../lib/results-view.ts';

type Point = { x: number; y: number };

export function mountAmdahlExplorer(root: HTMLElement): void {
  const fInput = root.querySelector<HTMLInputElement>('[data-ae-f]');
  const pInput = root.querySelector<HTMLInputElement>('[data-ae-p]');
  const fOut = root.querySelector<HTMLOutputElement>('[data-ae-f-out]');
  const pOut = root.querySelector<HTMLOutputElement>('[data-ae-p-out]');
  const readout = root.querySelector<HTMLElement>('[data-ae-readout]');
  const canvas = root.querySelector<HTMLCanvasElement>('[data-ae-chart]');
  const tableHolder = root.querySelector<HTMLElement>('[data-ae-table]');
  const fileInput = root.querySelector<HTMLInputElement>('[data-ae-file]');
  const loadStatus = root.querySelector<HTMLElement>('[data-ae-load-status]');
  if (!fInput || !pInput || !fOut || !pOut || !readout || !canvas || !tableHolder || !fileInput || !loadStatus) return;

  // Measured series from a loaded results file, keyed by variant; empty until the learner loads one.
  let measured = new Map<string, WorkerPoint[]>();

  const styleDatasets = (chart: Chart, theme: ChartTheme): void => {
    styleAxes(chart, theme);
    chart.data.datasets.forEach((dataset, index) => {
      const colour = index === 2 ? theme.ideal : seriesColour(theme, index < 2 ? index : index - 1);
      dataset.borderColor = colour;
      dataset.backgroundColor = colour;
    });
  };

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

  const render = (): void => {
    const f = Number(fInput.value);
    const p = Number(pInput.value);
    fOut.value = `${Math.round(f * 100)}%`;
    pOut.value = String(p);
    const curves = speedupCurves(f, p);
    const limit = amdahlLimit(f);
    readout.textContent =
      `With f = ${Math.round(f * 100)}% and p = ${p}: Amdahl S = ${formatSignificant(amdahlSpeedup(f, p))} ` +
      `(never more than ${Number.isFinite(limit) ? formatSignificant(limit) : 'unbounded'}), ` +
      `Gustafson S = ${formatSignificant(gustafsonSpeedup(f, p))}.`;

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
    chart.data.datasets = datasets;
    const scales = chart.options.scales;
    if (scales?.['x']) scales['x'].max = p;
    styleDatasets(chart, currentTheme());
    chart.update();

    const rows = curves.map((c) => [String(c.workers), formatSignificant(c.amdahl), formatSignificant(c.gustafson), String(c.ideal)]);
    const table = textTable(`Speedup for f = ${Math.round(f * 100)}%`, ['workers', 'Amdahl', 'Gustafson', 'ideal'], rows);
    const measuredRows: string[][] = [];
    for (const [variant, points] of measured) {
      for (const pt of points) {
        measuredRows.push([variant, String(pt.workers), formatSignificant(pt.speedup), formatInterval(pt.ci95)]);
      }
    }
    const parts: HTMLElement[] = [table];
    if (measuredRows.length > 0) {
      parts.push(textTable('Your measured speedups', ['variant', 'workers', 'speedup', '95% interval'], measuredRows));
    }
    tableHolder.replaceChildren(...parts);
  };

  fInput.addEventListener('input', render);
  pInput.addEventListener('input', render);
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    // The schema (zod) loads only when a file is opened, keeping it out of the page's first download.
    import('../lib/results-file.ts')
      .then(({ readResultsFile }) => readResultsFile(file))
      .then((results) => {
        measured = workerSeries(results);
        if (measured.size === 0) {
          loadStatus.textContent = `${file.name} is valid but has no speedups against a "workers" parameter to overlay.`;
        } else {
          const fit = results.amdahl[0];
          if (fit) fInput.value = String(Math.min(0.5, Math.round(fit.serialFraction * 100) / 100));
          const most = Math.max(...[...measured.values()].flat().map((pt) => pt.workers));
          if (most > Number(pInput.value)) pInput.value = String(Math.min(64, most));
          loadStatus.textContent =
            `Loaded ${file.name} (${results.lab}, ${results.impl}, ${results.environment.availableParallelism} cores available).` +
            (fit ? ` f set to the fitted serial fraction of ${fit.variant}: ${formatSignificant(fit.serialFraction)}.` : '');
        }
        render();
      })
      .catch(async (error: unknown) => {
        const message = await import('../lib/results-file.ts').then(
          ({ describeLoadError }) => describeLoadError(error),
          () => `Could not load the results reader: ${error instanceof Error ? error.message : String(error)}`,
        );
        loadStatus.textContent = message;
      });
  });
  render();
}
