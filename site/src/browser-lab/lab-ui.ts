/**
 * The page side of an in-page lab: Run and Quick run start it (on a click only), a progress bar and a status line
 * follow it, Stop ends it at once (workers terminated), and the outcome is a chart, tables, the verdicts and a
 * results file to download (the harness's schema, `runtime: "browser"`), which the results viewer opens.
 * Cases this browser cannot run are listed with the reason before anything runs.
 */
import { Chart } from '../lib/chart-setup.ts';
import { currentTheme, followTheme, seriesColour, styleAxes } from '../lib/chart-theme.ts';
import { element, textTable } from '../lib/dom.ts';
import { caseLabel, formatSignificant, type Results } from './core-adapter.ts';
import type { BrowserLab } from './lab-types.ts';
import { roundsFor, roundsOverride, runBrowserLab } from './runner.ts';
import { verdict } from './verdict.ts';
import { type BarWithErrors, errorBarsPlugin } from '../lib/error-bars.ts';

function resultsView(results: Results, lab: Pick<BrowserLab<unknown>, 'logAxis' | 'lead' | 'rounds'>): HTMLElement {
  const box = element('div', undefined, 'bl-results');
  const canvas = element('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'Median time per sample of each case, with its 95% interval; the table below has the numbers');
  // The axis's kind, for the tests and for anyone reading the page's source.
  canvas.dataset['blAxis'] = lab.logAxis ? 'logarithmic' : 'linear';
  const chartBox = element('div', undefined, 'bl-chart');
  chartBox.append(canvas);
  const theme = currentTheme();
  const labels = results.cases.map((c) => caseLabel(c));
  // Each median's 95% interval is a whisker on its own bar (error-bars.ts), not a bar of its own beside it.
  const medians: BarWithErrors = {
    label: 'median time per sample (ms), whisker: 95% interval',
    data: results.cases.map((c) => c.summary.median),
    errorBars: results.cases.map((c) => [c.summary.ci95[0], c.summary.ci95[1]] as const),
    backgroundColor: seriesColour(theme, 0),
  };
  const top = Math.max(...results.cases.map((c) => c.summary.ci95[1]));
  const chart = new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets: [medians] },
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
  // First what the episode teaches, in its own quantity (the lab's lead: episode 05 puts the page's responsiveness
  // beside the throughput), then every speedup with its verdict.
  const lead = element('div', undefined, 'bl-lead-box');
  for (const sentence of lab.lead?.(results) ?? []) lead.append(element('p', sentence, 'bl-lead'));
  const verdicts = element('ul', undefined, 'bl-verdicts');
  for (const s of results.speedups) {
    const eff = s.efficiency !== undefined ? `, efficiency ${formatSignificant(s.efficiency)}` : '';
    const samples = results.cases.find((c) => caseLabel(c) === caseLabel(s))?.samplesMs.length ?? 0;
    const said = verdict(s.ci95, { speedup: s.speedup, samples, quick: results.quick, fullRounds: roundsFor(false, lab) });
    verdicts.append(element('li', `${caseLabel(s)}: ${formatSignificant(s.speedup)}x ${s.baseline} (95% interval ${formatSignificant(s.ci95[0])} to ${formatSignificant(s.ci95[1])}): ${said}${eff}${s.oversubscribed ? ' (more workers than CPUs)' : ''}`));
  }
  const cases = textTable(
    'Your run: time per sample (ms)',
    ['case', 'samples', 'median', '95% interval', 'robust CV', 'hidden-tab samples', 'other observations'],
    results.cases.map((c) => [
      caseLabel(c),
      String(c.summary.n),
      formatSignificant(c.summary.median),
      `${formatSignificant(c.summary.ci95[0])} to ${formatSignificant(c.summary.ci95[1])}`,
      formatSignificant(c.summary.robustCv),
      String((c.observations['hiddenTab']?.samples ?? []).filter((v) => v > 0).length),
      Object.entries(c.observations)
        .filter(([name]) => name !== 'hiddenTab')
        .map(([name, o]) => (o.p99 === null ? `${name}: none` : `${name} p50 ${formatSignificant(o.p50 ?? 0)} / p99 ${formatSignificant(o.p99)} / max ${formatSignificant(o.max ?? 0)} ${o.unit}`))
        .join('; '),
    ]),
  );
  const checks = textTable(
    'Correct before timed: every case against the reference, every timed sample checked',
    ['case', 'passed', 'reason'],
    results.correctness.map((c) => [caseLabel(c), c.passed ? 'yes' : 'NO', c.reason ?? '']),
  );
  const notes = element('ul', undefined, 'bl-notes');
  for (const note of results.notes) notes.append(element('li', note));
  box.append(lead, chartBox, verdicts, cases, checks, notes);
  return box;
}

