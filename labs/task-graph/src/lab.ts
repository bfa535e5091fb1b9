/**
 * The task-graph lab: dependent tasks. The product of `count` matrices (integers mod a prime, checked exactly) as a
 * chain of futures (`flat`: span = work) and as a balanced tree (`tree`: span = log2(count) products), both written by
 * the learner with `multiply(left, right)` over futures and run on a piscina pool of W = 1, 2 and P threads; the lab
 * records each task as it runs and reports the graph's work and span and Brent's bound beside the measured speedup.
 * A pool of P threads running empty tasks gives the scheduler's own cost per task.
 */
import { formatCount } from '@parallel-course/core';
import { type CaseDefinition, type Headline, type LabContext, type LabDefinition, shortWorkerSweep, withinTolerance } from '@parallel-course/harness';
import { emptyCase, graphCase, serialCase } from './cases.ts';
import { calibrate, estimateEmpty, estimateGraph, estimateInputs, estimateSerial, PRODUCT_SIZE, COURSE_MACHINE_RATES } from './estimates.ts';
import type { LabInput, LabOutput } from './inputs.ts';
import { LEARNER_FILES } from './learner-files.ts';
import { MODULUS, productSerial, seededMatrices } from './matrix.ts';
import { checkChain, freshProduct } from './fresh-inputs.ts';

/** The side of every measured matrix: an 80 x 80 product is about 0.7 ms on one core of the course machine. */
export const SIZE = PRODUCT_SIZE;

/**
 * Matrices in a measured product on P CPUs: 64, or 16 per CPU on a bigger node. The tree has count - 1 products and a
 * span of ceil(log2(count)), so its parallelism W / S is 63 / 6 = 10.5 up to P = 4 and 1023 / 10 = 102 at P = 64:
 * always several times P. The chain's parallelism is 1 whatever count is.
 */
export function countFor(p: number): number {
  return Math.max(64, 16 * p);
}


/** Empty tasks per sample of the overhead case: enough that a sample is tens of ms, long next to the clock. */
export const EMPTY_TASKS = 1000;

/** Check inputs: products of 1, 2, 3, 5 and 12 small matrices (odd counts at several levels of a tree). */
export const CHECK_COUNTS = [1, 2, 3, 5, 12];
const CHECK_SIZE = 6;

function workersFor(ctx: Pick<LabContext, 'availableParallelism'>): number {
  return Math.max(1, ctx.availableParallelism);
}

function productParams(ctx: Pick<LabContext, 'availableParallelism'>): { count: number; size: number } {
  return { count: countFor(workersFor(ctx)), size: SIZE };
}

