/**
 * The lab's reading of a run: for each graph case (the chain and the tree at W = 1, 2 and P) its work W and span S as
 * recorded from the graph the learner built, the bounds they give (the span law's ceiling min(W, W/S) and Brent's
 * W / (W/P + S)) beside the measured speedup; the pool's cost per empty task beside other schedulers' figures quoted
 * from elsewhere; values.json for the episode and a chart. Pure apart from rendering the chart.
 */
import type { AnalysisTable, MeasuredValue } from '@parallel-course/core';
import { type ChartConfig, GUIDE_GREY, type LabAnalysis, PALETTE, renderChartPng } from '@parallel-course/harness';
import { caseRatioInterval, formatOrNA, formatSignificant, median as medianOfSamples, paramsSeedText, type Results } from '@parallel-course/core';
import { bounds, type Bounds } from './graph-measures.ts';
import { OBSERVATIONS } from './cases.ts';

/**
 * Other schedulers' cost per task, quoted (never measured by this lab): measured by the course's authors in one hour
 * on a 2-vCPU VM of the course machine's kind in December 2026 (issue 46), empty tasks through each scheduler.
 */
const PEER_OVERHEADS: readonly { scheduler: string; perTask: string }[] = [
  { scheduler: 'Dask, threaded scheduler', perTask: '116 µs' },
  { scheduler: 'Dask, process scheduler', perTask: '104-136 µs' },
  { scheduler: 'Dask distributed, LocalCluster', perTask: '1.1-2.3 ms' },
  { scheduler: 'Python multiprocessing.Pool', perTask: '37 µs' },
  { scheduler: 'a minimal Node worker pool', perTask: '25 µs' },
  { scheduler: 'piscina', perTask: '60 µs' },
];
const PEERS_SOURCE = 'measured elsewhere, same hour, this machine kind, 2026-12';

/** One graph case of the run, with what its graph and its samples say. */
export interface GraphPoint {
  variant: 'flat' | 'tree';
  workers: number;
  count: number;
  medianMs: number;
  medianCi95: [number, number];
  speedup: number | null;
  speedupCi95: [number, number] | null;
  /** Medians over the samples of the recorded graph's work and span, in the workers' ms and in tasks. */
  workMs: number;
  spanMs: number;
  tasks: number;
  spanTasks: number;
  bounds: Bounds;
}

/**
 * The tree against the chain on the same pool: median(chain) / median(tree) with its paired 95% interval. Both run on
 * the same threads in the same rounds, so what a busy machine does to the serial baseline cancels here: this ratio is
 * the span's effect alone.
 */
export interface TreeOverChain {
  workers: number;
  ratio: number;
  ci95: [number, number] | null;
}

export interface TaskGraphReading {
  p: number;
  points: GraphPoint[];
  treeOverChain: TreeOverChain[];
  /** The pool's cost per empty task, µs, with its interval; null when the run has no empty case. */
  emptyTask: { us: number; ci95: [number, number]; workers: number; tasks: number } | null;
}

/** The core's median, NaN for an observation the run did not record. */
function median(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : medianOfSamples(xs);
}

