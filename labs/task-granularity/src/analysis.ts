/**
 * Numbers the harness does not compute, derived from a results.json of this lab, for each sweep (the pool at W = 1,
 * 2 and P, the processes at P): the best and worst chunk sizes, the wall time each extra task adds (the slope of
 * time against task count on the overhead-bound side of the curve, rule-check.ts), the rule of thumb that follows
 * (tasks of at least 9·W·o) checked against that sweep's own curve, and its efficiency split into utilisation x speed
 * ratio (busy-clock.ts), with a chart of the split at W = P.
 *
 * The lab's `labAnalysis` (LabDefinition): the harness runs it after every run and with
 *   npm run analyse -- results/task-granularity/<run>      (or: npm run analyse -- --lab task-granularity)
 * and writes analysis.md, values.json and efficiency-split.png into a new folder of the run.
 */
import { type LabAnalysis, renderChartPng } from '@parallel-course/harness';
import { formatFixed, formatMicroseconds, formatOrNA, median, paramsKey, type Results } from '@parallel-course/core';
import { granularityTables, granularityValues } from './analysis-tables.ts';
import { UTILISATION, WORKER_NS_PER_POINT } from './busy-clock.ts';
import { findKnee, fitOverhead, KNEE_FRACTION, ruleMinTaskUs, ruleVerdict, verdictText } from './rule-check.ts';
import { efficiencySplitChart } from './split-chart.ts';
import { sweepOf, type ChunkPoint, type Granularity, type Sweep } from './sweep-model.ts';

/**
 * Tasks at or above this count, and at least 16 per worker, are on the overhead-bound side of the curve, where time
 * grows with the task count (with fewer per worker, idle workers at the end still shape the time).
 */
const OVERHEAD_SIDE_MIN_TASKS = 64;

/** The fewest tasks a size needs to count as overhead-bound on `workers` workers. */
function overheadSideMinTasks(workers: number): number {
  return Math.max(OVERHEAD_SIDE_MIN_TASKS, 16 * workers);
}

type CaseResult = Results['cases'][number];

/**
 * Reads every chunk-size sweep of `pool` and `process` from results and derives the granularity numbers. A case's
 * points and W are its params; `fallback` gives them for a run from before they were params (one sweep at P).
 */
export function deriveGranularity(results: Results, fallback: { points: number; workers: number }): Granularity {
  const serials = results.cases.filter((c) => c.variant === 'serial' && c.params['payloadMiB'] === undefined);
  if (serials.length === 0) throw new Error('the results have no serial Monte Carlo case: was this a task-granularity run that passed its check?');
  const groups = new Map<string, { variant: string; workers: number; points: number; cases: CaseResult[] }>();
  for (const c of results.cases) {
    if ((c.variant !== 'pool' && c.variant !== 'process') || typeof c.params['chunk'] !== 'number') continue;
    const workers = typeof c.params['workers'] === 'number' ? c.params['workers'] : (c.workers ?? fallback.workers);
    const points = typeof c.params['points'] === 'number' ? c.params['points'] : fallback.points;
    const key = `${c.variant}|${workers}|${points}`;
    const group = groups.get(key) ?? { variant: c.variant, workers, points, cases: [] };
    group.cases.push(c);
    groups.set(key, group);
  }
  const sweeps: Sweep[] = [];
  for (const group of groups.values()) {
    const serial = serials.find((c) => c.params['points'] === group.points) ?? serials.find((c) => c.params['points'] === undefined);
    if (!serial) continue;
    sweeps.push(deriveSweep(results, group, serial));
  }
  // Pools first, then by W: the order of the tables.
  sweeps.sort((a, b) => (a.variant === b.variant ? a.workers - b.workers : a.variant === 'pool' ? -1 : 1));
  return { p: results.cpus.p, sweeps };
}

