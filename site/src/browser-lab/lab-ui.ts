/**
 * The page side of an in-page lab: Run and Quick run start it (on a click only), a progress bar and a status line
 * follow it, Stop ends it at once (workers terminated), and the outcome is a chart, tables, the verdicts and a
 * results file to download (the harness's schema, `runtime: "browser"`), which the results viewer opens.
 * Cases this browser cannot run are listed with the reason before anything runs.
 */
import { Chart } from '../lib/chart-setup.ts';
import { currentTheme, followTheme, seriesColour, styleAxes } from '../lib/chart-theme.ts';
import { element, textTable } from '../lib/dom.ts';
import { caseLabel, formatSignificant, sameCase, type Results } from './core-adapter.ts';
import type { BrowserLab } from './lab-types.ts';
import { roundsFor, roundsOverride, runBrowserLab } from './runner.ts';
import { verdict } from './verdict.ts';
import { type BarWithErrors, errorBarsPlugin } from '../lib/error-bars.ts';

type ViewedLab = Pick<BrowserLab<unknown>, 'logAxis' | 'lead' | 'rounds'>;

/** The medians as bars, each with its 95% interval as a whisker (error-bars.ts); the intervals also on the canvas, for the tests. */
function medianChart(results: Results, lab: ViewedLab): HTMLElement {
  const canvas = element('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'Median time per sample of each case, with its 95% interval; the table below has the numbers');
  // The axis's kind, for the tests and for anyone reading the page's source.
  canvas.dataset['blAxis'] = lab.logAxis ? 'logarithmic' : 'linear';
  const chartBox = element('div', undefined, 'bl-chart');
  chartBox.append(canvas);
  const theme = currentTheme();
  const medians: BarWithErrors = {
    label: 'median time per sample (ms), whisker: 95% interval',
    data: results.cases.map((c) => c.summary.median),
    errorBars: results.cases.map((c) => [c.summary.ci95[0], c.summary.ci95[1]] as const),
    backgroundColor: seriesColour(theme, 0),
  };
  const top = Math.max(...results.cases.map((c) => c.summary.ci95[1]));
  const chart = new Chart(canvas, {
    type: 'bar',
    data: { labels: results.cases.map((c) => caseLabel(c)), datasets: [medians] },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: {},
        y: lab.logAxis
          ? { type: 'logarithmic', suggestedMax: top * 1.2, title: { display: true, text: 'ms per sample, log scale (whiskers: 95% interval of the median)' } }
          : { beginAtZero: true, suggestedMax: top * 1.05, title: { display: true, text: 'ms per sample (whiskers: 95% interval of the median)' } },
      },
    },
    plugins: [errorBarsPlugin(() => currentTheme().text)],
  });
  canvas.dataset['blIntervals'] = JSON.stringify(results.cases.map((c) => [caseLabel(c), c.summary.median, c.summary.ci95]));
  styleAxes(chart, theme);
  chart.update();
  followTheme(chart, styleAxes);
  return chartBox;
}

/** Every speedup with its interval and its verdict in words (verdict.ts). */
function verdictList(results: Results, lab: ViewedLab): HTMLElement {
  const verdicts = element('ul', undefined, 'bl-verdicts');
  for (const s of results.speedups) {
    const eff = s.efficiency !== undefined ? `, efficiency ${formatSignificant(s.efficiency)}` : '';
    const samples = results.cases.find((c) => sameCase(c, s))?.samplesMs.length ?? 0;
    const said = verdict(s.ci95, { speedup: s.speedup, samples, quick: results.quick, fullRounds: roundsFor(false, lab) });
    verdicts.append(element('li', `${caseLabel(s)}: ${formatSignificant(s.speedup)}x ${s.baseline} (95% interval ${formatSignificant(s.ci95[0])} to ${formatSignificant(s.ci95[1])}): ${said}${eff}${s.oversubscribed ? ' (more workers than CPUs)' : ''}`));
  }
  return verdicts;
}

/** A case's observations other than hiddenTab, each as p50 / p99 / max in its unit. */
function observationsText(c: Results['cases'][number]): string {
  return Object.entries(c.observations)
    .filter(([name]) => name !== 'hiddenTab')
    .map(([name, o]) => (o.p99 === null ? `${name}: none` : `${name} p50 ${formatSignificant(o.p50 ?? 0)} / p99 ${formatSignificant(o.p99)} / max ${formatSignificant(o.max ?? 0)} ${o.unit}`))
    .join('; ');
}

function caseTable(results: Results): HTMLElement {
  return textTable(
    'Your run: time per sample (ms)',
    ['case', 'samples', 'median', '95% interval', 'robust CV', 'hidden-tab samples', 'other observations'],
    results.cases.map((c) => [
      caseLabel(c),
      String(c.summary.n),
      formatSignificant(c.summary.median),
      `${formatSignificant(c.summary.ci95[0])} to ${formatSignificant(c.summary.ci95[1])}`,
      formatSignificant(c.summary.robustCv),
      String((c.observations['hiddenTab']?.samples ?? []).filter((v) => v > 0).length),
      observationsText(c),
    ]),
  );
}

function resultsView(results: Results, lab: ViewedLab): HTMLElement {
  // First what the episode teaches, in its own quantity (the lab's lead: episode 05 puts the page's responsiveness
  // beside the throughput), then every speedup with its verdict.
  const lead = element('div', undefined, 'bl-lead-box');
  for (const sentence of lab.lead?.(results) ?? []) lead.append(element('p', sentence, 'bl-lead'));
  const checks = textTable(
    'Correct before timed: every case against its expected output, every timed sample checked',
    ['case', 'passed', 'reason'],
    results.correctness.map((c) => [caseLabel(c), c.passed ? 'yes' : 'NO', c.reason ?? '']),
  );
  const notes = element('ul', undefined, 'bl-notes');
  for (const note of results.notes) notes.append(element('li', note));
  const box = element('div', undefined, 'bl-results');
  box.append(lead, medianChart(results, lab), verdictList(results, lab), caseTable(results), checks, notes);
  return box;
}