/** The numbers of a run, from its cases' samples and observations (no recomputation of the harness's statistics). */
function readTaskGraph(results: Results): TaskGraphReading {
  const points: GraphPoint[] = [];
  for (const c of results.cases) {
    if (c.variant !== 'flat' && c.variant !== 'tree') continue;
    const workers = Number(c.params['workers']);
    const obs = (name: string) => median(c.observations[name]?.samples ?? []);
    const workMs = obs(OBSERVATIONS.workMs);
    const spanMs = obs(OBSERVATIONS.spanMs);
    const s = results.speedups.find((x) => x.variant === c.variant && x.params['workers'] === workers && x.params['count'] === c.params['count']);
    points.push({
      variant: c.variant,
      workers,
      count: Number(c.params['count']),
      medianMs: c.summary.median,
      medianCi95: c.summary.ci95,
      speedup: s?.speedup ?? null,
      speedupCi95: s?.ci95 ?? null,
      workMs,
      spanMs,
      tasks: obs(OBSERVATIONS.tasks),
      spanTasks: obs(OBSERVATIONS.spanTasks),
      bounds: bounds({ work: workMs, span: spanMs }, workers),
    });
  }
  points.sort((a, b) => (a.variant === b.variant ? a.workers - b.workers : a.variant === 'flat' ? -1 : 1));
  const empty = results.cases.find((c) => c.variant === 'empty');
  let emptyTask: TaskGraphReading['emptyTask'] = null;
  if (empty) {
    const tasks = Number(empty.params['tasks']);
    const us = (ms: number) => (ms * 1000) / tasks;
    emptyTask = { us: us(empty.summary.median), ci95: [us(empty.summary.ci95[0]), us(empty.summary.ci95[1])], workers: Number(empty.params['workers']), tasks };
  }
  const treeOverChain: TreeOverChain[] = [];
  for (const tree of results.cases.filter((c) => c.variant === 'tree')) {
    const chain = results.cases.find((c) => c.variant === 'flat' && c.params['workers'] === tree.params['workers'] && c.params['count'] === tree.params['count']);
    if (!chain) continue;
    let ci95: [number, number] | null = null;
    try {
      ci95 = caseRatioInterval(results, chain, tree, `ratio:flat:${paramsSeedText(chain.params)}:tree:${paramsSeedText(tree.params)}`).ci95;
    } catch {
      ci95 = null;
    }
    treeOverChain.push({ workers: Number(tree.params['workers']), ratio: medianOfSamples(chain.samplesMs) / medianOfSamples(tree.samplesMs), ci95 });
  }
  treeOverChain.sort((a, b) => a.workers - b.workers);
  return { p: results.cpus.p, points, treeOverChain, emptyTask };
}

function mv(value: number, unit: string, what: string, ci?: [number, number] | null): MeasuredValue {
  const good = ci && Number.isFinite(ci[0]) && Number.isFinite(ci[1]) && ci[0] <= ci[1];
  return { value, unit, what, ...(good ? { ci95: [ci[0], ci[1]] as [number, number] } : {}) };
}

/** The role of a pool size in the keys an episode names: W1, W2 and P (at P = 2, W2 and P are the same case). */
function rolesOf(workers: number, p: number): string[] {
  const roles: string[] = [];
  if (workers === 1) roles.push('W1');
  if (workers === 2) roles.push('W2');
  if (workers === p) roles.push('P');
  return roles;
}

function taskGraphValues(r: TaskGraphReading): Record<string, MeasuredValue> {
  const v: Record<string, MeasuredValue> = {};
  for (const pt of r.points) {
    const name = pt.variant === 'flat' ? 'the chain' : 'the tree';
    const on = `${name} of ${pt.count} matrices on ${pt.workers} thread${pt.workers === 1 ? '' : 's'}`;
    for (const role of rolesOf(pt.workers, r.p)) {
      const k = (what: string) => `${pt.variant}${what}${role}`;
      v[k('MedianMs')] = mv(pt.medianMs, 'ms', `median time of ${on}`, pt.medianCi95);
      if (pt.speedup !== null) v[k('Speedup')] = mv(pt.speedup, 'x', `measured speedup of ${on} over the serial product`, pt.speedupCi95);
      v[k('WorkMs')] = mv(pt.workMs, 'ms', `work W of ${on}: its tasks' compute times summed (median over samples)`);
      v[k('SpanMs')] = mv(pt.spanMs, 'ms', `span S of ${on}: compute time along its costliest chain of dependent tasks (median over samples)`);
      v[k('Tasks')] = mv(pt.tasks, '', `tasks in ${on}`);
      v[k('SpanTasks')] = mv(pt.spanTasks, '', `tasks on the longest chain of ${on}`);
      v[k('Parallelism')] = mv(pt.bounds.parallelism, 'x', `parallelism W / S of ${on}`);
      v[k('Ceiling')] = mv(pt.bounds.speedupCeiling, 'x', `the work and span laws' ceiling min(workers, W / S) on the speedup of ${on}`);
      v[k('Brent')] = mv(pt.bounds.brentSpeedup, 'x', `Brent's bound: a greedy scheduler's speedup W / (W / workers + S) at least, without overhead, for ${on}`);
      v[k('BrentMs')] = mv(pt.bounds.brentTime, 'ms', `Brent's time bound W / workers + S for ${on}`);
    }
  }
  for (const t of r.treeOverChain) {
    for (const role of rolesOf(t.workers, r.p)) {
      v[`treeOverChain${role}`] = mv(t.ratio, 'x', `the tree's speedup over the chain on the same ${t.workers} thread${t.workers === 1 ? '' : 's'}: median(chain) / median(tree), paired by round`, t.ci95);
    }
  }
  if (r.emptyTask) {
    v['emptyTaskUs'] = mv(r.emptyTask.us, 'µs', `the pool's wall time per empty task: ${r.emptyTask.tasks} at once on ${r.emptyTask.workers} threads (median, interval of the median)`, r.emptyTask.ci95);
  }
  return v;
}

