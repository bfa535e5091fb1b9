/**
 * Turns a validated results file into the series the charts and tables show. Pure: no DOM, unit-tested.
 * Only reads fields of the results schema (labs/core/src/results-schema.ts); it never trusts strings as markup.
 */
import { caseLabel, type Params, paramsLabel, type Results, type SpeedupEntry, speedupsOutsideSweeps, type SweepChart, sweepCharts } from '@parallel-course/core';
import type { ResultsWarning } from './results-file.ts';

export interface WorkerPoint {
  workers: number;
  speedup: number;
  ci95: [number, number];
  efficiency: number | undefined;
  oversubscribed: boolean;
}

// One case label everywhere: the harness's own (keys sorted, ", "), the same the terminal and the reports use.
export { paramsLabel };

/** The other parameters of an entry besides `workers`, as a label, so different sizes do not share one line. */
function seriesKey(entry: SpeedupEntry): string {
  const { workers: _workers, ...rest } = entry.params;
  const restLabel = Object.keys(rest).length > 0 ? ` (${paramsLabel(rest)})` : '';
  return `${entry.variant}${restLabel}`;
}

/**
 * Speedup against workers, one series per variant (and per other parameter values), sorted by workers. A file with
 * declared sweeps (schema 3) gives the curves of its worker sweeps (those whose param is the cases' worker count:
 * `workers`, `threads`, `devices`...); only an older file without them falls back to a numeric `workers` param.
 */
export function workerSeries(results: Results): Map<string, WorkerPoint[]> {
  const series = new Map<string, WorkerPoint[]>();
  if (results.sweeps.length > 0) {
    for (const chart of sweepCharts(results)) {
      for (const curve of chart.curves) {
        if (!curve.points.every((p) => p.entry.workers === p.x)) continue;
        series.set(curve.label, curve.points.map((p) => ({ workers: p.x, speedup: p.y, ci95: p.ci95, efficiency: p.entry.efficiency, oversubscribed: p.oversubscribed })));
      }
    }
    return series;
  }
  for (const entry of results.speedups) {
    const workers = entry.params['workers'];
    if (typeof workers !== 'number') continue;
    const key = seriesKey(entry);
    const points = series.get(key) ?? [];
    points.push({
      workers,
      speedup: entry.speedup,
      ci95: entry.ci95,
      efficiency: entry.efficiency,
      oversubscribed: entry.oversubscribed,
    });
    series.set(key, points);
  }
  for (const points of series.values()) points.sort((a, b) => a.workers - b.workers);
  return series;
}

/** Speedup entries that have no numeric `workers` parameter (e.g. a chunked variant), for a bar chart. */
export function otherSpeedups(results: Results): SpeedupEntry[] {
  return results.speedups.filter((entry) => typeof entry.params['workers'] !== 'number');
}

/** The largest worker count in the file, at least 1: the x range of the ideal line. */
export function maxWorkers(results: Results): number {
  let max = 1;
  for (const entry of results.speedups) {
    const workers = entry.params['workers'];
    if (typeof workers === 'number' && workers > max) max = workers;
  }
  return max;
}

/** Speedup against workers: one series per variant, the ideal line up to `top` workers, each variant's Amdahl fit. */
export interface WorkersPlan {
  series: Map<string, WorkerPoint[]>;
  top: number;
  fits: Results['amdahl'];
}

/** The charts one run gets, decided before any is drawn (the viewer's run-charts.ts draws them). */
export interface ChartPlan {
  /** The run's declared sweeps, each as curves over its own param. */
  sweeps: SweepChart[];
  /** Speedup against workers: only an older file without declared sweeps. */
  workers: WorkersPlan | null;
  /** The speedups outside any sweep (bars). */
  others: SpeedupEntry[];
}

export function chartPlan(results: Results): ChartPlan {
  const declared = results.sweeps.length > 0;
  const series = declared ? new Map<string, WorkerPoint[]>() : workerSeries(results);
  return {
    sweeps: sweepCharts(results),
    workers: series.size > 0 ? { series, top: maxWorkers(results), fits: results.amdahl } : null,
    others: declared ? speedupsOutsideSweeps(results) : otherSpeedups(results),
  };
}




function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export interface WarningText {
  title: string;
  /** One sentence per kind of problem: failed checks, then numbers that do not recompute. */
  sentences: string[];
  /** The first problems themselves, each naming the case or the field. */
  items: string[];
  /** How many problems were left out of `items`. */
  more: number;
}

/** The words of the viewer's warning for a file that failed a check or whose numbers do not follow from its samples. */
export function warningText(warning: ResultsWarning, limit = 10): WarningText {
  const sentences: string[] = [];
  if (warning.failedChecks.length > 0) {
    sentences.push(
      `${plural(warning.failedChecks.length, 'case', 'cases')} failed the correctness check: ` +
        'a variant that computes a wrong answer has no meaningful time or speedup.',
    );
  }
  if (warning.mismatches.length > 0) {
    sentences.push(
      `${plural(warning.mismatches.length, 'number does', 'numbers do')} not follow from the raw samples in the file ` +
        '(recomputed as "npm run report -- validate" does): the file was edited, or was not written by this version of the harness.',
    );
  }
  if (warning.implausible.length > 0) {
    sentences.push(
      `${plural(warning.implausible.length, 'ratio is', 'ratios are')} beyond what the machine in the file can give: ` +
        'the arithmetic is right but it cannot be a measurement of the work (a cached answer, a forged clock, another program\'s load?).',
    );
  }
  const all = [...warning.failedChecks.map((p) => `failed check: ${p}`), ...warning.mismatches, ...warning.implausible.map((p) => `implausible: ${p}`)];
  return { title: 'Warning: do not trust the numbers in this file.', sentences, items: all.slice(0, limit), more: Math.max(0, all.length - limit) };
}

/** A fact the run recorded, or "not recorded" where it is empty (an in-page run knows no CPU model, no libuv). */
export function recorded(value: string | null | undefined): string {
  return value === null || value === undefined || value.trim() === '' ? 'not recorded' : value;
}
