/**
 * Behaviour of <ResultsViewer />: file -> schema validation -> the validator's checks -> charts and tables (text only,
 * never HTML). A file with a failed check, or whose numbers do not recompute from its samples, is still shown, under
 * a warning that says so in words (role="alert").
 */
import type { ChartDataset } from 'chart.js';
import type { Results } from '@parallel-course/harness/results-schema.ts';
import type { ResultsWarning } from '../lib/results-file.ts';
import { Chart } from '../lib/chart-setup.ts';
import { amdahlSpeedup } from '../lib/amdahl.ts';
import { currentTheme, followTheme, seriesColour, styleAxes, type ChartTheme } from '../lib/chart-theme.ts';
import { element, textTable } from '../lib/dom.ts';
import {
  caseLabel,
  formatInterval,
  formatNumber,
  maxWorkers,
  otherSpeedups,
  paramsLabel,
  warningText,
  workerSeries,
} from '../lib/results-view.ts';

type Point = { x: number; y: number };

function describeRun(results: Results): string {
  const env = results.environment;
  return (
    `Lab ${results.lab}, implementation "${results.impl}"${results.quick ? ' (quick run)' : ''}, ` +
    `started ${results.startedAt} on ${env.cpuModel} with ${env.availableParallelism} CPUs available ` +
    `(Node ${env.node}).`
  );
}

function describeHeadline(results: Results): string {
  const h = results.headline;
  if (!h) return 'This run has no headline result (for example because a variant failed its check).';
  return (
    `Headline: ${caseLabel(h.variant, h.params)} is ${formatNumber(h.speedup)}x ${h.baseline} ` +
    `(95% interval ${formatInterval(h.ci95)})${h.efficiency !== undefined ? `, efficiency ${formatNumber(h.efficiency)}` : ''}.`
  );
}

function tables(results: Results): HTMLElement[] {
  const speedups = textTable(
    'Speedups',
    ['variant', 'parameters', 'speedup', '95% interval', 'efficiency', 'Karp-Flatt f', 'note'],
    results.speedups.map((s) => [
      s.variant,
      paramsLabel(s.params),
      formatNumber(s.speedup),
      formatInterval(s.ci95),
      s.efficiency === undefined ? '' : formatNumber(s.efficiency),
      s.karpFlatt === undefined ? '' : formatNumber(s.karpFlatt),
      s.oversubscribed ? 'oversubscribed' : '',
    ]),
    'Speedup = median baseline time / median variant time: above 1 is faster. Oversubscribed: more workers than CPUs.',
  );
  const cases = textTable(
    'Time per sample (ms)',
    ['variant', 'parameters', 'samples', 'median', '95% interval', 'CV', 'outliers (high)', 'note'],
    results.cases.map((c) => [
      c.variant,
      paramsLabel(c.params),
      String(c.summary.n),
      formatNumber(c.summary.median),
      formatInterval(c.summary.ci95),
      formatNumber(c.summary.cv),
      String(c.summary.outliers.highMild + c.summary.outliers.highSevere),
      [c.summary.noisy ? 'noisy' : '', c.oversubscribed ? 'oversubscribed' : ''].filter(Boolean).join(', '),
    ]),
  );
  const correctness = textTable(
    'Correctness check',
    ['variant', 'parameters', 'passed', 'comparator', 'reason'],
    results.correctness.map((c) => [c.variant, paramsLabel(c.params), c.passed ? 'yes' : 'NO', c.comparator, c.reason ?? '']),
    'Only variants that passed the check were timed.',
  );
  const env = results.environment;
  const environment = textTable('Environment', ['property', 'value'], [
    ['CPU', env.cpuModel],
    ['CPUs (os.cpus)', String(env.cpuCount)],
    ['available parallelism', String(env.availableParallelism)],
    ['cgroup CPU quota', env.cgroupCpuQuota === null ? 'none' : String(env.cgroupCpuQuota)],
    ['CPU affinity', env.cpuAffinity ?? 'unknown'],
    ['Node / V8 / libuv', `${env.node} / ${env.v8} / ${env.uv}`],
    ['OS', `${env.platform} ${env.arch} ${env.osRelease}`],
    ['UV_THREADPOOL_SIZE', env.uvThreadpoolSize ?? 'default'],
    ['git commit', `${env.git.commit ?? 'unknown'}${env.git.dirty ? ' (uncommitted changes)' : ''}`],
    ['GPUs', env.gpus.length === 0 ? 'none found' : env.gpus.map((g) => g.name).join(', ')],
    ['Slurm', Object.keys(env.slurm).length === 0 ? 'not under Slurm' : Object.entries(env.slurm).map(([k, v]) => `${k}=${v}`).join(' ')],
    ['harness overhead per sample (ms)', formatNumber(results.harnessOverheadMs)],
    ['command', results.command],
  ]);
  const parts: HTMLElement[] = [speedups, cases, correctness, environment];
  if (results.notes.length > 0) {
    const list = element('ul');
    for (const note of results.notes) list.append(element('li', note));
    parts.push(element('p', 'Notes from the run:'), list);
  }
  return parts;
}

