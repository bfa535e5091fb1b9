/**
 * The analysis as data (issue 20): the values and tables episode 06 quotes, by stable camelCase key, written to
 * analysis/values.json by the harness (schema: labs/core/src/analysis-values.ts) and rendered by the site's <Measured> and
 * <MeasuredTable>. Keys name a sweep by its role, not its size: `P` is the pool at W = P (the headline's), `W1` and
 * `W2` the pools of 1 and 2 threads (at P = 2, `W2` and `P` are the same sweep; at P = 1 there is no `W2`).
 */
import { formatCount, formatSignificant, median, type AnalysisTable, type MeasuredValue } from '@parallel-course/core';
import type { Results } from '@parallel-course/core';
import { sweepOf, type ChunkPoint, type Granularity, type Sweep } from './sweep-model.ts';
import { AGREEMENT_FACTOR, KNEE_FRACTION, verdictText } from './rule-check.ts';

type Interval = [number, number] | null | undefined;

function finite(x: number | null | undefined): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

/** A value with its unit, interval (when it is a real one: finite, low <= high) and one line saying what it is. */
function mv(value: number, unit: string, what: string, ci?: Interval): MeasuredValue {
  const good = ci && finite(ci[0]) && finite(ci[1]) && ci[0] <= ci[1];
  return { value, unit, what, ...(good ? { ci95: [ci[0], ci[1]] as [number, number] } : {}) };
}

/** The sweeps an episode can name, by role: W1, W2 (when 2 <= P) and P. */
function roles(g: Granularity): [string, Sweep][] {
  const out: [string, Sweep][] = [];
  for (const [tag, w] of [['W1', 1], ['W2', 2], ['P', g.p]] as const) {
    const s = sweepOf(g, 'pool', w);
    if (s) out.push([tag, s]);
  }
  return out;
}

function cellOrDash(x: MeasuredValue | null): MeasuredValue | string {
  return x ?? 'n/a';
}

function sweepTable(s: Sweep, caption: string): AnalysisTable {
  const row = (p: ChunkPoint): (string | MeasuredValue)[] => [
    formatCount(p.chunk),
    formatCount(p.tasks),
    mv(p.taskUs, 'µs', `work per task on one core: ${p.chunk} points at the serial loop's ns per point`),
    mv(p.medianMs, 'ms', `median time of a run in tasks of ${p.chunk} points on ${s.workers} ${s.variant === 'pool' ? 'threads' : 'processes'}`, p.medianCi95),
    cellOrDash(finite(p.speedup) ? mv(p.speedup, 'x', `speedup over the serial loop of the same ${s.points} points`, p.speedupCi95) : null),
    cellOrDash(finite(p.efficiency) ? mv(p.efficiency, '', `efficiency: speedup / ${s.workers} workers`, p.efficiencyCi95) : null),
    cellOrDash(finite(p.utilisation) ? mv(100 * p.utilisation, '%', "workers busy: the workers' compute time / (W x wall time), median of the samples") : null),
    cellOrDash(finite(p.speedRatio) ? mv(p.speedRatio, '', "speed ratio: the serial loop's ns per point / the workers'") : null),
  ];
  return {
    caption,
    columns: ['chunk (points)', 'tasks', 'work per task', 'median', 'speedup vs serial', 'efficiency', 'workers busy', 'speed ratio'],
    rows: s.curve.map(row),
  };
}

