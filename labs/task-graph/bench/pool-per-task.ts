/**
 * `node labs/task-graph/bench/pool-per-task.ts [--tasks N] [--rounds R] [--workers W]`: the task-graph lab's pool
 * (piscina, src/thread-pool.ts, the pool whose cost per empty task the lab reports) against a minimal Node worker pool
 * (worker_threads, one MessagePort per worker, the same task function, the same discipline: one task in flight per
 * worker, the rest queued on the main thread), in one run: R interleaved rounds, each a sample of N empty tasks
 * through each pool (the order alternating), after 3 warm-up samples each. Prints each pool's cost per task (sample
 * time / N, in µs) as a median with its distribution-free 95% interval, and the ratio with a paired bootstrap interval.
 * Issue 47 asks the lab's pool to stay within 1.25x of the minimal one. A benchmark, not a test: no number here is
 * asserted (test/pool-per-task.test.ts checks that it runs and prints).
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createRng, formatBracketInterval, formatLoadAverage, formatRatio, formatTimeWithInterval, median, orderStatisticMedianCi, roundBootstrapRatioCi } from '@parallel-course/core';
import { EMPTY_TASKS } from '../src/lab.ts';
import { startPool } from '../src/thread-pool.ts';
import type { EmptyTask } from '../src/graph-worker.ts';

interface BenchOptions {
  tasks: number;
  rounds: number;
  workers: number;
}

/** Options from the command line; each flag a positive integer, else an error naming it and the fix. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const options: BenchOptions = { tasks: EMPTY_TASKS, rounds: 30, workers: availableParallelism() };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    const key = flag.replace(/^--/, '') as keyof BenchOptions;
    if (!(key in options)) throw new Error(`unknown option ${flag}: use --tasks N, --rounds R or --workers W`);
    const value = Number(argv[i + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} must be a positive integer, got ${argv[i + 1] ?? 'nothing'}: e.g. ${flag} 4`);
    options[key] = value;
  }
  return options;
}

/** A sample: `tasks` empty tasks through the pool, all submitted at once; returns ms, after checking the answers. */
type Pool = { run(task: EmptyTask): Promise<number>; close(): Promise<void> };

/** The minimal pool: one task in flight per worker, a FIFO queue for the rest. */
function minimalPool(workers: number): Pool {
  const url = new URL('./minimal-pool-worker.ts', import.meta.url);
  const queue: { id: number; task: EmptyTask }[] = [];
  const waiting = new Map<number, (value: number) => void>();
  const idle: Worker[] = [];
  let nextId = 0;
  const dispatch = (worker: Worker): void => {
    const next = queue.shift();
    if (next) worker.postMessage(next);
    else idle.push(worker);
  };
  const all = Array.from({ length: workers }, () => {
    const worker = new Worker(url);
    worker.on('message', ({ id, result }: { id: number; result: number }) => {
      waiting.get(id)!(result);
      waiting.delete(id);
      dispatch(worker);
    });
    idle.push(worker);
    return worker;
  });
  return {
    run(task) {
      const id = nextId++;
      return new Promise<number>((resolve) => {
        waiting.set(id, resolve);
        const worker = idle.pop();
        if (worker) worker.postMessage({ id, task });
        else queue.push({ id, task });
      });
    },
    close: async () => void (await Promise.all(all.map((w) => w.terminate()))),
  };
}

async function sample(pool: Pool, tasks: number): Promise<number> {
  const t0 = performance.now();
  const answers = await Promise.all(Array.from({ length: tasks }, (_, index) => pool.run({ kind: 'empty', index })));
  const ms = performance.now() - t0;
  const sum = answers.reduce((x, y) => x + y, 0);
  if (sum !== (tasks * (tasks - 1)) / 2) throw new Error(`a pool answered ${sum} for ${tasks} empty tasks, expected ${(tasks * (tasks - 1)) / 2}`);
  return ms;
}

export async function main(argv: readonly string[]): Promise<void> {
  const { tasks, rounds, workers } = parseOptions(argv);
  const piscina = await startPool(workers);
  const course: Pool = { run: (task) => piscina.run(task) as Promise<number>, close: () => piscina.destroy() };
  const minimal = minimalPool(workers);
  const pools = [course, minimal];
  const perTaskUs: number[][] = [[], []];
  try {
    for (let w = 0; w < 3; w++) for (const pool of pools) await sample(pool, tasks);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) perTaskUs[k]!.push(((await sample(pools[k]!, tasks)) * 1000) / tasks);
    }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  const roundsOf = Array.from({ length: rounds }, (_, r) => r);
  // Per-task costs are in µs; the core's time formatter takes ms and picks the unit.
  const line = (name: string, us: number[]): string => {
    const [lo, hi] = orderStatisticMedianCi(us);
    return `${name}: ${formatTimeWithInterval(median(us) / 1000, [lo / 1000, hi / 1000])} per task`;
  };
  const ratio = median(perTaskUs[0]!) / median(perTaskUs[1]!);
  const [rlo, rhi] = roundBootstrapRatioCi(perTaskUs[0]!, roundsOf, perTaskUs[1]!, roundsOf, createRng(47), 10_000);
  console.log(`pool per-task cost: ${tasks} empty tasks per sample, ${workers} workers, ${rounds} rounds interleaved; Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} CPUs, load ${formatLoadAverage(loadavg())}`);
  console.log(`  ${line('the lab\'s pool (piscina, labs/task-graph/src/thread-pool.ts)', perTaskUs[0]!)}`);
  console.log(`  ${line('a minimal pool (worker_threads, one task in flight per worker)', perTaskUs[1]!)}`);
  console.log(`  ratio, the lab's pool over the minimal one: ${formatRatio(ratio)} ${formatBracketInterval([rlo, rhi])} (issue 47: within 1.25x)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`pool-per-task: ${(error as Error).message}`);
    process.exit(1);
  });
}