/** The results file as a download link (a Blob URL: nothing leaves the browser). */
function downloadLink(results: Results): HTMLAnchorElement {
  const blob = new Blob([`${JSON.stringify(results, null, 2)}\n`], { type: 'application/json' });
  const link = element('a', 'Download the results file (opens in the results viewer; npm run report -- validate checks it)');
  link.href = URL.createObjectURL(blob);
  link.download = `results-${results.lab}-browser.json`;
  link.dataset['blDownload'] = '';
  return link;
}

function finishedText(results: Results): string {
  const failed = results.correctness.filter((c) => !c.passed).length;
  return failed === 0 ? `Done: every case passed its check; ${results.cases.length} cases timed.` : `Done, but ${failed} case(s) failed their check and were not timed: see the table.`;
}

/** What a lab's section adds around its runs (the coding exercise, exercise-ui.ts). */
export interface RunHooks {
  /** Before a run: null to go on, or why the run does not start (shown in the status line). */
  beforeRun?(signal: AbortSignal): Promise<string | null>;
  /** After a run: its results, or null and the error when it failed (null and null when it was stopped or did not start). */
  afterRun?(results: Results | null, error: unknown): void;
}

/** The cases this browser cannot run, each with why, then the lab's notes. */
function offLines(preview: BrowserLab<unknown>): HTMLElement[] {
  return [
    ...preview.cases.filter((c) => c.unavailable !== null).map((c) => element('li', `${caseLabel(c)}: off in this browser, ${c.unavailable}`)),
    ...preview.notes.map((note) => element('li', note)),
  ];
}

/** One lab's section: its buttons and areas (BrowserLab.astro), and the run in progress, if any. */
interface LabSection {
  root: HTMLElement;
  run: HTMLButtonElement;
  quick: HTMLButtonElement;
  stop: HTMLButtonElement;
  progress: HTMLProgressElement;
  status: HTMLElement;
  out: HTMLElement;
  controller: AbortController | null;
}

/** One run, from the click to its results on the page (or why it stopped, failed or did not start). */
async function startRun<O>(section: LabSection, makeLab: (quick: boolean) => BrowserLab<O>, hooks: RunHooks, isQuick: boolean): Promise<void> {
  if (section.controller) return;
  const { root, run, quick, stop, progress, status, out } = section;
  const controller = (section.controller = new AbortController());
  root.dataset['state'] = 'running';
  run.disabled = quick.disabled = true;
  stop.disabled = false;
  progress.hidden = false;
  out.replaceChildren();
  let results: Results | null = null;
  let failure: unknown = null;
  try {
    if (hooks.beforeRun) {
      status.textContent = 'trying your code once, in a worker';
      const problem = await hooks.beforeRun(controller.signal);
      if (controller.signal.aborted) throw new DOMException('the run was stopped', 'AbortError');
      if (problem !== null) {
        status.textContent = problem;
        root.dataset['state'] = 'code-error';
        return;
      }
    }
    const rounds = roundsOverride(root.dataset['blRounds']);
    const lab = makeLab(isQuick);
    results = await runBrowserLab(lab, {
      quick: isQuick,
      ...(rounds !== null ? { rounds } : {}),
      signal: controller.signal,
      onProgress(text, fraction) {
        status.textContent = text;
        progress.value = fraction;
      },
    });
    status.textContent = finishedText(results);
    out.append(downloadLink(results), resultsView(results, lab));
    root.dataset['state'] = 'done';
  } catch (error) {
    const aborted = controller.signal.aborted;
    if (!aborted) failure = error;
    status.textContent = aborted ? 'Stopped: the workers were ended, nothing was recorded.' : `The run failed: ${(error as Error)?.message ?? String(error)}`;
    root.dataset['state'] = aborted ? 'stopped' : 'failed';
  } finally {
    hooks.afterRun?.(results, failure);
    section.controller = null;
    run.disabled = quick.disabled = false;
    stop.disabled = true;
    progress.hidden = true;
  }
}

/** Wires one lab's section: `[data-browser-lab]` with the buttons and areas BrowserLab.astro renders. */
export function mountBrowserLab<O>(root: HTMLElement, makeLab: (quick: boolean) => BrowserLab<O>, hooks: RunHooks = {}): void {
  const q = <T extends HTMLElement>(selector: string): T => root.querySelector<T>(selector)!;
  const section: LabSection = {
    root,
    run: q<HTMLButtonElement>('[data-bl-run]'),
    quick: q<HTMLButtonElement>('[data-bl-quick]'),
    stop: q<HTMLButtonElement>('[data-bl-stop]'),
    progress: q<HTMLProgressElement>('[data-bl-progress]'),
    status: q('[data-bl-status]'),
    out: q('[data-bl-output]'),
    controller: null,
  };
  const off = q('[data-bl-off]');
  // What this browser cannot run, and the lab's notes, before anything runs (again when the learner picks a part).
  const showOff = (): void => off.replaceChildren(...offLines(makeLab(false)));
  showOff();
  root.querySelector('[data-bl-part]')?.addEventListener('change', showOff);
  // The learner's code changed (exercise-ui.ts): its lines (edited or not) follow.
  root.addEventListener('bl-code-change', showOff);
  section.run.addEventListener('click', () => void startRun(section, makeLab, hooks, false));
  section.quick.addEventListener('click', () => void startRun(section, makeLab, hooks, true));
  section.stop.addEventListener('click', () => section.controller?.abort());
  root.dataset['state'] = 'ready';
}