function deriveSweep(results: Results, group: { variant: string; workers: number; points: number; cases: CaseResult[] }, serial: CaseResult): Sweep {
  const { variant, workers, points } = group;
  const nsPerPoint = (serial.summary.median * 1e6) / points;
  const curve: ChunkPoint[] = group.cases
    .map((c) => {
      const chunk = c.params['chunk'] as number;
      const key = paramsKey(c.params);
      const s = results.speedups.find((e) => e.variant === variant && paramsKey(e.params) === key);
      const busy = c.observations?.[UTILISATION]?.p50 ?? null;
      const workerNs = c.observations?.[WORKER_NS_PER_POINT]?.p50 ?? null;
      return {
        chunk,
        tasks: Math.ceil(points / chunk),
        taskUs: (Math.min(chunk, points) * nsPerPoint) / 1000,
        medianMs: c.summary.median,
        medianCi95: c.summary.ci95 ?? null,
        samplesMs: c.samplesMs ?? [],
        speedup: s?.speedup ?? null,
        speedupCi95: s?.ci95 ?? null,
        efficiency: s ? s.speedup / workers : null,
        efficiencyCi95: s ? [s.ci95[0] / workers, s.ci95[1] / workers] : null,
        utilisation: busy === null ? null : busy / 100,
        speedRatio: workerNs === null || workerNs <= 0 ? null : nsPerPoint / workerNs,
      } satisfies ChunkPoint;
    })
    .sort((a, b) => a.chunk - b.chunk);
  const left = curve.filter((p) => p.tasks >= overheadSideMinTasks(workers));
  const fit = fitOverhead(left.map((p) => ({ tasks: p.tasks, medianMs: p.medianMs, samplesMs: p.samplesMs })), results.seed ?? 1);
  const overhead = fit?.perTaskUs ?? null;
  const minTaskUs = ruleMinTaskUs(workers, overhead);
  const knee = findKnee(curve);
  return {
    variant,
    workers,
    points,
    serialMedianMs: serial.summary.median,
    serialCi95: serial.summary.ci95 ?? null,
    nsPerPoint,
    curve,
    best: curve.reduce((a, b) => (b.medianMs < a.medianMs ? b : a)),
    worst: curve.reduce((a, b) => (b.medianMs > a.medianMs ? b : a)),
    overheadPerTaskUs: overhead,
    overheadCi95: fit?.ci95 ?? null,
    minTaskUs,
    knee,
    verdict: ruleVerdict(minTaskUs, knee),
    oversubscribed: workers > (results.cpus.available ?? results.cpus.p),
  };
}

function sweepName(s: Sweep): string {
  return `${s.variant} W=${s.workers}`;
}

export function formatGranularity(g: Granularity): string {
  const lines: string[] = [];
  for (const s of g.sweeps) {
    const o = s.overheadPerTaskUs;
    const rule =
      s.minTaskUs === null
        ? 'not measurable in this run (fewer than two sizes with enough tasks, or noise made the slope <= 0: re-run)'
        : `should take >= ${formatMicroseconds(s.minTaskUs)}, i.e. >= ${Math.ceil((s.minTaskUs * 1000) / s.nsPerPoint)} points`;
    lines.push(
      `${sweepName(s)}: serial ${formatOrNA(s.serialMedianMs)} ms for ${s.points} points = ${formatOrNA(s.nsPerPoint)} ns per point on one core`,
      `${sweepName(s)}: best chunk ${s.best.chunk} (${s.best.tasks} tasks, ${formatOrNA(s.best.medianMs)} ms, efficiency ${formatOrNA(s.best.efficiency, 2)}); ` +
        `worst chunk ${s.worst.chunk} (${s.worst.tasks} tasks, ${formatOrNA(s.worst.medianMs)} ms, efficiency ${formatOrNA(s.worst.efficiency, 2)})`,
      `${sweepName(s)}: each extra task adds ${formatOrNA(o)} µs${s.overheadCi95 ? ` [${formatOrNA(s.overheadCi95[0])}, ${formatOrNA(s.overheadCi95[1])}]` : ''} of wall time with ${s.workers} worker${s.workers === 1 ? '' : 's'}; for at most 10% overhead a task ${rule}`,
    );
  }
  return lines.join('\n');
}

