/**
 * Numbers the harness does not compute, derived from a results.json of this lab: the best and worst chunk sizes,
 * the wall time each extra task adds (the slope of time against task count on the overhead-bound side of the
 * curve), the rule of thumb that follows (how long a task must be for the overhead to cost at most 10%), and, for
 * each pool size, its efficiency split into utilisation x speed ratio (busy-clock.ts), with a chart of the split.
 *
 * The lab's `analyse` (LabDefinition): the harness runs it after every run and with
 *   npm run analyse -- results/task-granularity/<run>      (or: npm run analyse -- --lab task-granularity)
 * and writes analysis.md and efficiency-split.png into a new folder of the run.
 */
import type { LabAnalysis } from '@parallel-course/harness/lab-definition.ts';
import { renderChartPng } from '@parallel-course/harness/report/png.ts';
import type { Results } from '@parallel-course/harness/results-schema.ts';
import { UTILISATION, WORKER_NS_PER_POINT } from './busy-clock.ts';
import { efficiencySplitChart } from './split-chart.ts';

/** Least-squares line y = intercept + slope * x. Needs two distinct x values. */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } {
  if (xs.length !== ys.length || xs.length < 2) throw new RangeError('linearFit needs two or more (x, y) pairs of equal count');
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    sxx += ((xs[i] as number) - mx) ** 2;
  }
  if (sxx === 0) throw new RangeError('linearFit needs two distinct x values');
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/**
 * Tasks at or above this count, and at least 16 per worker, are on the overhead-bound side of the curve, where time
 * grows with the task count (with fewer per worker, idle workers at the end still shape the time).
 */
export const OVERHEAD_SIDE_MIN_TASKS = 64;

/** The fewest tasks a size needs to count as overhead-bound on `workers` workers. */
export function overheadSideMinTasks(workers: number): number {
  return Math.max(OVERHEAD_SIDE_MIN_TASKS, 16 * workers);
}

export interface ChunkPoint {
  chunk: number;
  tasks: number;
  medianMs: number;
  efficiency: number | null;
  /** Median share of the workers' time spent computing (0..1); null for a run made before the lab recorded it. */
  utilisation: number | null;
  /** Serial ns per point / the workers' median ns per point: below 1, the cores ran the code slower than serial did. */
  speedRatio: number | null;
}

export interface Granularity {
  points: number;
  workers: number;
  serialMedianMs: number;
  /** ns of work per point on one core: serial median / points. */
  nsPerPoint: number;
  curves: Record<string, ChunkPoint[]>;
  best: Record<string, ChunkPoint>;
  worst: Record<string, ChunkPoint>;
  /** Wall-time µs each extra task adds with `workers` workers; null with fewer than two overhead-bound sizes. */
  overheadPerTaskUs: Record<string, number | null>;
  /**
   * The shortest task (µs) for which that overhead costs at most 10% efficiency: t >= 9 * workers * overhead.
   * Null when the overhead could not be measured (a slope <= 0 means noise swamped it: re-run on a quieter machine).
   */
  minTaskUs: Record<string, number | null>;
}

