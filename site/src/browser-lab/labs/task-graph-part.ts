/**
 * Episode 06's task-graph part in the browser (the part select's "graph"): the task-graph lab's product of 64
 * matrices, on the main thread (the baseline), as a chain of futures and as a balanced tree of futures on a pool of
 * P Web Workers. The graph helper, the matrices and the measures are the Node lab's own pure modules
 * (labs/task-graph/src: task-graph.ts, matrix.ts, graph-measures.ts), so the page records every task as it runs and
 * reports each graph's work W, span S and bounds beside the measured speedup, as `npm run lab -- task-graph` does.
 */
import { bounds, measureGraph } from '../../../../labs/task-graph/src/graph-measures.ts';
import { productSerial, seededMatrices, type Matrix } from '../../../../labs/task-graph/src/matrix.ts';
import { TaskGraph, type Future, type MatrixRunner, type MultiplyResult } from '../../../../labs/task-graph/src/task-graph.ts';
import type { BrowserCase, BrowserLab, CaseHandle, CheckVerdict } from '../lab-types.ts';
import { WorkerPool } from '../pool.ts';

/** 64 matrices of 64 x 64: a product is about half a millisecond on a laptop core, a chain of 63 some 30 ms. */
const COUNT = 64;
const SIDE = 64;
const SEED = 20261206;

/** The chain: each product waits for the one before (the Node lab's worked example). */
function chain(g: TaskGraph, count: number): Future {
  let product = g.input(0);
  for (let k = 1; k < count; k++) product = g.multiply(product, g.input(k));
  return product;
}

/** The balanced tree: neighbours in pairs, level by level (the Node lab's reference solution). */
function tree(g: TaskGraph, count: number): Future {
  let level: Future[] = Array.from({ length: count }, (_, k) => g.input(k));
  while (level.length > 1) {
    const next: Future[] = [];
    for (let k = 0; k + 1 < level.length; k += 2) next.push(g.multiply(level[k]!, level[k + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0]!;
}

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

interface GraphRecord {
  workMs: number;
  spanMs: number;
  tasks: number;
  spanTasks: number;
}

export function graphLab(p: number): BrowserLab<number> {
  const matrices = seededMatrices(SEED, COUNT, SIDE);
  let reference: number | null = null;
  const last = new Map<string, GraphRecord>();
  const graphCase = (variant: 'flat' | 'tree'): BrowserCase<number> => ({
    variant,
    params: { count: COUNT, workers: p },
    workers: p,
    unavailable: typeof Worker === 'undefined' ? 'this browser has no Web Workers' : null,
    async setup(): Promise<CaseHandle<number>> {
      const pool = new WorkerPool<{ a: Matrix; b: Matrix }, MultiplyResult>(p, () => new Worker(new URL('../workers/graph-worker.ts', import.meta.url), { type: 'module' }));
      const runner = greedyRunner(pool);
      return {
        async run(reps) {
          let sum = 0;
          for (let r = 0; r < reps; r++) {
            const g = new TaskGraph(runner, matrices);
            const product = g.finish(await (variant === 'flat' ? chain : tree)(g, COUNT), `the page's ${variant === 'flat' ? 'chain' : 'tree'}`);
            const { ms, count } = measureGraph(g.tasks);
            last.set(variant, { workMs: ms.work, spanMs: ms.span, tasks: count.work, spanTasks: count.span });
            sum += entrySum(product);
          }
          return sum;
        },
        teardown: () => pool.terminate(),
      };
    },
  });
  const exact = (expected: number, actual: number): CheckVerdict =>
    actual === expected
      ? { passed: true, reason: null, firstMismatch: null, maxAbsError: null, maxRelError: null }
      : { passed: false, reason: `the product's entries summed to ${actual}, expected ${expected}`, firstMismatch: { index: 'sum', expected: String(expected), actual: String(actual) }, maxAbsError: Math.abs(actual - expected), maxRelError: null };
  return {
    lab: 'task-graph',
    title: 'Task graphs in the browser: a chain and a tree of futures over a worker pool',
    baseline: 'main',
    headline: { variant: 'tree', params: { count: COUNT, workers: p } },
    workUnit: `products of ${COUNT} matrices`,
    comparator: "exact: the sum of the product's entries (integers mod 1,000,003), the main thread's product the reference",
    expected: (reps) => (reference ??= entrySum(productSerial(matrices))) * reps,
    check: exact,
    cases: [
      { variant: 'main', params: { count: COUNT }, unavailable: null, async setup() {
        return { run: async (reps) => { let s = 0; for (let r = 0; r < reps; r++) s += entrySum(productSerial(matrices)); return s; }, teardown() {} };
      } },
      graphCase('flat'),
      graphCase('tree'),
    ],
    notes: [`One product is ${COUNT} seeded ${SIDE} x ${SIDE} matrices; each task is one product on one of P = ${p} workers, handed to the least busy.`],
    summarize: () =>
      [...last.entries()].map(([variant, g]) => {
        const b = bounds({ work: g.workMs, span: g.spanMs }, p);
        const f = (x: number) => x.toPrecision(3);
        return `${variant === 'flat' ? 'chain' : 'tree'}: ${g.tasks} tasks, span ${g.spanTasks} tasks; W ${f(g.workMs)} ms, S ${f(g.spanMs)} ms (the last sample's graph); ceiling min(P, W/S) ${f(b.speedupCeiling)}, Brent W/(W/P + S) ${f(b.brentSpeedup)}`;
      }),
  };
}
