/**
 * The report stage's first step: read-only views over Results that the reporters need. Nothing here computes a
 * statistic: it only finds what the statistics stage already wrote. In: Results. Out: views, and for the charts one
 * `ChartSelection` (selectCharts), which charts.ts draws without reading the results again (select, then draw, then
 * render: the value goes one way).
 */
import {
  type AmdahlFit,
  caseLabel,
  type CaseResult,
  type Params,
  type Results,
  sameParams,
  type SpeedupEntry,
  speedupsOutsideSweeps,
  type SweepChart,
  sweepCharts,
  workerParam,
} from '@parallel-course/core';

/**
 * The worker count of a speedup entry: the lab's CaseDefinition.workers, which the harness carries into the entry
 * whatever the param is called (`workers`, `threads`, `devices`); null when the case declares none.
 */
function workersOf(entry: Pick<SpeedupEntry, 'workers'>): number | null {
  const value = entry.workers;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The variant every speedup is measured against, as the file records it (one per lab). */
export function baselineVariants(results: Results): string[] {
  return [results.baseline];
}

/** The measured case for a variant and parameter set, if it was measured. */
export function findCase(results: Results, variant: string, params: Params): CaseResult | undefined {
  return results.cases.find((c) => c.variant === variant && sameParams(c.params, params));
}

/** One worker sweep: a variant's speedups at several worker counts, every other param held fixed. */
export interface WorkerSeries {
  /** The variant, plus the params held fixed when the variant has several sweeps: "native-threads (size=256)". */
  label: string;
  variant: string;
  /** The params held fixed (all but the one carrying the worker count). */
  params: Params;
  /** Sorted by workers. */
  entries: Array<SpeedupEntry & { workers: number }>;
}

/**
 * The worker sweeps of a run, in order of first appearance: speedups of one variant that declare workers, share every
 * param but the one carrying the worker count (see `workerParam`), and span at least two worker counts. A chunk-size
 * sweep at a fixed worker count is not one (see `speedupsWithoutWorkers`).
 */
export function workerSeries(results: Results): WorkerSeries[] {
  const groups = new Map<string, { variant: string; params: Params; entries: Array<SpeedupEntry & { workers: number }> }>();
  for (const entry of results.speedups) {
    const workers = workersOf(entry);
    if (workers === null) continue;
    const param = workerParam(results.speedups, entry.variant);
    const params = Object.fromEntries(Object.entries(entry.params).filter(([k]) => k !== param));
    const key = caseLabel({ variant: entry.variant, params });
    const group = groups.get(key) ?? { variant: entry.variant, params, entries: [] };
    group.entries.push({ ...entry, workers });
    groups.set(key, group);
  }
  const sweeps = [...groups.values()].filter((g) => new Set(g.entries.map((e) => e.workers)).size >= 2);
  return sweeps.map((g) => {
    const several = sweeps.filter((other) => other.variant === g.variant).length > 1;
    return {
      label: several ? caseLabel({ variant: g.variant, params: g.params }) : g.variant,
      variant: g.variant,
      params: g.params,
      entries: [...g.entries].sort((a, b) => a.workers - b.workers),
    };
  });
}

/** The worker sweeps keyed by their label (the variant, unless it has several sweeps), entries sorted by workers. */
export function speedupsByWorkers(results: Results): Map<string, Array<SpeedupEntry & { workers: number }>> {
  return new Map(workerSeries(results).map((series) => [series.label, series.entries]));
}

/** The Amdahl fit of the sweep that `entry` belongs to (same variant, same params but the worker count), if any. */
export function amdahlFitFor(results: Results, entry: Pick<SpeedupEntry, 'variant' | 'params'>): AmdahlFit | undefined {
  return results.amdahl.find((fit) => {
    if (fit.variant !== entry.variant) return false;
    const held = Object.fromEntries(Object.entries(entry.params).filter(([k]) => k !== fit.param));
    return sameParams(held, fit.params ?? {});
  });
}

/** Speedups that are not part of a worker sweep (a size sweep, a single-threaded variant, a fixed worker count). */
export function speedupsWithoutWorkers(results: Results): SpeedupEntry[] {
  const swept = new Set(workerSeries(results).flatMap((series) => series.entries.map((e) => `${e.variant}|${caseLabel(e)}`)));
  return results.speedups.filter((entry) => !swept.has(`${entry.variant}|${caseLabel(entry)}`));
}

/** Most points drawn per case in the strip plot; more samples are thinned to evenly spaced order statistics. */
export const MAX_STRIP_POINTS = 1500;

/** At most `limit` values that keep the shape of the distribution: sorted, then taken at evenly spaced ranks. */
export function thinSamples(samples: readonly number[], limit = MAX_STRIP_POINTS): number[] {
  if (samples.length <= limit) return [...samples];
  const sorted = [...samples].sort((a, b) => a - b);
  return Array.from({ length: limit }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (limit - 1))] ?? 0);
}