/** Reads the chunk-size curves of `pool` and `process` from results and derives the granularity numbers. */
export function deriveGranularity(results: Results, points: number, workers: number): Granularity {
  const serial = results.cases.find((c) => c.variant === 'serial' && Object.keys(c.params).length === 0);
  if (!serial) throw new Error('the results have no serial {} case: was this a task-granularity run that passed its check?');
  const g: Granularity = {
    points,
    workers,
    serialMedianMs: serial.summary.median,
    nsPerPoint: (serial.summary.median * 1e6) / points,
    curves: {},
    best: {},
    worst: {},
    overheadPerTaskUs: {},
    minTaskUs: {},
  };
  for (const variant of ['pool', 'process']) {
    const curve = results.cases
      .filter((c) => c.variant === variant && typeof c.params['chunk'] === 'number')
      .map((c) => {
        const chunk = c.params['chunk'] as number;
        const s = results.speedups.find((e) => e.variant === variant && e.params['chunk'] === chunk);
        const busy = c.observations?.[UTILISATION]?.p50 ?? null;
        const workerNs = c.observations?.[WORKER_NS_PER_POINT]?.p50 ?? null;
        return {
          chunk,
          tasks: Math.ceil(points / chunk),
          medianMs: c.summary.median,
          efficiency: s?.efficiency ?? null,
          utilisation: busy === null ? null : busy / 100,
          speedRatio: workerNs === null || workerNs <= 0 ? null : g.nsPerPoint / workerNs,
        };
      })
      .sort((a, b) => a.chunk - b.chunk);
    if (curve.length === 0) continue;
    g.curves[variant] = curve;
    g.best[variant] = curve.reduce((a, b) => (b.medianMs < a.medianMs ? b : a));
    g.worst[variant] = curve.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
    const left = curve.filter((p) => p.tasks >= overheadSideMinTasks(workers));
    const overhead = left.length >= 2 ? linearFit(left.map((p) => p.tasks), left.map((p) => p.medianMs)).slope * 1000 : null;
    g.overheadPerTaskUs[variant] = overhead;
    g.minTaskUs[variant] = overhead === null || overhead <= 0 ? null : 9 * workers * overhead;
  }
  return g;
}

function fmt(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined ? 'n/a' : Number(x.toPrecision(digits)).toString();
}

/** Two decimals: the two factors are compared with each other and with the efficiency, so they share one format. */
function fixed2(x: number | null): string {
  return x === null ? 'n/a' : x.toFixed(2);
}

export function formatGranularity(g: Granularity): string {
  const lines = [
    `serial: ${fmt(g.serialMedianMs)} ms for ${g.points} points = ${fmt(g.nsPerPoint)} ns per point on one core`,
  ];
  for (const variant of Object.keys(g.curves)) {
    const best = g.best[variant]!;
    const worst = g.worst[variant]!;
    const o = g.overheadPerTaskUs[variant];
    const t = g.minTaskUs[variant];
    const rule =
      t === null || t === undefined
        ? 'not measurable in this run (fewer than two sizes with >= 64 tasks, or noise made the slope <= 0: re-run)'
        : `should take >= ${fmt(t)} µs, i.e. >= ${Math.ceil((t * 1000) / g.nsPerPoint)} points`;
    lines.push(
      `${variant}: best chunk ${best.chunk} (${best.tasks} tasks, ${fmt(best.medianMs)} ms, efficiency ${fmt(best.efficiency, 2)}); ` +
        `worst chunk ${worst.chunk} (${worst.tasks} tasks, ${fmt(worst.medianMs)} ms, efficiency ${fmt(worst.efficiency, 2)})`,
      `${variant}: each extra task adds ${fmt(o)} µs of wall time with ${g.workers} workers; for at most 10% overhead a task ${rule}`,
    );
  }
  return lines.join('\n');
}

/**
 * Where the efficiency of each pool and process size went: efficiency ~= utilisation x speed ratio (medians of per-sample values, so
 * the product is close to, not exactly, the efficiency of the medians).
 */
export function formatEfficiencySplit(g: Granularity): string {
  const lines: string[] = [];
  for (const [variant, curve] of Object.entries(g.curves)) {
    if (curve.every((p) => p.utilisation === null)) continue;
    lines.push(`${`${variant} chunk`.padStart(13)}  tasks  median ms  efficiency  = utilisation x speed ratio`);
    for (const p of curve) {
      lines.push(
        `${String(p.chunk).padStart(13)}  ${String(p.tasks).padStart(5)}  ${fmt(p.medianMs).padStart(9)}  ${fixed2(p.efficiency).padStart(10)}` +
          `    ${fixed2(p.utilisation).padStart(11)}   ${fixed2(p.speedRatio).padStart(11)}`,
      );
    }
  }
  if (lines.length === 0) return '';
  lines.push(
    'utilisation: share of the workers\' time spent computing (what scheduling, hand-offs and idle workers cost); ' +
      'speed ratio: serial ns per point / the workers\' (below 1: the cores ran slower while all were busy)',
  );
  return lines.join('\n');
}