export function mountResultsViewer(root: HTMLElement): void {
  const fileInput = root.querySelector<HTMLInputElement>('[data-rv-file]');
  const errorBox = root.querySelector<HTMLElement>('[data-rv-error]');
  const warningBox = root.querySelector<HTMLElement>('[data-rv-warning]');
  const output = root.querySelector<HTMLElement>('[data-rv-output]');
  const title = root.querySelector<HTMLElement>('[data-rv-title]');
  const summary = root.querySelector<HTMLElement>('[data-rv-summary]');
  const headline = root.querySelector<HTMLElement>('[data-rv-headline]');
  const workersBox = root.querySelector<HTMLElement>('[data-rv-workers-box]');
  const workersCanvas = root.querySelector<HTMLCanvasElement>('[data-rv-workers-chart]');
  const otherBox = root.querySelector<HTMLElement>('[data-rv-other-box]');
  const otherCanvas = root.querySelector<HTMLCanvasElement>('[data-rv-other-chart]');
  const tableHolder = root.querySelector<HTMLElement>('[data-rv-tables]');
  if (!fileInput || !errorBox || !output || !title || !summary || !headline || !workersBox || !workersCanvas) return;
  if (!otherBox || !otherCanvas || !tableHolder || !warningBox) return;

  // Charts of the file on show, each with the function that stops it following the theme.
  let charts: { chart: Chart; unfollow: () => void }[] = [];

  const restyleLines = (chart: Chart, theme: ChartTheme): void => {
    styleAxes(chart, theme);
    let seriesIndex = 0;
    for (const dataset of chart.data.datasets) {
      const colour = dataset.label === 'ideal S = p' ? theme.ideal : seriesColour(theme, seriesIndex++);
      dataset.borderColor = colour;
      dataset.backgroundColor = colour;
    }
  };

  /** The warning above the results, or none for a file that passed every check. */
  const showWarning = (warning: ResultsWarning | null): void => {
    if (warning === null) {
      warningBox.replaceChildren();
      warningBox.hidden = true;
      return;
    }
    const text = warningText(warning);
    const parts: HTMLElement[] = [element('p', text.title, 'rv-warning-title')];
    for (const sentence of text.sentences) parts.push(element('p', sentence));
    const list = element('ul');
    for (const item of text.items) list.append(element('li', item));
    parts.push(list);
    if (text.more > 0) parts.push(element('p', `… and ${text.more} more: "npm run report -- validate <file>" lists them all.`));
    warningBox.replaceChildren(...parts);
    warningBox.hidden = false;
  };

  const show = (results: Results, warning: ResultsWarning | null): void => {
    for (const { chart, unfollow } of charts) {
      unfollow();
      chart.destroy();
    }
    charts = [];
    // Visible before the charts are made, so chart.js measures a real box.
    errorBox.hidden = true;
    output.hidden = false;
    showWarning(warning);
    title.textContent = results.title;
    summary.textContent = describeRun(results);
    headline.textContent = describeHeadline(results);

    const series = workerSeries(results);
    workersBox.hidden = series.size === 0;
    if (series.size > 0) {
      const top = maxWorkers(results);
      const datasets: ChartDataset<'line', Point[]>[] = [];
      for (const [name, points] of series) {
        datasets.push({ label: name, data: points.map((p) => ({ x: p.workers, y: p.speedup })), pointRadius: 4, borderWidth: 2 });
      }
      datasets.push({ label: 'ideal S = p', data: [{ x: 1, y: 1 }, { x: top, y: top }], pointRadius: 0, borderWidth: 1, borderDash: [2, 3] });
      for (const fit of results.amdahl) {
        const xs = Array.from({ length: top }, (_, i) => i + 1);
        datasets.push({
          label: `Amdahl fit ${fit.variant} (f = ${formatNumber(fit.serialFraction)})`,
          data: xs.map((x) => ({ x, y: amdahlSpeedup(fit.serialFraction, x) })),
          pointRadius: 0,
          borderWidth: 1,
          borderDash: [6, 4],
        });
      }
      const chart = new Chart(workersCanvas, {
        type: 'line',
        data: { datasets },
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
      });
      restyleLines(chart, currentTheme());
      chart.update();
      charts.push({ chart, unfollow: followTheme(chart, restyleLines) });
    }

    const others = otherSpeedups(results);
    otherBox.hidden = others.length === 0;
    // About 3 rem per bar plus room for the axis, so two bars do not fill a whole chart.
    otherBox.style.height = `${4 + 3 * others.length}rem`;
    if (others.length > 0) {
      const chart = new Chart(otherCanvas, {
        type: 'bar',
        data: {
          labels: others.map((s) => caseLabel(s.variant, s.params)),
          datasets: [{ label: 'speedup', data: others.map((s) => s.speedup) }],
        },
        options: {
          animation: false,
          maintainAspectRatio: false,
          indexAxis: 'y',
          scales: { x: { min: 0, title: { display: true, text: 'speedup' } } },
          plugins: { legend: { display: false } },
        },
      });
      restyleLines(chart, currentTheme());
      chart.update();
      charts.push({ chart, unfollow: followTheme(chart, restyleLines) });
    }

    tableHolder.replaceChildren(...tables(results));
  };

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    // The schema (zod) loads only when a file is opened, keeping it out of the page's first download.
    import('../lib/results-file.ts')
      .then(async ({ readResultsFile, checkResultsFile }) => {
        const results = await readResultsFile(file);
        show(results, checkResultsFile(results));
      })
      .catch(async (error: unknown) => {
        const message = await import('../lib/results-file.ts').then(
          ({ describeLoadError }) => describeLoadError(error),
          () => `Could not load the results reader: ${error instanceof Error ? error.message : String(error)}`,
        );
        output.hidden = true;
        errorBox.replaceChildren(element('pre', message));
        errorBox.hidden = false;
      });
  });
}
