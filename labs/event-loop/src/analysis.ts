/**
 * The event-loop lab's reading of a run, beyond the harness's speedups: for each role a case plays in the episode
 * (inline, chunked, threadpool, the one-worker pool, the pool at P, the oversubscribed pool) its burst time, its
 * throughput, the /ping latency under load, the server's event-loop delay and the load generator's own CPU use, as
 * values with units and intervals (analysis/values.json, issue 20), and one table of every case.
 * Pure functions of the validated results: they start nothing and read no files.
 */
import type { AnalysisTable, MeasuredValue } from '@parallel-course/core';
import { type CaseResult, formatShare, median, orderStatisticMedianCi, type Results, type SpeedupEntry } from '@parallel-course/core';

/** The observations each server case records (lab.ts: serverCase). */
export const PING = 'ping latency';
export const LOOP_DELAY_P99 = 'event-loop delay p99';
export const LOOP_DELAY_MAX = 'event-loop delay max';
/** The observation that records the load generator's own CPU use. */
export const LOAD_CPU = 'load generator CPU';

/**
 * The roles a case plays in the episode, by the key prefix its values get. The pool's roles are named by their place
 * in the sweep, not by a count, so that the same key names the same role on any machine: `poolAtP` is the headline
 * (one worker per CPU the job may use), `poolOver` the largest pool when it has more workers than CPUs.
 */
export type Role = 'inline' | 'chunked' | 'threadpool' | 'pool1' | 'poolAtP' | 'poolOver';

/** The case that plays `role` in this run, or undefined when the run has none (an optional case left out, P = 1...). */
export function caseForRole(results: Results, role: Role): CaseResult | undefined {
  const p = results.cpus.available;
  const pools = results.cases.filter((c) => c.variant === 'pool' && c.workers !== undefined);
  switch (role) {
    case 'inline':
    case 'chunked':
    case 'threadpool':
      return results.cases.find((c) => c.variant === role);
    case 'pool1':
      return pools.find((c) => c.workers === 1);
    case 'poolAtP':
      return pools.find((c) => c.workers === p);
    case 'poolOver': {
      const over = pools.filter((c) => (c.workers as number) > p);
      return over.sort((a, b) => (b.workers as number) - (a.workers as number))[0];
    }
  }
}

const ROLE_WORDS: Record<Role, string> = {
  inline: 'inline (the baseline: the work on the event loop)',
  chunked: 'chunked (one key per turn of the event loop)',
  threadpool: "threadpool (async crypto.pbkdf2 on libuv's threadpool)",
  pool1: 'the piscina pool with one worker',
  poolAtP: 'the piscina pool with one worker per CPU the job may use (P)',
  poolOver: 'the largest oversubscribed piscina pool (more workers than CPUs)',
};

/**
 * The median of per-sample values with its distribution-free 95% interval (order statistics), or null when there are
 * none. Reference: [3, 1, 2] -> median 2; 5 samples give [min, max] (fewer than 6 reach no 95% pair).
 */
export function medianWithInterval(samples: readonly number[]): { value: number; ci95: [number, number] } | null {
  if (samples.length === 0) return null;
  return { value: median(samples), ci95: orderStatisticMedianCi(samples) };
}

/**
 * Requests per second from the time of one burst, in ms, and the requests it served: the interval of the time maps to
 * the interval of the rate, ends swapped (a longer time is a lower rate). Reference: 24 requests in 576 ms [567, 590]
 * -> 41.67 req/s [40.68, 42.33].
 */
export function requestsPerSecond(requests: number, medianMs: number, ci95Ms: readonly [number, number]): MeasuredValue & { ci95: [number, number] } {
  if (!(requests > 0) || !(medianMs > 0) || !(ci95Ms[0] > 0)) {
    throw new RangeError(`requestsPerSecond: requests and times must be positive, got ${requests} requests in ${medianMs} ms [${ci95Ms.join(', ')}]`);
  }
  const rate = (ms: number) => (1000 * requests) / ms;
  return { value: rate(medianMs), unit: 'req/s', ci95: [rate(ci95Ms[1]), rate(ci95Ms[0])], what: '' };
}

/** A case's speedup entry over the baseline, when the run has one. */
function speedupOf(results: Results, c: CaseResult): SpeedupEntry | undefined {
  return results.speedups.find((s) => s.variant === c.variant && (s.workers ?? null) === (c.workers ?? null));
}

/** "inline", "pool (workers=2 = P)", "pool (workers=4, oversubscribed)": the table's and the report's case names. */
const caseName = (c: CaseResult, p: number) =>
  c.workers === undefined ? c.variant : `${c.variant} (workers=${c.workers}${c.workers === p ? ' = P' : c.workers > p ? ', oversubscribed' : ''})`;