/** The rule checked against each sweep's own curve: one line per sweep with its verdict. */
export function formatRuleCheck(g: Granularity): string {
  const lines = [`The rule 9·W·o against each curve's knee (where its efficiency first reaches ${KNEE_FRACTION * 100}% of its best):`];
  for (const s of g.sweeps) {
    const knee = s.knee;
    const measured =
      knee === null
        ? 'no knee (fewer than two efficiencies)'
        : knee.between[0] === null
          ? `already at ${formatOrNA(knee.threshold, 2)} with the shortest tasks measured (${formatMicroseconds(knee.taskUs)}): the knee is at or below that`
          : `reaches ${formatOrNA(knee.threshold, 2)} (${KNEE_FRACTION} x its best, ${formatOrNA(knee.best, 2)}) at about ${formatMicroseconds(knee.taskUs)} (between ${formatMicroseconds(knee.between[0])} and ${formatMicroseconds(knee.between[1])})`;
    const ratio = s.minTaskUs !== null && knee !== null ? ` (${formatOrNA(s.minTaskUs / knee.taskUs, 2)}x the knee)` : '';
    const over = s.oversubscribed ? ` (oversubscribed: ${s.workers} workers on fewer CPUs; the rule assumes one CPU per worker)` : '';
    lines.push(`- ${sweepName(s)}: rule ${formatMicroseconds(s.minTaskUs)}${ratio}; the curve ${measured}. Verdict: ${verdictText(s.verdict)}${over}.`);
  }
  return lines.join('\n');
}

/**
 * Where the efficiency of each size went: efficiency ~= utilisation x speed ratio (medians of per-sample values, so
 * the product is close to, not exactly, the efficiency of the medians).
 */
export function formatEfficiencySplit(g: Granularity): string {
  // The efficiency and its two factors with two decimals each: they are compared with each other digit for digit.
  const lines: string[] = [];
  for (const s of g.sweeps) {
    if (s.curve.every((p) => p.utilisation === null)) continue;
    lines.push(`${`${sweepName(s)} chunk`.padStart(20)}  tasks  median ms  efficiency  = utilisation x speed ratio`);
    for (const p of s.curve) {
      lines.push(
        `${String(p.chunk).padStart(20)}  ${String(p.tasks).padStart(5)}  ${formatOrNA(p.medianMs).padStart(9)}  ${formatFixed(p.efficiency, 2).padStart(10)}` +
          `    ${formatFixed(p.utilisation, 2).padStart(11)}   ${formatFixed(p.speedRatio, 2).padStart(11)}`,
      );
    }
  }
  if (lines.length === 0) return '';
  lines.push(
    'efficiency: speedup over the serial loop of the same points / W; utilisation: share of the workers\' time spent computing ' +
      '(what scheduling, hand-offs and idle workers cost); speed ratio: serial ns per point / the workers\' (below 1: the cores ran slower while all were busy)',
  );
  return lines.join('\n');
}

/** The hand-off table: per payload and transport, the round trip (median [95% CI]) and the one-way hand-off p50. */
function formatHandoffs(results: Results): string {
  const lines = ['payload  transport  round trip median [95% CI]  hand-off p50  vs checksum on the main thread'];
  const sizes = [...new Set(results.cases.map((c) => c.params['payloadMiB']).filter((v): v is number => typeof v === 'number'))].sort((a, b) => a - b);
  for (const mib of sizes) {
    for (const variant of ['serial', 'clone', 'transfer', 'shared']) {
      const c = results.cases.find((x) => x.variant === variant && x.params['payloadMiB'] === mib);
      if (!c) continue;
      const s = results.speedups.find((x) => x.variant === variant && x.params['payloadMiB'] === mib);
      const [lo, hi] = c.summary.ci95;
      lines.push(
        `${`${mib} MiB`.padEnd(9)}${variant.padEnd(11)}${`${formatOrNA(c.summary.median)} ms [${formatOrNA(lo)}, ${formatOrNA(hi)}]`.padEnd(28)}` +
          `${(c.observations['hand-off']?.p50 === undefined ? '-' : `${formatOrNA(c.observations['hand-off'].p50)} ms`).padEnd(14)}` +
          (s ? `${formatOrNA(s.speedup, 2)}x [${formatOrNA(s.ci95[0], 2)}, ${formatOrNA(s.ci95[1], 2)}]` : 'baseline'),
      );
    }
  }
  return lines.join('\n');
}