/** One worker sweep as the workers chart draws it (a file without declared sweeps): its points and its Amdahl fit. */
export interface SelectedSeries {
  label: string;
  entries: Array<SpeedupEntry & { workers: number }>;
  fit: AmdahlFit | null;
}

/** One declared sweep as its chart draws it: the core's curves, and per curve whether x is the worker count and its fit. */
export interface SelectedSweep {
  chart: SweepChart;
  /** Per curve: every point's x is its worker count (the ideal line and the Amdahl fit apply). */
  workersAreX: boolean[];
  /** Per curve: the Amdahl fit of its sweep where x is the worker count, else null. */
  fits: Array<AmdahlFit | null>;
}

/** Everything the charts show, selected once from the results (charts.ts draws it; it reads nothing else). */
export interface ChartSelection {
  lab: string;
  /** The CPUs the run could use (the workers chart's vertical line). */
  availableParallelism: number;
  /** The baseline's name for axis titles: the one baseline, or a generic phrase when speedups use several. */
  baseline: string;
  /** The worker sweeps of a file without declared sweeps (the chart it always had); empty when it declares sweeps. */
  workerSeries: SelectedSeries[];
  sweeps: SelectedSweep[];
  /** The speedups no sweep curve (or, without declared sweeps, no worker series) shows: one bar each. */
  perCase: SpeedupEntry[];
  cases: CaseResult[];
  /** Per case, the samples the strip plot draws (thinned to MAX_STRIP_POINTS). */
  shownSamples: number[][];
}

/** The charts' selection from one run's results (see ChartSelection). */
export function selectCharts(results: Results): ChartSelection {
  const declared = results.sweeps.length > 0;
  const names = baselineVariants(results);
  const sweeps = sweepCharts(results).map((chart) => {
    const workersAreX = chart.curves.map((curve) => curve.points.every((p) => p.entry.workers === p.x));
    const fits = chart.curves.map((curve, i) => (workersAreX[i] ? (amdahlFitFor(results, curve.points[0]!.entry) ?? null) : null));
    return { chart, workersAreX, fits };
  });
  const workerSweeps = declared ? [] : workerSeries(results);
  return {
    lab: results.lab,
    availableParallelism: results.environment.availableParallelism,
    baseline: names.length === 1 ? (names[0] ?? 'baseline') : 'its baseline',
    workerSeries: workerSweeps.map((series) => ({ label: series.label, entries: series.entries, fit: amdahlFitFor(results, series.entries[0]!) ?? null })),
    sweeps,
    // With declared sweeps, the cases no sweep curve shows; an older file without them: the cases without workers.
    perCase: declared ? speedupsOutsideSweeps(results) : speedupsWithoutWorkers(results),
    cases: results.cases,
    shownSamples: results.cases.map((c) => thinSamples(c.samplesMs)),
  };
}