/** The derived values of one case, under `<role><Name>` keys. */
function roleValues(results: Results, role: Role, c: CaseResult): Record<string, MeasuredValue> {
  const who = ROLE_WORDS[role];
  const values: Record<string, MeasuredValue> = {};
  const requests = c.workPerSample.amount;
  values[`${role}BurstMs`] = {
    value: c.summary.median,
    unit: 'ms',
    ci95: c.summary.ci95,
    what: `median time of one burst of ${requests} /derive requests, ${who}`,
  };
  values[`${role}RequestsPerSecond`] = {
    ...requestsPerSecond(requests, c.summary.median, c.summary.ci95),
    what: `/derive requests served per second at the median burst time, ${who}`,
  };
  const ping = c.observations[PING];
  if (ping && ping.p50 !== null && ping.p99 !== null && ping.max !== null) {
    const pooled = `of every /ping answer during the measured bursts (${ping.samples.length} pings pooled; no interval: pings within a burst are not independent)`;
    values[`${role}PingP50Ms`] = { value: ping.p50, unit: 'ms', ci95: null, what: `median latency ${pooled}, ${who}` };
    values[`${role}PingP99Ms`] = { value: ping.p99, unit: 'ms', ci95: null, what: `99th-percentile latency ${pooled}, ${who}` };
    values[`${role}PingMaxMs`] = { value: ping.max, unit: 'ms', ci95: null, what: `longest latency ${pooled}, ${who}` };
  }
  const delayP99 = medianWithInterval(c.observations[LOOP_DELAY_P99]?.samples ?? []);
  if (delayP99) {
    values[`${role}LoopDelayP99Ms`] = {
      ...delayP99,
      unit: 'ms',
      what: `the server's event-loop delay, 99th percentile within a sample, median over the samples (the histogram's own timer period included), ${who}`,
    };
  }
  const delayMax = medianWithInterval(c.observations[LOOP_DELAY_MAX]?.samples ?? []);
  if (delayMax) {
    values[`${role}LoopDelayMaxMs`] = { ...delayMax, unit: 'ms', what: `the server's longest event-loop stall within a sample, median over the samples, ${who}` };
  }
  const cpu = medianWithInterval(c.observations[LOAD_CPU]?.samples ?? []);
  if (cpu) {
    values[`${role}LoadCpuPercent`] = { ...cpu, unit: '%', what: `the load generator's CPU time per sample as a share of one CPU, median, ${who}` };
  }
  const s = speedupOf(results, c);
  if (s && role !== 'inline') {
    values[`${role}Speedup`] = { value: s.speedup, unit: 'x', ci95: s.ci95, what: `speedup over inline, median(inline) / median(case), ${who}` };
    if (s.efficiency !== undefined) {
      values[`${role}Efficiency`] = {
        value: s.efficiency,
        unit: '',
        ci95: s.efficiencyCi95 ?? null,
        what: `parallel efficiency (speedup over ${s.efficiencyBasis === 'one-worker' ? 'the one-worker pool' : 'inline'} / workers), ${who}`,
      };
    }
    if (s.karpFlatt !== undefined) {
      values[`${role}KarpFlatt`] = { value: s.karpFlatt, unit: '', ci95: null, what: `Karp-Flatt serial fraction (1/S - 1/p) / (1 - 1/p), ${who}` };
    }
  }
  return values;
}

/** One value of a table cell, or '' where the case has none. */
const cell = (value: MeasuredValue | undefined): string | MeasuredValue => value ?? '';

/** Every case of the run in one table: the one episode 05 shows. */
export function casesTable(results: Results): AnalysisTable {
  const p = results.cpus.available;
  const requests = results.cases[0]?.workPerSample.amount ?? 0;
  const rows = results.cases.map((c) => {
    const s = c.variant === 'inline' ? undefined : speedupOf(results, c);
    const delay = medianWithInterval(c.observations[LOOP_DELAY_P99]?.samples ?? []);
    const cpu = medianWithInterval(c.observations[LOAD_CPU]?.samples ?? []);
    const ping = c.observations[PING];
    return [
      caseName(c, p),
      { value: c.summary.median, unit: 'ms', ci95: c.summary.ci95, what: 'median burst time' },
      c.variant === 'inline' ? 'baseline' : cell(s && { value: s.speedup, unit: 'x', ci95: s.ci95, what: 'speedup over inline' }),
      cell(s?.efficiency === undefined ? undefined : { value: s.efficiency, unit: '', ci95: s.efficiencyCi95 ?? null, what: 'parallel efficiency' }),
      cell(s?.karpFlatt === undefined ? undefined : { value: s.karpFlatt, unit: '', ci95: null, what: 'Karp-Flatt serial fraction' }),
      cell(ping?.p99 === null || ping === undefined ? undefined : { value: ping.p99, unit: 'ms', ci95: null, what: '/ping latency, 99th percentile' }),
      cell(delay ? { ...delay, unit: 'ms', what: 'event-loop delay p99 per sample, median' } : undefined),
      cell(cpu ? { ...cpu, unit: '%', what: "load generator's CPU share of one CPU, median" } : undefined),
    ];
  });
  return {
    caption: `Every case of the run: a burst of ${requests} /derive requests per sample, P = ${p}. Medians with 95% intervals; /ping p99 pooled over the run's pings.`,
    columns: ['case', `burst time (${requests} requests)`, 'speedup vs inline', 'efficiency', 'Karp-Flatt', '/ping p99', 'event-loop delay p99', 'load generator CPU'],
    rows,
  };
}

