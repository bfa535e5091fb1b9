/**
 * Behaviour of <ResultsViewer />. On load: the picked lab's course run, fetched from the built site (JSON, without
 * raw samples) -> charts and tables. A learner's file: schema validation -> the validator's checks -> the
 * course's run of the same lab beside it, case by case, with `--compare`'s verdicts (lib/run-comparison.ts), and the
 * learner's run as charts and tables (text only, never HTML). A file with a failed check, or whose numbers do not
 * recompute from its samples, is still shown, under a warning that says so in words (role="alert").
 */
import type { ChartDataset } from 'chart.js';
import { amdahlSpeedup, caseLabel, formatInterval, formatSignificant, paramsLabel, type Results, scalingNotes, speedupsOutsideSweeps, type SweepChart, sweepCharts } from '@parallel-course/core';
import type { ResultsWarning } from '../lib/results-file.ts';
import { placeLearnerRun, viewerRunFiles, yourRunLabel, type ViewerRun } from '../lib/viewer-runs.ts';
import { Chart } from '../lib/chart-setup.ts';
import { type BarWithErrors, errorBarsPlugin } from '../lib/error-bars.ts';
import { currentTheme, followTheme, seriesColour, styleAxes, type ChartTheme } from '../lib/chart-theme.ts';
import { element, textTable } from '../lib/dom.ts';
import { maxWorkers, otherSpeedups, recorded, warningText, workerSeries } from '../lib/results-view.ts';

type Point = { x: number; y: number };

/** Node / V8 / libuv, or where the run ran when it was not Node (an in-page run records its browser instead). */
function runtimeText(results: Results): string {
  const env = results.environment;
  if (results.runtime === 'browser') return `none: an in-page run${env.browser ? ` (${env.browser.userAgent.slice(0, 120)})` : ''}`;
  return `${recorded(env.node)} / ${recorded(env.v8)} / ${recorded(env.uv)}`;
}

function describeRun(results: Results): string {
  const env = results.environment;
  const where = results.runtime === 'browser' ? 'in a browser' : `Node ${recorded(env.node)}`;
  return (
    `Lab ${results.lab}, implementation "${results.impl}"${results.quick ? ' (quick run)' : ''}, ` +
    `started ${results.startedAt} on ${env.cpuModel.trim() === '' ? 'a CPU whose model was not recorded' : env.cpuModel} with ${env.availableParallelism} CPUs available ` +
    `(${where}).`
  );
}

function describeHeadline(results: Results): string {
  const h = results.headline;
  if (!h) return 'This run has no headline result (for example because a variant failed its check).';
  return (
    `Headline: ${caseLabel(h)} is ${formatSignificant(h.speedup)}x ${h.baseline} ` +
    `(95% interval ${formatInterval(h.ci95)})${h.efficiency !== undefined ? `, efficiency ${formatSignificant(h.efficiency)}` : ''}.`
  );
}