function taskGraphTables(r: TaskGraphReading, machine: string): Record<string, AnalysisTable> {
  const tables: Record<string, AnalysisTable> = {};
  tables['graphBounds'] = {
    caption: `Each graph as the learner's code built it, its work W and span S from the tasks recorded, and its speedup beside the bounds (${machine})`,
    columns: ['graph', 'threads', 'tasks', 'span (tasks)', 'work W', 'span S', 'median time', 'Brent W/P + S', 'measured speedup', 'ceiling min(P, W/S)', 'Brent W/(W/P + S)'],
    rows: r.points.map((pt) => [
      pt.variant === 'flat' ? 'chain (flat)' : 'tree',
      String(pt.workers),
      formatOrNA(pt.tasks),
      formatOrNA(pt.spanTasks),
      mv(pt.workMs, 'ms', "work: the tasks' compute times summed"),
      mv(pt.spanMs, 'ms', 'span: compute time along the costliest chain'),
      mv(pt.medianMs, 'ms', 'median time of a run', pt.medianCi95),
      mv(pt.bounds.brentTime, 'ms', "Brent's time bound W / P + S (no overhead)"),
      pt.speedup === null ? 'n/a' : mv(pt.speedup, 'x', 'measured speedup over the serial product', pt.speedupCi95),
      mv(pt.bounds.speedupCeiling, 'x', 'the largest speedup any schedule can reach: min(P, W / S)'),
      mv(pt.bounds.brentSpeedup, 'x', "what a greedy scheduler reaches at least: W / (W / P + S)"),
    ]),
  };
  const ours: (string | MeasuredValue)[][] = r.emptyTask
    ? [[`this lab: piscina, ${r.emptyTask.workers} threads, ${r.emptyTask.tasks} empty tasks at once`, mv(r.emptyTask.us, 'µs', "the pool's wall time per empty task", r.emptyTask.ci95), `measured in this run (${machine})`]]
    : [];
  tables['schedulerOverhead'] = {
    caption: 'Cost per task of a scheduler: empty tasks, wall time / tasks',
    columns: ['scheduler', 'cost per task', 'where it was measured'],
    rows: [...ours, ...PEER_OVERHEADS.map((peer) => [peer.scheduler, peer.perTask, PEERS_SOURCE])],
  };
  return tables;
}

