/**
 * Episode 06's task-graph part in the browser (the part select's "graph"): the task-graph lab's product of 64
 * matrices, on the main thread (the baseline), as a chain of futures and as a balanced tree of futures on a pool of
 * P Web Workers. The graph helper, the matrices and the measures are the Node lab's own pure modules
 * (labs/task-graph/src: task-graph.ts, matrix.ts, graph-measures.ts) and the chain and tree are the lab's
 * solutions/task-graph/graph.ts, so the page records every task as it runs and
 * reports each graph's work W, span S and bounds beside the measured speedup, as `npm run lab -- task-graph` does.
 * The exercise (the page's code editor): the learner's `treeProduct`, run once in a worker to build its graph
 * (graph-recorder.ts), then that graph on the same pool as `your-graph`, checked against the main thread's product
 * before it is timed.
 */
import { bounds, measureGraph } from '@parallel-course/task-graph/graph-measures.ts';
import { productSerial, seededMatrices, type Matrix } from '@parallel-course/task-graph/matrix.ts';
import { TaskGraph, type MatrixRunner, type MultiplyResult } from '@parallel-course/task-graph/task-graph.ts';
// The chain (the lab's worked example) and the balanced tree (its solution): the Node lab's own graphs, not copies.
import { flatProduct, treeProduct } from '../../../../solutions/task-graph/graph.ts';
import { formatSignificant, type Results } from '../core-adapter.ts';
import { parseRecordedGraph, RECORDER_HARNESS, replayGraph, type RecordedGraph } from '../graph-recorder.ts';
import type { BrowserCase, BrowserLab, CaseHandle, CheckVerdict } from '../lab-types.ts';
import { tryLearnerCode } from '../learner-code.ts';
import { WorkerPool } from '../pool.ts';
import { verdict } from '../verdict.ts';

/** 64 matrices of 64 x 64: a product is about half a millisecond on a laptop core, a chain of 63 some 30 ms. */
export const COUNT = 64;
const SIDE = 64;
const SEED = 20261206;

/** The sum of a matrix's entries: an exact integer (64 x 64 entries below 1,000,003), the check's value. */
function entrySum(m: Matrix): number {
  let s = 0;
  for (const x of m) s += x;
  return s;
}

/**
 * A greedy dispatcher over the pool: each ready task goes to the worker with the fewest tasks in flight, so no worker
 * idles while another has a queue (Brent's bound assumes such a scheduler; round robin is not one).
 */
function greedyRunner(pool: WorkerPool<{ a: Matrix; b: Matrix }, MultiplyResult>): MatrixRunner {
  const inFlight = new Array<number>(pool.size).fill(0);
  return {
    run(task) {
      const w = inFlight.indexOf(Math.min(...inFlight));
      inFlight[w]!++;
      return pool.request(w, { a: task.a, b: task.b }).finally(() => inFlight[w]!--);
    },
  };
}

/**
 * The graph the learner's `treeProduct` builds over COUNT inputs, from one call in a throwaway worker with the time
 * limit; a problem (not implemented, an exception, a stray multiply) is thrown with its line, as the check's reason.
 */
async function learnersGraph(source: string): Promise<RecordedGraph> {
  const tried = await tryLearnerCode(source, { fnName: 'treeProduct', args: [COUNT], harness: RECORDER_HARNESS });
  if ('problem' in tried) {
    const { message, at } = tried.problem;
    // "Error: not implemented: ..." as the Node lab says it, so the results file marks the case not implemented.
    throw new Error(`${message.replace(/^Error: /, '')}${at ? ` (line ${at.line}, column ${at.column})` : ''}`);
  }
  const graph = parseRecordedGraph(tried.value, COUNT);
  if (typeof graph === 'string') throw new Error(graph);
  return graph;
}

/** The graphs' names in the page's lines. */
const GRAPH_NAMES: Record<string, string> = { flat: 'chain', tree: 'tree', 'your-graph': 'your graph' };

interface GraphRecord {
  workMs: number;
  spanMs: number;
  tasks: number;
  spanTasks: number;
}

/** What a graph case needs: P, the learner's code, the matrices, and where it records its last graph's measures. */
interface GraphContext {
  p: number;
  source: string | null;
  matrices: Matrix[];
  last: Map<string, GraphRecord>;
}

/** A graph (the chain, the tree or the learner's) on a pool of P workers; each run records the graph's W and S. */
function graphCase(ctx: GraphContext, variant: 'flat' | 'tree' | 'your-graph'): BrowserCase<number> {
  const { p, source, matrices, last } = ctx;
  return {
    variant,
    params: { count: COUNT, workers: p },
    workers: p,
    unavailable: typeof Worker === 'undefined' ? 'this browser has no Web Workers' : null,
    async setup(): Promise<CaseHandle<number>> {
      const learners = variant === 'your-graph' ? await learnersGraph(source ?? '') : null;
      const pool = new WorkerPool<{ a: Matrix; b: Matrix }, MultiplyResult>(p, () => new Worker(new URL('../workers/graph-worker.ts', import.meta.url), { type: 'module' }));
      const runner = greedyRunner(pool);
      return {
        async run(reps) {
          let sum = 0;
          for (let r = 0; r < reps; r++) {
            const g = new TaskGraph(runner, matrices);
            const built = learners ? replayGraph(g, learners) : (variant === 'flat' ? flatProduct : treeProduct)(g, COUNT);
            const product = g.finish(await built, learners ? 'your treeProduct' : `the page's ${GRAPH_NAMES[variant]}`);
            const { ms, count } = measureGraph(g.tasks);
            last.set(variant, { workMs: ms.work, spanMs: ms.span, tasks: count.work, spanTasks: count.span });
            sum += entrySum(product);
          }
          return sum;
        },
        teardown: () => pool.terminate(),
      };
    },
  };
}