/** The load generator's median CPU share per case, and whether its workers plus that share want more than P CPUs. */
function loadGeneratorShares(results: Results): { label: string; share: number; competes: boolean }[] {
  const p = results.cpus.available;
  return results.cases
    .filter((c) => c.observations[LOAD_CPU] !== undefined && c.observations[LOAD_CPU].p50 !== null)
    .map((c) => {
      const share = (c.observations[LOAD_CPU]!.p50 as number) / 100;
      return { label: caseName(c, p), share, competes: (c.workers ?? 1) + share > p };
    });
}

/**
 * Where the load generator competes with the pool: its median CPU share at each pool size, and the cases whose
 * workers plus the generator's share exceed P. The lab's analysis (after every run) prints it.
 */
function loadGeneratorReport(results: Results): string {
  const p = results.cpus.available;
  const rows = loadGeneratorShares(results);
  if (rows.length === 0) return 'The load generator recorded no CPU use in this run.';
  const lines = [
    `The load generator (this lab's autocannon and /ping probe, in the harness's runner process) used, per sample, this share of one CPU (median); P = ${p}:`,
    ...rows.map((r) => `  ${r.label.padEnd(34)} ${formatShare(r.share, 1, 0).padStart(5)}${r.competes ? '   competes: workers + load generator > P' : ''}`),
  ];
  const competing = rows.filter((r) => r.competes);
  lines.push(
    competing.length === 0
      ? 'It never needed a CPU the workers were using: every pool size had a CPU to spare for it.'
      : `In ${competing.length} case(s) the workers and the load generator together wanted more than ${p} CPUs: there the throughput is the node's less the generator's share, and the pool cannot scale past it. On a bigger node this happens only at P and beyond.`,
  );
  return lines.join('\n');
}

/** The lab's values: the run's shape (P, burst, pool sizes), each role's numbers, the pool's Amdahl fit, the load generator. */
export function eventLoopValues(results: Results): Record<string, MeasuredValue> {
  const p = results.cpus.available;
  const values: Record<string, MeasuredValue> = {
    cpus: { value: p, unit: '', ci95: null, what: 'P: the CPUs the run may use, which sized its pools' },
  };
  const first = results.cases[0];
  if (first) values.requestsPerBurst = { value: first.workPerSample.amount, unit: '', ci95: null, what: '/derive requests per burst (one sample), all in flight at once' };
  const pools = results.cases.filter((c) => c.variant === 'pool' && c.workers !== undefined).map((c) => c.workers as number);
  if (pools.length > 0) {
    values.smallestPool = { value: Math.min(...pools), unit: '', ci95: null, what: 'the fewest workers of a pool measured in this run' };
    values.largestPool = { value: Math.max(...pools), unit: '', ci95: null, what: 'the most workers of a pool measured in this run' };
  }
  for (const role of ['inline', 'chunked', 'threadpool', 'pool1', 'poolAtP', 'poolOver'] as const) {
    const c = caseForRole(results, role);
    if (c) Object.assign(values, roleValues(results, role, c));
  }
  const inline = caseForRole(results, 'inline');
  if (inline) {
    const n = inline.workPerSample.amount;
    values.inlineMsPerRequest = {
      value: inline.summary.median / n,
      unit: 'ms',
      ci95: [inline.summary.ci95[0] / n, inline.summary.ci95[1] / n],
      what: 'inline burst time per request: on one thread, about the CPU time one /derive request costs',
    };
  }
  const fit = results.amdahl.find((a) => a.variant === 'pool');
  if (fit) {
    values.poolSerialFraction = { value: fit.serialFraction, unit: '', ci95: null, what: `serial fraction of the Amdahl fit to the pool's speedups up to P (${fit.points} points)` };
    if (fit.maxSpeedup !== null) values.poolAmdahlMaxSpeedup = { value: fit.maxSpeedup, unit: 'x', ci95: null, what: "the largest speedup the pool's Amdahl fit allows, 1 / serial fraction: extrapolated, not measured" };
  }
  const shares = loadGeneratorShares(results);
  if (shares.length > 0) {
    values.loadCpuMaxPercent = { value: 100 * Math.max(...shares.map((s) => s.share)), unit: '%', ci95: null, what: "the load generator's largest median CPU share (of one CPU) over the cases" };
    values.loadCpuCompetingCases = { value: shares.filter((s) => s.competes).length, unit: '', ci95: null, what: 'cases whose workers plus the load generator wanted more than P CPUs' };
  }
  return values;
}

/** The lab's analysis: the load-generator text, the values and the table. */
export function eventLoopAnalysis(results: Results): { text: string; files: []; values: Record<string, MeasuredValue>; tables: Record<string, AnalysisTable> } {
  return {
    text: `# Event loop: the load generator\n\n\`\`\`\n${loadGeneratorReport(results)}\n\`\`\``,
    files: [],
    values: eventLoopValues(results),
    tables: { cases: casesTable(results) },
  };
}