/** The values episode 06 quotes. */
export function granularityValues(results: Results, g: Granularity): Record<string, MeasuredValue> {
  const v: Record<string, MeasuredValue> = {};
  const atP = sweepOf(g, 'pool', g.p);
  if (atP) {
    v['serialMedianMs'] = mv(atP.serialMedianMs, 'ms', `the serial baseline of the headline: ${atP.points} points in one loop on the main thread`, atP.serialCi95);
    v['nsPerPoint'] = mv(atP.nsPerPoint, 'ns', 'work per Monte Carlo point on one core: the serial median / its points');
    v['pointsP'] = mv(atP.points, '', 'points per run at W = P (2^22 per worker): a lab input');
    const smallest = atP.curve[0];
    if (smallest && finite(smallest.speedup)) {
      v['smallestTasksSpeedupP'] = mv(smallest.speedup, 'x', `the pool at W = P with its smallest tasks (${smallest.tasks} tasks of ${smallest.chunk} points)`, smallest.speedupCi95);
      if (finite(smallest.utilisation)) v['smallestTasksBusyPctP'] = mv(100 * smallest.utilisation, '%', 'workers busy with the smallest tasks at W = P');
    }
  }
  for (const [tag, s] of roles(g)) {
    const w = `on ${s.workers} thread${s.workers === 1 ? '' : 's'}`;
    if (finite(s.overheadPerTaskUs)) {
      v[`perTaskOverheadUs${tag}`] = mv(s.overheadPerTaskUs, 'µs', `per-task overhead o of the pool ${w}: the slope of wall time against task count (bootstrap interval)`, s.overheadCi95);
    }
    if (finite(s.minTaskUs)) {
      v[`ruleMinTaskUs${tag}`] = mv(s.minTaskUs, 'µs', `the rule of thumb ${w}: tasks of at least 9·W·o for at most 10% overhead`);
      v[`ruleMinTaskPoints${tag}`] = mv(Math.ceil((s.minTaskUs * 1000) / s.nsPerPoint), '', `the rule's shortest task ${w}, in points`);
    }
    if (s.knee) {
      v[`kneeTaskUs${tag}`] = mv(s.knee.taskUs, 'µs', `the measured knee ${w}: the task length where efficiency first reaches ${KNEE_FRACTION * 100}% of the curve's best`);
      if (finite(s.minTaskUs)) v[`ruleOverKnee${tag}`] = mv(s.minTaskUs / s.knee.taskUs, '', `the rule's prediction / the measured knee ${w} (within ${AGREEMENT_FACTOR}x either way: the rule holds)`);
    }
  }
  const proc = sweepOf(g, 'process', g.p);
  if (proc && finite(proc.overheadPerTaskUs)) {
    v['processPerTaskOverheadUsP'] = mv(proc.overheadPerTaskUs, 'µs', `per-task overhead of the ${proc.workers} child processes: the slope of wall time against task count`, proc.overheadCi95);
    if (finite(proc.minTaskUs)) v['processRuleMinTaskUsP'] = mv(proc.minTaskUs, 'µs', 'the rule of thumb for the child processes: 9·W·o');
  }
  // The headline: the pool at W = P, 4 tasks per worker, and its efficiency split.
  const h = results.headline;
  if (h) {
    const w = h.workers ?? 1;
    v['headlineSpeedup'] = mv(h.speedup, 'x', `the headline: the pool at W = P = ${w}, 4 tasks per worker, over the serial loop`, h.ci95);
    v['headlineEfficiency'] = mv(h.speedup / w, '', `the headline's efficiency: its speedup / ${w} workers`, [h.ci95[0] / w, h.ci95[1] / w]);
    v['headlineMedianMs'] = mv(h.variantMedianMs, 'ms', "the headline case's median time");
    v['headlineWorkers'] = mv(w, '', 'W = P of the headline');
    const point = atP?.curve.find((p) => p.chunk === h.params['chunk']);
    if (point) {
      v['headlineMedianMs'] = mv(point.medianMs, 'ms', "the headline case's median time", point.medianCi95);
      v['headlineChunk'] = mv(point.chunk, '', 'points per task of the headline (lab.ts bestChunk: 4 tasks per worker)');
      v['headlineTaskMs'] = mv(point.taskUs / 1000, 'ms', 'work per task of the headline on one core');
      if (finite(point.utilisation)) v['headlineBusyPct'] = mv(100 * point.utilisation, '%', "the headline's workers busy (utilisation), median of its samples");
      if (finite(point.speedRatio)) v['headlineSpeedRatio'] = mv(point.speedRatio, '', "the headline's speed ratio: serial ns per point / the workers'");
    }
  }
  // Threads and processes: start-up and memory, recorded once per pool at W = P.
  for (const [variant, tag] of [['pool', 'thread'], ['process', 'process']] as const) {
    const c = results.cases.find((x) => x.variant === variant && x.observations['start-up']);
    const up = c?.observations['start-up']?.samples ?? [];
    const mem = c?.observations['memory per worker']?.samples ?? [];
    if (up.length > 0) {
      v[`${tag}StartupMs`] = mv(median(up), 'ms', tag === 'thread' ? 'start-up of the whole pool of threads until each answered a first task' : 'start-up of one child process, fork() to its first message (median over the children)');
    }
    if (mem.length > 0) {
      v[`${tag}MemoryMiB`] = mv(median(mem), 'MiB', tag === 'thread' ? 'growth of the process RSS per thread started' : 'resident memory of one child process (median over the children)');
    }
  }
  // Hand-offs: per payload, the checksum on the main thread and each transport's round trip, hand-off and speedup.
  for (const c of results.cases) {
    const mib = c.params['payloadMiB'];
    if (typeof mib !== 'number') continue;
    const size = `${mib}MiB`;
    if (c.variant === 'serial') {
      v[`checksumMs${size}`] = mv(c.summary.median, 'ms', `checksum of ${mib} MiB on the main thread (the hand-offs' baseline)`, c.summary.ci95);
      // The work per byte, from the largest payload (the least overhead per byte).
      if (mib === Math.max(...results.cases.map((x) => (typeof x.params['payloadMiB'] === 'number' ? x.params['payloadMiB'] : 0)))) {
        v['checksumNsPerByte'] = mv((c.summary.median * 1e6) / (mib * 1024 * 1024), 'ns', `the checksum's work per byte on the main thread (${mib} MiB)`);
      }
      continue;
    }
    v[`${c.variant}RoundTripMs${size}`] = mv(c.summary.median, 'ms', `${c.variant}: ${mib} MiB to a worker, checksummed there, answer back`, c.summary.ci95);
    const oneWay = c.observations['hand-off']?.p50;
    if (finite(oneWay)) v[`${c.variant}HandOffMs${size}`] = mv(oneWay, 'ms', `${c.variant}: the one-way hand-off of ${mib} MiB (median)`);
    const s = results.speedups.find((x) => x.variant === c.variant && x.params['payloadMiB'] === mib);
    if (s) v[`${c.variant}Speedup${size}`] = mv(s.speedup, 'x', `${c.variant} of ${mib} MiB against the checksum on the main thread`, s.ci95);
  }
  return v;
}