/** What a lab's section adds around its runs (the coding exercise, exercise-ui.ts). */
export interface RunHooks {
  /** Before a run: null to go on, or why the run does not start (shown in the status line). */
  beforeRun?(signal: AbortSignal): Promise<string | null>;
  /** After a run: its results, or null and the error when it failed (null and null when it was stopped or did not start). */
  afterRun?(results: Results | null, error: unknown): void;
}

/** Wires one lab's section: `[data-browser-lab]` with the buttons and areas BrowserLab.astro renders. */
export function mountBrowserLab<O>(root: HTMLElement, makeLab: (quick: boolean) => BrowserLab<O>, hooks: RunHooks = {}): void {
  const run = root.querySelector<HTMLButtonElement>('[data-bl-run]')!;
  const quick = root.querySelector<HTMLButtonElement>('[data-bl-quick]')!;
  const stop = root.querySelector<HTMLButtonElement>('[data-bl-stop]')!;
  const progress = root.querySelector<HTMLProgressElement>('[data-bl-progress]')!;
  const status = root.querySelector<HTMLElement>('[data-bl-status]')!;
  const out = root.querySelector<HTMLElement>('[data-bl-output]')!;
  const off = root.querySelector<HTMLElement>('[data-bl-off]')!;
  // What this browser cannot run, and the lab's notes, before anything runs (again when the learner picks a part).
  const showOff = (): void => {
    const preview = makeLab(false);
    off.replaceChildren(
      ...preview.cases.filter((c) => c.unavailable !== null).map((c) => element('li', `${caseLabel(c)}: off in this browser, ${c.unavailable}`)),
      ...preview.notes.map((note) => element('li', note)),
    );
  };
  showOff();
  root.querySelector('[data-bl-part]')?.addEventListener('change', showOff);
  // The learner's code changed (exercise-ui.ts): its lines (edited or not) follow.
  root.addEventListener('bl-code-change', showOff);
  let controller: AbortController | null = null;
  const start = async (isQuick: boolean): Promise<void> => {
    if (controller) return;
    controller = new AbortController();
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
      const blob = new Blob([`${JSON.stringify(results, null, 2)}\n`], { type: 'application/json' });
      const link = element('a', 'Download the results file (opens in the results viewer; npm run report -- validate checks it)');
      link.href = URL.createObjectURL(blob);
      link.download = `results-${results.lab}-browser.json`;
      link.dataset['blDownload'] = '';
      const failed = results.correctness.filter((c) => !c.passed).length;
      status.textContent = failed === 0 ? `Done: every case passed its check; ${results.cases.length} cases timed.` : `Done, but ${failed} case(s) failed their check and were not timed: see the table.`;
      out.append(link, resultsView(results, lab));
      root.dataset['state'] = 'done';
    } catch (error) {
      const aborted = controller?.signal.aborted === true;
      if (!aborted) failure = error;
      status.textContent = aborted ? 'Stopped: the workers were ended, nothing was recorded.' : `The run failed: ${(error as Error)?.message ?? String(error)}`;
      root.dataset['state'] = aborted ? 'stopped' : 'failed';
    } finally {
      hooks.afterRun?.(results, failure);
      controller = null;
      run.disabled = quick.disabled = false;
      stop.disabled = true;
      progress.hidden = true;
    }
  };
  run.addEventListener('click', () => void start(false));
  quick.addEventListener('click', () => void start(true));
  stop.addEventListener('click', () => controller?.abort());
  root.dataset['state'] = 'ready';
}
