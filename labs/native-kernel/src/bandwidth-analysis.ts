/**
 * What the triad cases say about this machine's memory: GB/s at each thread count, the efficiency the harness
 * computed from `workers`, where the bandwidth stops growing (saturates), and the two bandwidth roofs the roofline
 * draws (one thread, and the best over all thread counts). Pure functions of validated results.
 */
import { type CaseResult, formatPercent, formatSignificant, type Results, type SpeedupEntry } from '@parallel-course/core';
import { TRIAD_PARAM } from './triad.ts';

/** Bandwidth counts as saturated from the first thread count that reaches this fraction of the best. */
const SATURATION_FRACTION = 0.9;

/** True for the triad's cases: the native triad and its TypeScript baseline (`ts-typed` with `elements`). */
export function isTriadCase(c: Pick<CaseResult, 'params'>): boolean {
  return c.params[TRIAD_PARAM] !== undefined;
}

export interface TriadPoint {
  threads: number;
  /** GB/s (10^9 bytes/s, 24 bytes per element) at the median time, and the interval from the time's interval. */
  gbps: number;
  gbpsCi: [number, number];
  /** GB/s(threads) / (threads x GB/s(1)) with its 95% interval, from the harness; null where it has none. */
  efficiency: number | null;
  efficiencyCi: [number, number] | null;
}

/** GB/s of a case whose work is counted in bytes: bytes / (ms x 10^6). A longer time gives fewer GB/s. */
function gbpsOf(c: CaseResult): { gbps: number; gbpsCi: [number, number] } {
  const rate = (ms: number) => c.workPerSample.amount / (ms * 1e6);
  return { gbps: rate(c.summary.median), gbpsCi: [rate(c.summary.ci95[1]), rate(c.summary.ci95[0])] };
}

export interface Bandwidth {
  /** Array length of the triad, in elements (doubles). */
  elements: number;
  /** The native triad at each thread count measured, fewest threads first. */
  points: TriadPoint[];
  /** The native triad on one thread; null when that case did not run. */
  oneThread: TriadPoint | null;
  /** The highest GB/s over all thread counts: the all-cores bandwidth roof. */
  best: TriadPoint;
  /** The fewest threads that reach SATURATION_FRACTION of the best GB/s. */
  saturatesAt: number;
  /** The CPUs the sweep was planned for (P) and the most threads measured. */
  p: number;
  maxThreads: number;
  /** The same triad in TypeScript on one thread (the ts-typed baseline), GB/s; null when it did not run. */
  typescriptGbps: number | null;
}

/** The fewest threads whose GB/s reach `fraction` of the highest (points in any order). */
export function saturationPoint(points: readonly Pick<TriadPoint, 'threads' | 'gbps'>[], fraction = SATURATION_FRACTION): number {
  const best = Math.max(...points.map((p) => p.gbps));
  const reached = points.filter((p) => p.gbps >= fraction * best).map((p) => p.threads);
  return Math.min(...reached);
}

/** The triad's bandwidth from a run's results; null when the run has no native triad case. */
export function bandwidthFrom(results: Pick<Results, 'cases' | 'speedups' | 'cpus'>): Bandwidth | null {
  const triads = results.cases.filter((c) => c.variant === 'triad' && isTriadCase(c));
  if (triads.length === 0) return null;
  const efficiencyOf = (threads: number): SpeedupEntry | undefined =>
    results.speedups.find((s) => s.variant === 'triad' && s.workers === threads && s.efficiencyBasis === 'one-worker');
  const points: TriadPoint[] = triads
    .map((c) => {
      const threads = Number(c.params.threads);
      const entry = efficiencyOf(threads);
      return {
        threads,
        ...gbpsOf(c),
        efficiency: entry?.efficiency ?? null,
        efficiencyCi: entry?.efficiencyCi95 ?? null,
      };
    })
    .sort((x, y) => x.threads - y.threads);
  const best = points.reduce((x, y) => (y.gbps > x.gbps ? y : x));
  const ts = results.cases.find((c) => c.variant !== 'triad' && isTriadCase(c));
  return {
    elements: Number(triads[0]!.params[TRIAD_PARAM]),
    points,
    oneThread: points.find((p) => p.threads === 1) ?? null,
    best,
    saturatesAt: saturationPoint(points),
    p: results.cpus.p,
    maxThreads: points[points.length - 1]!.threads,
    typescriptGbps: ts ? gbpsOf(ts).gbps : null,
  };
}

/**
 * One sentence on where bandwidth stops growing: "saturates at 4 threads of 16" when a thread count below the last
 * one measured already reaches 90% of the best; otherwise that it was still growing (or that one thread count
 * cannot show a curve).
 */
export function saturationSentence(b: Bandwidth): string {
  const pct = formatPercent(SATURATION_FRACTION);
  const threads = (n: number) => `${n} thread${n === 1 ? '' : 's'}`;
  const best = `${formatSignificant(b.best.gbps)} GB/s at ${threads(b.best.threads)}`;
  if (b.points.length < 2) return `Only one thread count was measured (P = ${b.p}): one point shows no saturation; run on a node with more cores.`;
  if (b.saturatesAt < b.maxThreads) {
    return `Bandwidth saturates at ${b.saturatesAt} of ${b.p} threads: ${threads(b.saturatesAt)} already reach ${pct} of the best (${best}); more threads add little or nothing.`;
  }
  return `Bandwidth reaches ${pct} of its best (${best}) only at ${b.maxThreads} of ${b.p} threads: no saturation within this sweep (${b.p} cores may be too few to fill this machine's memory controllers).`;
}