/** The check: the sum of the product's entries, exactly the main thread's. */
function exactSum(expected: number, actual: number): CheckVerdict {
  return actual === expected
    ? { passed: true, reason: null, firstMismatch: null, maxAbsError: null, maxRelError: null }
    : { passed: false, reason: `the product's entries summed to ${actual}, expected ${expected}`, firstMismatch: { index: 'sum', expected: String(expected), actual: String(actual) }, maxAbsError: Math.abs(actual - expected), maxRelError: null };
}

/** First the learner's graph, then the page's: the measured speedup beside the bounds of the graph that ran. */
function leadLines(results: Results, last: ReadonlyMap<string, GraphRecord>, p: number): string[] {
  return ['your-graph', 'tree', 'flat'].flatMap((variant) => {
    const g = last.get(variant);
    const s = results.speedups.find((x) => x.variant === variant);
    const c = results.cases.find((x) => x.variant === variant);
    if (!g || !s || !c) return [];
    const b = bounds({ work: g.workMs, span: g.spanMs }, p);
    const said = verdict(s.ci95, { speedup: s.speedup, samples: c.samplesMs.length, quick: results.quick, fullRounds: 15 });
    return [
      `${GRAPH_NAMES[variant]}: ${g.tasks} tasks, span ${g.spanTasks} tasks. Measured ${formatSignificant(s.speedup)}x the main thread (95% interval ${formatSignificant(s.ci95[0])} to ${formatSignificant(s.ci95[1])}: ${said}); ` +
        `its span bound on P = ${p}: ceiling min(P, W/S) ${formatSignificant(b.speedupCeiling)}, Brent W/(W/P + S) ${formatSignificant(b.brentSpeedup)}.`,
    ];
  });
}

/** Each graph's tasks, W, S and bounds, for the results file's notes. */
function summaryLines(last: ReadonlyMap<string, GraphRecord>, p: number): string[] {
  return [...last.entries()].map(([variant, g]) => {
    const b = bounds({ work: g.workMs, span: g.spanMs }, p);
    return `${GRAPH_NAMES[variant]}: ${g.tasks} tasks, span ${g.spanTasks} tasks; W ${formatSignificant(g.workMs)} ms, S ${formatSignificant(g.spanMs)} ms (the last sample's graph); ceiling min(P, W/S) ${formatSignificant(b.speedupCeiling)}, Brent W/(W/P + S) ${formatSignificant(b.brentSpeedup)}`;
  });
}

/** `source`: the learner's code from the page's editor, run as `your-graph` (null: no such case). */
export function graphLab(p: number, source: string | null = null): BrowserLab<number> {
  const matrices = seededMatrices(SEED, COUNT, SIDE);
  let expectedSum: number | null = null;
  const ctx: GraphContext = { p, source, matrices, last: new Map() };
  return {
    lab: 'task-graph',
    title: 'Task graphs in the browser: a chain and a tree of futures over a worker pool',
    baseline: 'main',
    headline: { variant: 'tree', params: { count: COUNT, workers: p } },
    workUnit: `products of ${COUNT} matrices`,
    comparator: "exact: the sum of the product's entries (integers mod 1,000,003), the main thread's product the expected one",
    expected: (reps) => (expectedSum ??= entrySum(productSerial(matrices))) * reps,
    check: exactSum,
    cases: [
      { variant: 'main', params: { count: COUNT }, unavailable: null, async setup() {
        return { run: async (reps) => { let s = 0; for (let r = 0; r < reps; r++) s += entrySum(productSerial(matrices)); return s; }, teardown() {} };
      } },
      graphCase(ctx, 'flat'),
      graphCase(ctx, 'tree'),
      ...(source !== null ? [graphCase(ctx, 'your-graph')] : []),
    ],
    notes: [
      `One product is ${COUNT} seeded ${SIDE} x ${SIDE} matrices; each task is one product on one of P = ${p} workers, handed to the least busy.`,
      ...(source !== null ? ['your-graph: your treeProduct ran once in a worker to build its graph (its futures resolve to placeholders there); the page ran that graph on the same pool.'] : []),
    ],
    lead: (results: Results) => leadLines(results, ctx.last, p),
    summarize: () => summaryLines(ctx.last, p),
    impl: source !== null ? 'exercise' : 'solution',
  };
}
