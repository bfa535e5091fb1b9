/**
 * The cases: the product on the main thread (the baseline), the learner's two graphs of the same product on a pool
 * of W threads (the chain and the tree), and empty tasks through a pool of P threads (its cost per task).
 */
import { type CaseDefinition, type CaseInstance, importLearnerModule, learnerPath } from '@parallel-course/harness';
import type { RawObservation } from '@parallel-course/core';
import type { Piscina } from 'piscina';
import { measureGraph } from './graph-measures.ts';
import type { EmptyTask } from './graph-worker.ts';
import type { LabInput, LabOutput } from './inputs.ts';
import { GRAPH } from './learner-files.ts';
import { productSerial, type Matrix } from './matrix.ts';
import { TaskGraph, type Future, type MatrixRunner } from './task-graph.ts';
import { startPool } from './thread-pool.ts';

type Case = CaseDefinition<LabInput, LabOutput>;
type Instance = CaseInstance<LabInput, LabOutput>;

/** The learner's graphs (graph.ts). */
interface GraphModule {
  flatProduct(g: TaskGraph, count: number): Future;
  treeProduct(g: TaskGraph, count: number): Future;
}

/** The names of the observations each graph case records per sample, read back by analysis.ts. */
export const OBSERVATIONS = {
  workMs: 'graph work',
  spanMs: 'graph span',
  tasks: 'graph tasks',
  spanTasks: 'graph span in tasks',
} as const;

function productOf(input: LabInput): Matrix[] {
  if (input.kind !== 'product') throw new TypeError(`this case runs on a product input, got ${input.kind} tasks`);
  return input.matrices;
}

/** The baseline: the product left to right on the main thread, no pool. */
export function serialCase(count: number, size: number): Case {
  return {
    variant: 'serial',
    params: { count, size },
    async setup(): Promise<Instance> {
      return { run: (input) => productSerial(productOf(input)), teardown() {} };
    },
  };
}

/**
 * The learner's `flatProduct` or `treeProduct` on a pool of `workers` threads. Each sample builds a fresh graph, awaits
 * its future, checks that the answer came out of the graph with nothing left running, and records the graph's work and
 * span (in the workers' ms and in tasks) from the tasks it ran.
 */
export function graphCase(variant: 'flat' | 'tree', workers: number, count: number, size: number): Case {
  const exported = variant === 'flat' ? 'flatProduct' : 'treeProduct';
  return {
    variant,
    params: { count, size, workers },
    workers,
    async setup(ctx): Promise<Instance> {
      const impl = await importLearnerModule<GraphModule>(ctx.implDir, GRAPH);
      const what = `${exported} in ${learnerPath(ctx.implDir, GRAPH.file)}`;
      const pool: Piscina = await startPool(workers);
      const runner = pool as unknown as MatrixRunner;
      const observed = { workMs: [] as number[], spanMs: [] as number[], tasks: [] as number[], spanTasks: [] as number[] };
      return {
        async run(input) {
          const matrices = productOf(input);
          const graph = new TaskGraph(runner, matrices);
          const product = graph.finish(await impl[exported](graph, matrices.length), what);
          const { ms, count: n } = measureGraph(graph.tasks);
          observed.workMs.push(ms.work);
          observed.spanMs.push(ms.span);
          observed.tasks.push(n.work);
          observed.spanTasks.push(n.span);
          return product;
        },
        resetObservations() {
          for (const list of Object.values(observed)) list.length = 0;
        },
        collectObservations(): Record<string, RawObservation> {
          return {
            [OBSERVATIONS.workMs]: { unit: 'ms', description: "work W: the tasks' compute times in the workers, summed", samples: [...observed.workMs] },
            [OBSERVATIONS.spanMs]: { unit: 'ms', description: 'span S: the compute times along the costliest chain of dependent tasks', samples: [...observed.spanMs] },
            [OBSERVATIONS.tasks]: { unit: 'tasks', description: 'tasks in the graph (W counted in tasks)', samples: [...observed.tasks] },
            [OBSERVATIONS.spanTasks]: { unit: 'tasks', description: 'tasks on the longest chain of dependent tasks (S counted in tasks)', samples: [...observed.spanTasks] },
          };
        },
        teardown: () => pool.destroy(),
      };
    },
  };
}

/**
 * `tasks` empty tasks handed to a pool of `workers` threads all at once and awaited: the time per task is the pool's
 * own cost (a message each way, a wake-up, a promise), the figure Dask's and Python's schedulers are compared by.
 */
export function emptyCase(tasks: number, workers: number): Case {
  return {
    variant: 'empty',
    params: { tasks, workers },
    workers,
    async setup(): Promise<Instance> {
      const pool = await startPool(workers);
      return {
        async run(input) {
          if (input.kind !== 'empty') throw new TypeError(`the empty case runs on empty tasks, got a ${input.kind} input`);
          const answers = await Promise.all(Array.from({ length: input.tasks }, (_, index) => pool.run({ kind: 'empty', index } satisfies EmptyTask) as Promise<number>));
          let sum = 0;
          for (const a of answers) sum += a;
          return [sum];
        },
        teardown: () => pool.destroy(),
      };
    },
  };
}
