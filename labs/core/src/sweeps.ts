/**
 * The lab's declared sweeps as curves, for every reader that charts them (the HTML/Markdown reports, the results
 * viewer, the episodes): one curve per swept variant and setting of its other params, x the swept param, y the
 * speedup the sweep names (over the entry's baseline case, or over the same variant on one worker). Nothing is guessed
 * from param names: a file without sweeps has no sweep charts. A curve needs two points: a one-point "series" says
 * nothing about a trend and is left out (its speedup is still in the tables).
 */
import { caseLabel } from './case-identity.ts';
import type { Params, Results, SpeedupEntry, Sweep } from './results-schema.ts';

export interface SweepPoint {
  x: number;
  y: number;
  ci95: [number, number];
  /** The case the point's speedup is over, as the file names it. */
  over: { variant: string; params: Params };
  oversubscribed: boolean;
  entry: SpeedupEntry;
}

export interface SweepCurve {
  /** "pool (points=4194304, workers=2)": the variant and the params held fixed along the curve. */
  label: string;
  variant: string;
  fixed: Params;
  points: SweepPoint[];
}

export type SweepAxis = 'log2' | 'log10' | 'linear';

export interface SweepChart {
  sweep: Sweep;
  curves: SweepCurve[];
  /** How to draw x: log2 for powers of two spanning more than a factor of 4, log10 for other wide spans, else linear. */
  axis: SweepAxis;
  /** Axis title of y: "speedup over ts-typed" or "speedup over one worker". */
  yTitle: string;
}

function isPowerOfTwo(x: number): boolean {
  return x >= 1 && Number.isInteger(Math.log2(x));
}

/**
 * The x axis for these values: log2 when every x is a power of two and they span more than a factor of 4 (1, 2, 4 ... 64
 * threads; 512 ... 1M chunks), log10 when they are positive and span more than a factor of 16 otherwise (chunks of
 * points / 3), linear else: a linear axis would crowd the small values into one pixel.
 */
export function sweepAxis(xs: readonly number[]): SweepAxis {
  if (xs.length < 2 || !xs.every((x) => x > 0)) return 'linear';
  const span = Math.max(...xs) / Math.min(...xs);
  if (xs.every(isPowerOfTwo) && span > 4) return 'log2';
  return span > 16 ? 'log10' : 'linear';
}

/** The curves of one declared sweep in `results`, each with at least two points, sorted by x. */
export function sweepChart(results: Results, sweep: Sweep): SweepChart {
  const curves = new Map<string, SweepCurve>();
  for (const entry of results.speedups) {
    if (!sweep.variants.includes(entry.variant)) continue;
    const x = entry.params[sweep.param];
    if (typeof x !== 'number') continue;
    const useOneWorker = sweep.over === 'one-worker';
    const y = useOneWorker ? entry.efficiencySpeedup : entry.speedup;
    const over = useOneWorker ? entry.efficiencyOver : { variant: entry.baseline, params: entry.baselineParams };
    if (y === undefined || over === undefined) continue;
    const fixed = Object.fromEntries(Object.entries(entry.params).filter(([k]) => k !== sweep.param));
    const label = caseLabel({ variant: entry.variant, params: fixed });
    const curve = curves.get(label) ?? { label, variant: entry.variant, fixed, points: [] };
    const ci95: [number, number] = useOneWorker
      ? [(entry.efficiencyCi95?.[0] ?? y / (entry.workers ?? 1)) * (entry.workers ?? 1), (entry.efficiencyCi95?.[1] ?? y / (entry.workers ?? 1)) * (entry.workers ?? 1)]
      : [entry.ci95[0], entry.ci95[1]];
    curve.points.push({ x, y, ci95, over, oversubscribed: entry.oversubscribed, entry });
    curves.set(label, curve);
  }
  const kept = [...curves.values()].filter((c) => new Set(c.points.map((p) => p.x)).size >= 2);
  for (const c of kept) c.points.sort((a, b) => a.x - b.x);
  const xs = kept.flatMap((c) => c.points.map((p) => p.x));
  return { sweep, curves: kept, axis: sweepAxis([...new Set(xs)]), yTitle: sweep.over === 'one-worker' ? 'speedup over one worker' : `speedup over ${results.baseline}` };
}

/** Every declared sweep of `results` that has at least one curve. */
export function sweepCharts(results: Results): SweepChart[] {
  return results.sweeps.map((s) => sweepChart(results, s)).filter((c) => c.curves.length > 0);
}

/** The speedups no sweep curve shows (a bar chart or a table shows these). */
export function speedupsOutsideSweeps(results: Results): SpeedupEntry[] {
  const drawn = new Set(sweepCharts(results).flatMap((c) => c.curves.flatMap((curve) => curve.points.map((p) => p.entry))));
  return results.speedups.filter((s) => !drawn.has(s));
}