function formatTaskGraph(r: TaskGraphReading): string {
  const lines = ['graph  threads  tasks  span(tasks)  W ms  S ms  median ms  Brent W/P+S ms  speedup [95%]  ceiling  Brent'];
  for (const pt of r.points) {
    const ci = pt.speedupCi95 ? ` [${formatOrNA(pt.speedupCi95[0])}, ${formatOrNA(pt.speedupCi95[1])}]` : '';
    lines.push(
      `${pt.variant.padEnd(5)}  ${String(pt.workers).padStart(7)}  ${formatOrNA(pt.tasks).padStart(5)}  ${formatOrNA(pt.spanTasks).padStart(11)}  ${formatOrNA(pt.workMs)}  ${formatOrNA(pt.spanMs)}  ${formatOrNA(pt.medianMs)}  ${formatOrNA(pt.bounds.brentTime)}  ${formatOrNA(pt.speedup)}${ci}  ${formatOrNA(pt.bounds.speedupCeiling)}  ${formatOrNA(pt.bounds.brentSpeedup)}`,
    );
  }
  for (const t of r.treeOverChain) {
    const ci = t.ci95 ? ` [${formatOrNA(t.ci95[0])}, ${formatOrNA(t.ci95[1])}]` : '';
    lines.push(`tree over chain on ${t.workers} thread${t.workers === 1 ? '' : 's'}: ${formatOrNA(t.ratio)}x${ci} (same pool, same rounds: the span's effect alone)`);
  }
  if (r.emptyTask) lines.push('', `empty tasks: ${formatOrNA(r.emptyTask.us)} µs per task [${formatOrNA(r.emptyTask.ci95[0])}, ${formatOrNA(r.emptyTask.ci95[1])}] (${r.emptyTask.tasks} at once on ${r.emptyTask.workers} threads)`);
  lines.push('', `other schedulers (${PEERS_SOURCE}): ${PEER_OVERHEADS.map((x) => `${x.scheduler} ${x.perTask}`).join('; ')}`);
  return lines.join('\n');
}

/** Measured speedup against the two bounds, per graph case. */
function boundsChart(r: TaskGraphReading, machine: string): ChartConfig {
  const labels = r.points.map((pt) => `${pt.variant === 'flat' ? 'chain' : 'tree'}, ${pt.workers} thread${pt.workers === 1 ? '' : 's'}`);
  // A missing speedup is NaN, which chart.js leaves out (never drawn as 0).
  const round = (x: number | null) => (x === null || !Number.isFinite(x) ? Number.NaN : Number(formatSignificant(x, 3)));
  return {
    type: 'bar',
    data: {
      labels,
      datasets: [
        { label: 'measured speedup', data: r.points.map((pt) => round(pt.speedup)), backgroundColor: PALETTE[0] },
        { label: "Brent: at least W / (W/P + S) without overhead", data: r.points.map((pt) => round(pt.bounds.brentSpeedup)), backgroundColor: PALETTE[2] },
        { label: 'ceiling: min(P, W / S)', data: r.points.map((pt) => round(pt.bounds.speedupCeiling)), backgroundColor: GUIDE_GREY },
      ],
    },
    options: {
      animation: false,
      responsive: false,
      maintainAspectRatio: false,
      plugins: { title: { display: true, text: `task-graph: measured speedup against the graph's bounds (${machine})`, font: { size: 16 } }, legend: { position: 'bottom' } },
      scales: { y: { min: 0, title: { display: true, text: 'speedup over the serial product' } } },
    },
  };
}

export async function taskGraphAnalysis(results: Results): Promise<LabAnalysis> {
  const r = readTaskGraph(results);
  const env = results.environment;
  const machine = `${env.cpuModel.trim()}, P = ${results.cpus.p}, ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC`;
  const text = [
    '# Task graphs: what the run shows',
    '',
    '```',
    formatTaskGraph(r),
    `machine: ${machine}, Node ${env.node}${results.cpus.forced ? ' (P forced with --cpus)' : ''}`,
    '```',
    '',
    'W and S are medians over the samples of the graph each sample built, in the workers\' compute ms. The ceiling',
    'min(P, W/S) holds for any schedule; Brent\'s W/(W/P + S) is what a greedy scheduler reaches at least when a task',
    'costs nothing to schedule. A measured speedup below Brent\'s line is the scheduler\'s cost per task (and the',
    'hand-off of the matrices), or cores slower than the serial loop\'s.',
  ];
  const files: LabAnalysis['files'] = [];
  if (r.points.length > 0) {
    files.push({ name: 'bounds.png', contents: await renderChartPng(boundsChart(r, machine), 1000, 560) });
    text.push('', '![Measured speedup against the span ceiling and Brent\'s bound, per graph and pool size](bounds.png)');
  }
  return { text: text.join('\n'), files, values: taskGraphValues(r), tables: taskGraphTables(r, machine) };
}