/** The hand-off table: per payload and transport, the round trip (median [95% CI]) and the one-way hand-off p50. */
export function formatHandoffs(results: Results): string {
  const lines = ['payload  transport  round trip median [95% CI]  hand-off p50  vs checksum on the main thread'];
  const sizes = [...new Set(results.cases.map((c) => c.params['payloadMiB']).filter((v): v is number => typeof v === 'number'))].sort((a, b) => a - b);
  for (const mib of sizes) {
    for (const variant of ['serial', 'clone', 'transfer', 'shared']) {
      const c = results.cases.find((x) => x.variant === variant && x.params['payloadMiB'] === mib);
      if (!c) continue;
      const s = results.speedups.find((x) => x.variant === variant && x.params['payloadMiB'] === mib);
      const [lo, hi] = c.summary.ci95;
      lines.push(
        `${`${mib} MiB`.padEnd(9)}${variant.padEnd(11)}${`${fmt(c.summary.median)} ms [${fmt(lo)}, ${fmt(hi)}]`.padEnd(28)}` +
          `${(c.observations['hand-off']?.p50 === undefined ? '-' : `${fmt(c.observations['hand-off'].p50)} ms`).padEnd(14)}` +
          (s ? `${fmt(s.speedup, 2)}x [${fmt(s.ci95[0], 2)}, ${fmt(s.ci95[1], 2)}]` : 'baseline'),
      );
    }
  }
  return lines.join('\n');
}

/** Start-up and memory of the two kinds of worker, from the observations of the headline-size cases. */
export function formatWorkers(results: Results): string {
  const lines: string[] = [];
  for (const variant of ['pool', 'process']) {
    const c = results.cases.find((x) => x.variant === variant && x.observations['start-up']);
    if (!c) continue;
    const up = c.observations['start-up']!;
    const mem = c.observations['memory per worker'];
    lines.push(
      `${variant === 'pool' ? 'threads  ' : 'processes'}: start-up ${up.samples.map((x) => `${fmt(x)} ms`).join(', ')}` +
        `${variant === 'pool' ? ' (whole pool)' : ' (per child)'}; memory per worker ${mem ? mem.samples.map((x) => `${fmt(x)} MiB`).join(', ') : 'n/a'}`,
    );
  }
  return lines.join('\n');
}

/** The analysis of a run of this lab, for `points` points per run on `workers` workers (lab.ts's pointsFor(W) and W = P, from results.cpus). */
export async function analyseGranularity(results: Results, points: number, workers: number): Promise<LabAnalysis> {
  const granularity = deriveGranularity(results, points, workers);
  const sections = [`# Task granularity: what the run shows\n`, '```', formatGranularity(granularity)];
  const split = formatEfficiencySplit(granularity);
  if (split) sections.push('', split);
  sections.push('', formatWorkers(results), '', formatHandoffs(results));
  const h = results.headline;
  if (h) {
    const eff = h.efficiency === undefined ? '' : `, efficiency ${fmt(h.efficiency, 2)}${h.efficiencyCi95 ? ` [${fmt(h.efficiencyCi95[0], 2)}, ${fmt(h.efficiencyCi95[1], 2)}]` : ''}`;
    sections.push('', `headline: ${h.variant} ${JSON.stringify(h.params)}: speedup ${fmt(h.speedup)} [${fmt(h.ci95[0])}, ${fmt(h.ci95[1])}]${eff}, serial ${fmt(h.baselineMedianMs)} ms`);
  }
  const env = results.environment;
  sections.push(`machine: ${env.cpuModel}, P = ${results.cpus.p}${results.cpus.forced ? ' (forced)' : ''}, Node ${env.node}, run started ${results.startedAt}`, '```');
  const files: LabAnalysis['files'] = [];
  const machine = `${env.cpuModel}, P = ${results.cpus.p}, ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC`;
  const chart = efficiencySplitChart(granularity, machine);
  if (chart) {
    files.push({ name: 'efficiency-split.png', contents: await renderChartPng(chart.config, 1000, 560) });
    sections.push('', '![Efficiency split into workers busy x speed ratio, per chunk size](efficiency-split.png)');
  }
  return { text: sections.join('\n'), files };
}