/** The tables episode 06 shows. */
export function granularityTables(results: Results, g: Granularity): Record<string, AnalysisTable> {
  const t: Record<string, AnalysisTable> = {};
  for (const [tag, s] of roles(g)) {
    t[`chunkSweep${tag}`] = sweepTable(s, `The pool of ${s.workers} thread${s.workers === 1 ? '' : 's'} on ${formatCount(s.points)} points, by chunk size; speedups against the serial loop's ${formatSignificant(s.serialMedianMs)} ms`);
  }
  const proc = sweepOf(g, 'process', g.p);
  if (proc) t['processSweepP'] = sweepTable(proc, `${proc.workers} child processes on ${formatCount(proc.points)} points, by chunk size`);
  t['ruleCheck'] = {
    caption: `The rule 9·W·o checked against each pool's measured curve: its knee is where the efficiency first reaches ${KNEE_FRACTION * 100}% of that curve's best`,
    columns: ['W', 'points per run', 'per-task overhead o', 'rule: 9·W·o', 'measured knee', 'rule / knee', 'verdict'],
    rows: g.sweeps
      .filter((s) => s.variant === 'pool')
      .map((s) => [
        s.workers === g.p && s.workers > 2 ? `${s.workers} (P)` : String(s.workers),
        formatCount(s.points),
        cellOrDash(finite(s.overheadPerTaskUs) ? mv(s.overheadPerTaskUs, 'µs', `per-task overhead on ${s.workers} thread${s.workers === 1 ? '' : 's'}`, s.overheadCi95) : null),
        cellOrDash(finite(s.minTaskUs) ? mv(s.minTaskUs, 'µs', `9·W·o on ${s.workers} thread${s.workers === 1 ? '' : 's'}`) : null),
        cellOrDash(s.knee ? mv(s.knee.taskUs, 'µs', `where the efficiency on ${s.workers} thread${s.workers === 1 ? '' : 's'} first reaches ${KNEE_FRACTION * 100}% of its best`) : null),
        cellOrDash(s.knee && finite(s.minTaskUs) ? mv(s.minTaskUs / s.knee.taskUs, '', 'prediction / knee') : null),
        `${verdictText(s.verdict)}${s.oversubscribed ? ' (oversubscribed: more workers than CPUs)' : ''}`,
      ]),
  };
  const sizes = [...new Set(results.cases.map((c) => c.params['payloadMiB']).filter((x): x is number => typeof x === 'number'))].sort((a, b) => a - b);
  const caseOf = (variant: string, mib: number) => results.cases.find((c) => c.variant === variant && c.params['payloadMiB'] === mib);
  t['handoffRoundTrip'] = {
    caption: 'The round trip: hand the payload over, checksum it in the worker, get the answer back; median [95% interval]',
    columns: ['payload', 'checksum on the main thread', 'clone', 'transfer', 'shared'],
    rows: sizes.map((mib) => [
      `${mib} MiB`,
      ...['serial', 'clone', 'transfer', 'shared'].map((variant) => {
        const c = caseOf(variant, mib);
        return c ? mv(c.summary.median, 'ms', `${variant === 'serial' ? 'checksum on the main thread' : variant} of ${mib} MiB`, c.summary.ci95) : 'n/a';
      }),
    ]),
  };
  t['handoffOneWay'] = {
    caption: 'The one-way hand-off alone, from before postMessage until the worker has the payload (median)',
    columns: ['payload', 'clone', 'transfer', 'shared'],
    rows: sizes.map((mib) => [
      `${mib} MiB`,
      ...['clone', 'transfer', 'shared'].map((variant) => {
        const p50 = caseOf(variant, mib)?.observations['hand-off']?.p50;
        return finite(p50) ? mv(p50, 'ms', `${variant}: one-way hand-off of ${mib} MiB`) : 'n/a';
      }),
    ]),
  };
  // Threads against processes at W = P.
  const workerRow = (label: string, cell: (variant: 'pool' | 'process') => MeasuredValue | string) => [label, cell('pool'), cell('process')];
  const startup = (variant: 'pool' | 'process') => results.cases.find((x) => x.variant === variant && x.observations['start-up']);
  const headlineChunk = results.headline?.params['chunk'];
  t['threadsVsProcesses'] = {
    caption: `${g.p} worker threads (piscina) against ${g.p} child processes (fork), from this run`,
    columns: ['', 'worker threads', 'child processes'],
    rows: [
      workerRow('start-up', (variant) => {
        const s = startup(variant)?.observations['start-up']?.samples ?? [];
        return s.length ? mv(median(s), 'ms', variant === 'pool' ? 'the whole pool, until every thread answered a first task' : 'per child, fork() to its first message (median)') : 'n/a';
      }),
      workerRow('memory per worker', (variant) => {
        const s = startup(variant)?.observations['memory per worker']?.samples ?? [];
        return s.length ? mv(median(s), 'MiB', variant === 'pool' ? 'growth of the process RSS per thread' : "each child's RSS (median)") : 'n/a';
      }),
      workerRow('wall time per extra task', (variant) => {
        const s = sweepOf(g, variant, g.p);
        return s && finite(s.overheadPerTaskUs) ? mv(s.overheadPerTaskUs, 'µs', 'the slope of wall time against task count', s.overheadCi95) : 'n/a';
      }),
      workerRow('at the headline chunk', (variant) => {
        const p = sweepOf(g, variant, g.p)?.curve.find((x) => x.chunk === headlineChunk);
        return p && finite(p.speedup) ? mv(p.speedup, 'x', `speedup at ${String(headlineChunk)} points per task`, p.speedupCi95) : 'n/a';
      }),
    ],
  };
  return t;
}