const lab: LabDefinition<LabInput, LabOutput> = {
  name: 'task-graph',
  title: 'Task graphs and futures: work, span and Brent’s bound',
  summary: 'a product of matrices as a chain and as a tree of futures on 1, 2 and P threads, beside the span bound; empty tasks for the cost per task',
  episode: 'episodes/06-task-granularity.mdx',
  learnerFiles: LEARNER_FILES,
  variants: [
    { name: 'serial', description: 'the product left to right on the main thread (baseline)', source: 'labs/task-graph/src/matrix.ts: productSerial' },
    { name: 'flat', description: 'the product as a chain of futures on a pool of `workers` threads: span = work', source: '<impl>/graph.ts: flatProduct' },
    { name: 'tree', description: 'the product as a balanced tree of futures on a pool of `workers` threads: span = log2(count) products', source: '<impl>/graph.ts: treeProduct' },
    { name: 'empty', description: '`tasks` empty tasks through a pool of P threads: the scheduler’s cost per task', source: 'labs/task-graph/src/cases.ts: emptyCase' },
  ],
  baseline: 'serial',
  sweeps: [{ param: 'workers', variants: ['flat', 'tree'], over: 'baseline', title: 'Speedup over the serial product, by workers' }],
  headline: (ctx) => ({ variant: 'tree', params: { ...productParams(ctx), workers: workersFor(ctx) } }),
  grading: {
    cases: (ctx): Headline[] => [{ variant: 'tree', params: { ...productParams(ctx), workers: workersFor(ctx) } }],
    target: 0.9,
    targetText: "at least 0.9 of the solution's throughput: the tree on P threads",
  },
  inputParams: ['count', 'size', 'tasks'],
  inputs(params, ctx) {
    const tasks = params['tasks'];
    if (typeof tasks === 'number') {
      return { check: [{ kind: 'empty', tasks: 1 }, { kind: 'empty', tasks: 37 }], measure: { kind: 'empty', tasks } };
    }
    const count = Number(params['count'] ?? countFor(workersFor(ctx)));
    const size = Number(params['size'] ?? SIZE);
    return {
      check: CHECK_COUNTS.map((n, k) => ({ kind: 'product' as const, matrices: seededMatrices(ctx.seed + 1 + k, n, CHECK_SIZE) })),
      measure: { kind: 'product', matrices: seededMatrices(ctx.seed, count, size) },
      // Each measured sample multiplies matrices of its own (the judge's fresh number, revealed only with its sample), made before its clock starts
      // and checked after it stops (fresh-inputs.ts). The empty tasks have nothing to vary: their answer is their count.
      measureAt: (sample: number) => ({ kind: 'product' as const, matrices: freshProduct(ctx.seed, sample, count, size) }),
    };
  },
  // A fresh product checked in O(count n^2) by Freivalds' test modulo MODULUS (fresh-inputs.ts checkChain).
  checkSample(input, output) {
    if (input.kind === 'empty') throw new Error('the empty tasks have no fresh inputs: their sample is compared with its expected sum');
    return checkChain(input.matrices, output);
  },
  expected(input) {
    if (input.kind === 'empty') return [(input.tasks * (input.tasks - 1)) / 2];
    return productSerial(input.matrices);
  },
  // Integers mod 1,000,003 (and the empty tasks' sum): equal entry by entry, no tolerance.
  comparator: { ...withinTolerance({ abs: 0, rel: 0 }), description: `exact integers (entries mod ${formatCount(MODULUS)}), entry by entry` },
  workPerSample(input) {
    return input.kind === 'empty' ? { amount: input.tasks, unit: 'tasks' } : { amount: input.matrices.length - 1, unit: 'products' };
  },
  sampleItems(params, work) {
    return { item: params['tasks'] !== undefined ? 'task' : 'product', itemsPerSample: Math.max(1, work.amount) };
  },
  cases(ctx) {
    const p = workersFor(ctx);
    const { count, size } = productParams(ctx);
    const cases: CaseDefinition<LabInput, LabOutput>[] = [{ ...serialCase(count, size), estimate: (_c, rates) => estimateSerial(count, rates) }];
    for (const variant of ['flat', 'tree'] as const) {
      for (const workers of shortWorkerSweep(p)) {
        cases.push({
          ...graphCase(variant, workers, count, size),
          estimate: (c, rates) => estimateGraph(variant, count, workers, c, rates),
          // The chain on one or two threads below P repeats what the chain at P shows: a long run may leave it out.
          ...(variant === 'flat' && workers !== p ? { optional: true } : {}),
        });
      }
    }
    cases.push({ ...emptyCase(EMPTY_TASKS, p), estimate: (c, rates) => estimateEmpty(EMPTY_TASKS, p, c, rates) });
    return cases;
  },
  async labAnalysis(results) {
    const { taskGraphAnalysis } = await import('./analysis.ts');
    return taskGraphAnalysis(results);
  },
  sampling: { quick: { warmupSamples: 1, rounds: 3, samplesPerRound: 2 }, full: { warmupSamples: 2, rounds: 8, samplesPerRound: 2 } },
  // The run's plan (the harness's plan.ts): the product of two matrices timed here; a graph of empty tasks makes no input.
  planning: {
    calibrate,
    courseMachine: COURSE_MACHINE_RATES,
    inputsMs: (params, ctx, rates) => (params['tasks'] !== undefined ? 0 : estimateInputs(Number(params['count'] ?? countFor(workersFor(ctx))), rates)),
  },
};

export default lab;