/** Start-up and memory of the two kinds of worker, from the observations of the headline-size cases. */
function formatWorkers(results: Results): string {
  const lines: string[] = [];
  for (const variant of ['pool', 'process']) {
    const c = results.cases.find((x) => x.variant === variant && x.observations['start-up']);
    if (!c) continue;
    const up = c.observations['start-up']!;
    const mem = c.observations['memory per worker'];
    const shown = (xs: number[], unit: string) => (xs.length > 8 ? `median ${formatOrNA(median(xs))} ${unit} of ${xs.length}` : xs.map((x) => `${formatOrNA(x)} ${unit}`).join(', '));
    lines.push(
      `${variant === 'pool' ? 'threads  ' : 'processes'}: start-up ${shown(up.samples, 'ms')}` +
        `${variant === 'pool' ? ' (whole pool)' : ' (per child)'}; memory per worker ${mem ? shown(mem.samples, 'MiB') : 'n/a'}`,
    );
  }
  return lines.join('\n');
}

/**
 * The analysis of a run of this lab. `fallback`: the points per run and W of a run from before the sweeps carried
 * them in their params (lab.ts: 2^22 per worker, at least 2, on P).
 */
export async function granularityAnalysis(results: Results, fallback: { points: number; workers: number }): Promise<LabAnalysis> {
  const granularity = deriveGranularity(results, fallback);
  const sections = [`# Task granularity: what the run shows\n`, '```', formatGranularity(granularity), '', formatRuleCheck(granularity)];
  const split = formatEfficiencySplit(granularity);
  if (split) sections.push('', split);
  sections.push('', formatWorkers(results), '', formatHandoffs(results));
  const h = results.headline;
  if (h) {
    const w = h.workers ?? 1;
    sections.push('', `headline: ${h.variant} ${JSON.stringify(h.params)}: speedup ${formatOrNA(h.speedup)} [${formatOrNA(h.ci95[0])}, ${formatOrNA(h.ci95[1])}], efficiency ${formatOrNA(h.speedup / w, 2)} [${formatOrNA(h.ci95[0] / w, 2)}, ${formatOrNA(h.ci95[1] / w, 2)}] on ${w} workers, serial ${formatOrNA(h.baselineMedianMs)} ms`);
  }
  const env = results.environment;
  sections.push(`machine: ${env.cpuModel}, P = ${results.cpus.p}${results.cpus.forced ? ` (forced with --cpus; ${results.cpus.available} available: oversubscribed beyond that)` : ''}, Node ${env.node}, run started ${results.startedAt}`, '```');
  const files: LabAnalysis['files'] = [];
  const machine = `${env.cpuModel}, P = ${results.cpus.p}, ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC`;
  const headlineSweep = sweepOf(granularity, 'pool', granularity.p) ?? granularity.sweeps.find((s) => s.variant === 'pool');
  const chart = headlineSweep ? efficiencySplitChart(headlineSweep, machine) : null;
  if (chart) {
    files.push({ name: 'efficiency-split.png', contents: await renderChartPng(chart.config, 1000, 560) });
    sections.push('', '![Efficiency split into workers busy x speed ratio, per chunk size](efficiency-split.png)');
  }
  return { text: sections.join('\n'), files, values: granularityValues(results, granularity), tables: granularityTables(results, granularity) };
}