function tables(results: Results): HTMLElement[] {
  const speedups = textTable(
    'Speedups',
    ['variant', 'parameters', 'speedup', '95% interval', 'efficiency', 'Karp-Flatt f', 'note'],
    results.speedups.map((s) => [
      s.variant,
      paramsLabel(s.params),
      formatSignificant(s.speedup),
      formatInterval(s.ci95),
      s.efficiency === undefined ? '' : formatSignificant(s.efficiency),
      s.karpFlatt === undefined ? '' : formatSignificant(s.karpFlatt),
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
      formatSignificant(c.summary.median),
      formatInterval(c.summary.ci95),
      formatSignificant(c.summary.cv),
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
    ['CPU', recorded(env.cpuModel)],
    ['CPUs (os.cpus)', String(env.cpuCount)],
    ['available parallelism', String(env.availableParallelism)],
    ['cgroup CPU quota', results.cpus.quota === null ? 'none' : formatSignificant(results.cpus.quota)],
    ['CPU affinity', env.cpuAffinity ?? 'unknown'],
    ['Node / V8 / libuv', runtimeText(results)],
    ['OS', recorded([env.platform, env.arch, env.osRelease].filter((part) => part.trim() !== '').join(' '))],
    ['UV_THREADPOOL_SIZE', env.uvThreadpoolSize ?? 'default'],
    ['git commit', `${env.git.commit ?? 'unknown'}${env.git.dirty ? ' (uncommitted changes)' : ''}`],
    ['GPUs', env.gpus.length === 0 ? 'none found' : env.gpus.map((g) => g.name).join(', ')],
    ['Slurm', Object.keys(env.slurm).length === 0 ? 'not under Slurm' : Object.entries(env.slurm).map(([k, v]) => `${k}=${v}`).join(' ')],
    ['harness overhead per sample (ms)', formatSignificant(results.harnessOverheadMs)],
    ['command', results.command],
  ]);
  const parts: HTMLElement[] = [speedups, cases, correctness, environment];
  // Efficiency above 1, negative Karp-Flatt values and sweeps too short for a fit, named with their causes (issue 43).
  const scaling = scalingNotes({ speedups: results.speedups, amdahl: results.amdahl, availableParallelism: results.cpus.available });
  if (scaling.length > 0) {
    const list = element('ul');
    for (const note of scaling) list.append(element('li', note));
    parts.splice(1, 0, element('p', 'Reading the speedups:'), list);
  }
  if (results.notes.length > 0) {
    const list = element('ul');
    for (const note of results.notes) list.append(element('li', note));
    parts.push(element('p', 'Notes from the run:'), list);
  }
  return parts;
}

/**
 * The course's runs: the labs are the picker's options as built; each run is a JSON file of the built site
 * (src/pages/viewer-runs/), fetched the first time it is needed: the view without raw samples to show a lab, the
 * whole run to compare a learner's file. Fetched once each, and parsed as JSON, never as markup.
 */
function courseRuns(root: HTMLElement, select: HTMLSelectElement): {
  labs: string[];
  view: (lab: string) => Promise<ViewerRun>;
  full: (lab: string) => Promise<ViewerRun>;
} {
  const base = root.dataset['rvRunsBase'] ?? '';
  const labs = [...select.options].map((o) => o.value);
  const fetched = new Map<string, Promise<ViewerRun>>();
  const load = (lab: string, file: string): Promise<ViewerRun> => {
    const url = new URL(`${base}${file}`, document.baseURI).href;
    let pending = fetched.get(url);
    if (!pending) {
      pending = fetch(url).then(async (response) => {
        if (!response.ok) throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
        return (await response.json()) as ViewerRun;
      }).catch((error: unknown) => {
        fetched.delete(url); // a later pick tries again
        throw new Error(
          `Could not load the course's run of ${lab} (${url}): ${error instanceof Error ? error.message : String(error)}. ` +
            'The viewer fetches it from the site: serve the built course with "npm start" rather than opening its files from disk.',
        );
      });
      fetched.set(url, pending);
    }
    return pending;
  };
  return {
    labs,
    view: (lab) => load(lab, viewerRunFiles(lab).view),
    full: (lab) => load(lab, viewerRunFiles(lab).full),
  };
}

/** The learner's file, validated, with the validator's findings and its name. */
interface LearnerRun {
  results: Results;
  /** checkResults's findings, kept so that comparing the file does not recompute it again. */
  problems: readonly string[];
  warning: ResultsWarning | null;
  fileName: string;
}

export function mountResultsViewer(root: HTMLElement): void {
  const q = <T extends HTMLElement>(selector: string): T | null => root.querySelector<T>(selector);
  const fileInput = q<HTMLInputElement>('[data-rv-file]');
  const labPick = q<HTMLElement>('[data-rv-lab-pick]');
  const labSelect = q<HTMLSelectElement>('[data-rv-lab]');
  const note = q<HTMLElement>('[data-rv-note]');
  const errorBox = q<HTMLElement>('[data-rv-error]');
  const compareBox = q<HTMLElement>('[data-rv-compare]');
  const compareSummary = q<HTMLElement>('[data-rv-compare-summary]');
  const compareTable = q<HTMLElement>('[data-rv-compare-table]');
  const caveatsBox = q<HTMLElement>('[data-rv-caveats]');
  const caveatList = q<HTMLElement>('[data-rv-caveat-list]');
  const warningBox = q<HTMLElement>('[data-rv-warning]');
  const output = q<HTMLElement>('[data-rv-output]');
  const viewPick = q<HTMLElement>('[data-rv-view-pick]');
  const viewSelect = q<HTMLSelectElement>('[data-rv-view]');
  const source = q<HTMLElement>('[data-rv-source]');
  const title = q<HTMLElement>('[data-rv-title]');
  const summary = q<HTMLElement>('[data-rv-summary]');
  const headline = q<HTMLElement>('[data-rv-headline]');
  const workersBox = q<HTMLElement>('[data-rv-workers-box]');
  const workersCanvas = q<HTMLCanvasElement>('[data-rv-workers-chart]');
  const otherBox = q<HTMLElement>('[data-rv-other-box]');
  const otherCanvas = q<HTMLCanvasElement>('[data-rv-other-chart]');
  const sweepsHolder = q<HTMLElement>('[data-rv-sweeps]');
  const tableHolder = q<HTMLElement>('[data-rv-tables]');
  const besideBox = q<HTMLElement>('[data-rv-beside]');
  const besideSummary = q<HTMLElement>('[data-rv-beside-summary]');
  const besideTable = q<HTMLElement>('[data-rv-beside-table]');
  if (!fileInput || !labPick || !labSelect || !note || !errorBox || !compareBox || !compareSummary || !compareTable) return;
  if (!caveatsBox || !caveatList || !warningBox || !output || !viewPick || !viewSelect || !source || !title || !summary) return;
  if (!headline || !workersBox || !workersCanvas || !otherBox || !otherCanvas || !tableHolder || !sweepsHolder) return;
  if (!besideBox || !besideSummary || !besideTable) return;

  const course = courseRuns(root, labSelect);
  let selectedLab: string | null = course.labs.includes(labSelect.value) ? labSelect.value : (course.labs[0] ?? null);
  let learner: LearnerRun | null = null;
  // The learner's earlier file of the same lab from the other runtime (a Node run and an in-page run of native-kernel),
  // kept so the two can be shown side by side (wasm-beside.ts).
  let otherRuntime: LearnerRun | null = null;
  // Bumped by every change of what is on show, so a comparison that finishes late does not overwrite a newer one.
  let generation = 0;

  // Charts of the run on show, each with the function that stops it following the theme.
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

  const clearCharts = (): void => {
    for (const { chart, unfollow } of charts) {
      unfollow();
      chart.destroy();
    }
    charts = [];
  };

  /** One declared sweep as a line chart over its param; its data also on the box, for the browser test. */
  const showSweep = (sweep: SweepChart): void => {
    const box = element('div', undefined, 'chart-box');
    box.dataset['rvSweep'] = sweep.sweep.param;
    box.dataset['rvSweepData'] = JSON.stringify(sweep.curves.map((c) => ({ label: c.label, points: c.points.map((p) => [p.x, p.y]) })));
    const canvas = element('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${sweep.sweep.title}; the speedup table below holds the same numbers.`);
    box.append(canvas);
    sweepsHolder.append(box);
    const xs = [...new Set(sweep.curves.flatMap((c) => c.points.map((p) => p.x)))].sort((a, b) => a - b);
    const datasets: ChartDataset<'line', Point[]>[] = sweep.curves.map((c) => ({ label: c.label, data: c.points.map((p) => ({ x: p.x, y: p.y })), pointRadius: 4, borderWidth: 2 }));
    const axisTitle = { display: true, text: sweep.axis === 'linear' ? sweep.sweep.param : `${sweep.sweep.param} (log scale)` };
    const chart = new Chart(canvas, {
      type: 'line',
      data: { datasets },
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        scales: {
          x:
            sweep.axis === 'linear'
              ? { type: 'linear', title: axisTitle }
              : {
                  type: 'logarithmic',
                  min: xs[0]! / 1.2,
                  max: xs[xs.length - 1]! * 1.2,
                  title: axisTitle,
                  // Powers of two: a tick at each swept value, not at 1, 2, 5, 10.
                  ...(sweep.axis === 'log2' ? { afterBuildTicks: (axis: { ticks: { value: number }[] }) => { axis.ticks = xs.map((value) => ({ value })); } } : {}),
                },
          y: { type: 'linear', min: 0, title: { display: true, text: sweep.yTitle } },
        },
        plugins: { title: { display: true, text: sweep.sweep.title }, legend: { position: 'bottom' } },
      },
    });
    restyleLines(chart, currentTheme());
    chart.update();
    charts.push({ chart, unfollow: followTheme(chart, restyleLines) });
  };

  /** One run as charts and tables, under the line that says whose run it is. */
  const show = (results: Results, warning: ResultsWarning | null, label: string): void => {
    clearCharts();
    // Visible before the charts are made, so chart.js measures a real box.
    output.hidden = false;
    showWarning(warning);
    source.textContent = label;
    title.textContent = results.title;
    summary.textContent = describeRun(results);
    headline.textContent = describeHeadline(results);

    // The lab's declared sweeps (results.sweeps), each as curves over its own param; an older file without them keeps
    // the chart against params.workers.
    sweepsHolder.replaceChildren();
    for (const sweep of sweepCharts(results)) showSweep(sweep);
    const series: ReturnType<typeof workerSeries> = results.sweeps.length > 0 ? new Map() : workerSeries(results);
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
          label: `Amdahl fit ${fit.variant} (f = ${formatSignificant(fit.serialFraction)})`,
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

    const others = results.sweeps.length > 0 ? speedupsOutsideSweeps(results) : otherSpeedups(results);
    otherBox.hidden = others.length === 0;
    // About 3 rem per bar plus room for the axis, so two bars do not fill a whole chart.
    otherBox.style.height = `min(${4 + 3 * others.length}rem, 80vh)`;
    if (others.length > 0) {
      const chart = new Chart(otherCanvas, {
        type: 'bar',
        data: {
          labels: others.map((s) => caseLabel(s)),
          // Each speedup's 95% interval as a whisker on its own bar (error-bars.ts).
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
      });
      restyleLines(chart, currentTheme());
      chart.update();
      charts.push({ chart, unfollow: followTheme(chart, restyleLines) });
    }

    tableHolder.replaceChildren(...tables(results));
  };

  const setNote = (text: string | null): void => {
    note.textContent = text ?? '';
    note.hidden = text === null;
  };

  const hideComparison = (): void => {
    compareBox.hidden = true;
    compareTable.replaceChildren();
    caveatList.replaceChildren();
  };

  /** The learner's run beside the course's run: computed off the first paint (the bootstrap takes a moment). */
  const showComparison = (reference: ViewerRun, mine: LearnerRun): void => {
    const mark = generation;
    compareBox.hidden = false;
    compareSummary.textContent = `Comparing your run with the ${reference.label} …`;
    compareTable.replaceChildren();
    caveatsBox.hidden = true;
    // The comparison needs the course run's raw samples: the whole run, fetched now (the view has none), unless the
    // two runs time different work (another runtime): then they go side by side, with no verdict and no bootstrap.
    import('../lib/run-comparison.ts')
      .then(async (comparing) => {
        const unlike = comparing.unlikeWork(reference.results, mine.results);
        if (mark !== generation) return;
        if (unlike !== null) {
          compareSummary.textContent = `No verdict: ${unlike}`;
          compareTable.replaceChildren(
            textTable(
              'Your run beside the course\'s run (no verdict: different work)',
              ['case', 'course run', 'your run'],
              comparing.sideBySideRows(reference.results, mine.results),
              'Each run: median time per sample [95% interval] and the work one sample does. Different work: not compared.',
            ),
          );
          return;
        }
        const whole = await course.full(reference.lab);
        if (mark !== generation) return;
        const { compareWithReference, comparisonRows, likeWithLike, verdictCounts } = comparing;
        const outcome = compareWithReference(whole.results, mine.results, mine.problems);
        if (!outcome.ok) {
          compareSummary.textContent = `Not compared: ${outcome.reason}`;
          return;
        }
        // A --quick run against a full one: only the cases both measured, and the reason first.
        const { rows, reason } = likeWithLike(whole.results, mine.results, comparisonRows(whole.results, mine.results, outcome.comparison));
        compareSummary.textContent =
          `${reason === null ? '' : `${reason} `}Against the ${reference.label}. ` +
          `Case by case, as "npm run lab -- ${mine.results.lab} --compare <run folder>" judges it: ${verdictCounts(rows) || 'no case in common'}.`;
        const table = textTable(
          'Your run against the course\'s run, case by case',
          ['case', 'course run', 'your run', 'ratio [95% interval]', 'verdict'],
          rows.map((r) => [r.case, r.reference, r.yours, r.ratio === '-' ? '-' : `${r.ratio} ${r.ratioCi}`, r.verdictWords]),
          'Each run: median time per sample [95% interval]. Ratio = your speedup over the baseline / the course run\'s, each ' +
            'within its own run, so that a faster or slower machine cancels: above 1, yours gained. The baseline\'s row is the ' +
            'machine (the course run\'s median / yours). The verdict is "faster" or "slower" only when the whole 95% interval ' +
            'of the ratio lies on one side of 1; otherwise the runs cannot tell the two apart: "within noise".',
        );
        // textTable returns the scrolling box (and its note): the rows are inside it.
        const bodyRows = table.querySelectorAll('tbody tr');
        rows.forEach((r, i) => {
          const tr = bodyRows[i];
          if (!tr) return;
          tr.setAttribute('data-case', r.case);
          tr.lastElementChild?.setAttribute('data-verdict', r.verdict);
        });
        compareTable.replaceChildren(table);
        const caveats = outcome.comparison.caveats;
        caveatList.replaceChildren(...caveats.map((c) => element('li', c)));
        caveatsBox.hidden = caveats.length === 0;
      })
      .catch((error: unknown) => {
        if (mark !== generation) return;
        compareSummary.textContent = `Could not compare the runs: ${error instanceof Error ? error.message : String(error)}`;
      });
  };

  /**
   * A native-kernel run from the page and one from Node, GFLOP/s per rung at a size both measured: the learner's two
   * files when both are open, else the learner's in-page run beside the course's Node run (said so).
   */
  const showBeside = (mine: LearnerRun | null): void => {
    const mark = generation;
    const inPageRunOpen = mine !== null && mine.results.lab === 'native-kernel' && (mine.results.runtime === 'browser' || otherRuntime !== null);
    besideBox.hidden = !inPageRunOpen;
    besideTable.replaceChildren();
    if (!inPageRunOpen || mine === null) return;
    const partner: Promise<{ results: Results; label: string }> =
      otherRuntime !== null
        ? Promise.resolve({ results: otherRuntime.results, label: `your file ${otherRuntime.fileName}` })
        : course.labs.includes('native-kernel')
          ? course.full('native-kernel').then((run) => ({ results: run.results, label: `the course's Node run (${run.label}), not your machine's: open your own Node run's results.json too` }))
          : Promise.reject(new Error("open your Node run's results.json too"));
    Promise.all([import('../lib/wasm-beside.ts'), partner])
      .then(([{ wasmBesideNative, besideCells }, other]) => {
        if (mark !== generation) return;
        const beside = wasmBesideNative(mine.results, other.results);
        if (!beside.ok) {
          besideSummary.textContent = `Not shown: ${beside.reason}.`;
          return;
        }
        besideSummary.textContent =
          `n = ${beside.n}: your file ${mine.fileName} beside ${other.label}. Two runs, so only rates compare, ` +
          'each from its own run\'s median sample (the interval is that median\'s): a difference inside both intervals is noise.';
        besideTable.replaceChildren(
          textTable(`Matrix product at n = ${beside.n}, GFLOP/s`, ['rung', 'where', 'threads', 'GFLOP/s [95% interval]'], besideCells(beside.rows)),
        );
      })
      .catch((error: unknown) => {
        if (mark !== generation) return;
        besideSummary.textContent = `Not shown: ${error instanceof Error ? error.message : String(error)}.`;
      });
  };

  /** Shows the selected lab: the course's run (fetched), and the learner's run of the same lab beside it when there is one. */
  const render = (): void => {
    const mark = ++generation;
    const lab = selectedLab;
    if (lab === null || !course.labs.includes(lab)) {
      renderWith(null);
      return;
    }
    course
      .view(lab)
      .then((reference) => {
        if (mark === generation) renderWith(reference);
      })
      .catch((error: unknown) => {
        if (mark !== generation) return;
        renderWith(null);
        errorBox.replaceChildren(element('pre', error instanceof Error ? error.message : String(error)));
        errorBox.hidden = false;
      });
  };

  /** What render shows once the course's run of the selected lab (or none) is at hand. */
  const renderWith = (reference: ViewerRun | null): void => {
    const mine = learner !== null && learner.results.lab === selectedLab ? learner : null;
    viewPick.hidden = !(reference && mine);
    if (reference && mine) showComparison(reference, mine);
    else hideComparison();
    showBeside(mine);
    const showMine = mine !== null && (reference === null || viewSelect.value === 'yours');
    if (showMine) show(mine.results, mine.warning, yourRunLabel(mine.results, mine.fileName));
    else if (reference) show(reference.results, null, reference.label);
    else {
      clearCharts();
      output.hidden = true;
    }
  };

  /** The picker lists the course's labs, plus the learner's lab when the course has no run of it. */
  const syncPicker = (): void => {
    for (const option of [...labSelect.options]) if (option.dataset['learnerOnly'] !== undefined) option.remove();
    const learnerLab = learner?.results.lab;
    if (learnerLab !== undefined && !course.labs.includes(learnerLab)) {
      const option = element('option', `${learnerLab} (your run only)`);
      option.value = learnerLab;
      option.dataset['learnerOnly'] = '';
      labSelect.append(option);
    }
    if (selectedLab !== null) labSelect.value = selectedLab;
    labPick.hidden = labSelect.options.length === 0;
  };

  labSelect.addEventListener('change', () => {
    selectedLab = labSelect.value;
    setNote(null);
    errorBox.hidden = true;
    syncPicker();
    render();
  });
  viewSelect.addEventListener('change', render);

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    // The schema (zod) loads only when a file is opened, keeping it out of the page's first download.
    import('../lib/results-file.ts')
      .then(async ({ readResultsFile, checkResultsFile, checkResults }) => {
        const results = await readResultsFile(file);
        const problems = checkResults(results);
        const earlier = learner ?? otherRuntime;
        const sameLabOtherRuntime = earlier !== null && earlier.results.lab === results.lab && (earlier.results.runtime ?? 'node') !== (results.runtime ?? 'node');
        otherRuntime = sameLabOtherRuntime ? earlier : null;
        learner = { results, problems, warning: checkResultsFile(results, problems), fileName: file.name };
        const placement = placeLearnerRun(course.labs, selectedLab, results.lab);
        selectedLab = placement.lab;
        errorBox.hidden = true;
        setNote(placement.note);
        viewSelect.value = 'yours';
        syncPicker();
        render();
      })
      .catch(async (error: unknown) => {
        const message = await import('../lib/results-file.ts').then(
          ({ describeLoadError }) => describeLoadError(error),
          () => `Could not load the results reader: ${error instanceof Error ? error.message : String(error)}`,
        );
        // The file is refused: what was on show from an earlier file goes, the course's run of the lab stays.
        learner = null;
        otherRuntime = null;
        if (selectedLab !== null && !course.labs.includes(selectedLab)) selectedLab = course.labs[0] ?? null;
        setNote(null);
        syncPicker();
        render();
        errorBox.replaceChildren(element('pre', message));
        errorBox.hidden = false;
      });
  });

  syncPicker();
  render();
}
