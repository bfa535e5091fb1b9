/**
 * Piscina pools for the cases, shared between cases that use the same worker file and size (see lease.ts), with
 * their start-up time and memory recorded so the threads-vs-processes comparison has numbers on both sides.
 */
import { Piscina } from 'piscina';
import { lease, type Lease } from './lease.ts';

const MIB = 1024 * 1024;

export interface ThreadPool {
  pool: Piscina;
  workers: number;
  /** ms from creating the pool to every thread having answered one empty task (threads started, modules loaded). */
  startupMs: number;
  /** Growth of this process's resident memory over that start-up, per thread, in MiB: a rough cost of one thread. */
  memoryPerWorkerMiB: number;
}

async function startPool(filename: string, workers: number, warmTask: unknown, tasksPerWorker: number): Promise<ThreadPool> {
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  // minThreads = maxThreads: every thread starts now and stays; idleTimeout keeps them alive between samples.
  // concurrentTasksPerWorker > 1 hands a busy thread its next task early: the task waits in the thread's message
  // queue and starts the moment the current one ends, instead of after a round trip through the main thread.
  const pool = new Piscina({ filename, minThreads: workers, maxThreads: workers, idleTimeout: 60_000, concurrentTasksPerWorker: tasksPerWorker });
  try {
    // One task per thread, all at once: each thread loads the worker module before it answers.
    await Promise.all(Array.from({ length: workers }, () => pool.run(warmTask)));
  } catch (error) {
    await pool.destroy();
    throw error;
  }
  const startupMs = performance.now() - started;
  const memoryPerWorkerMiB = Math.max(0, process.memoryUsage().rss - rssBefore) / MIB / workers;
  return { pool, workers, startupMs, memoryPerWorkerMiB };
}

/**
 * A pool of `workers` threads running `filename` (a file URL), shared with other cases that ask for the same.
 * `tasksPerWorker`: how many tasks piscina may give one thread at a time (1: the next task is sent only when the
 * thread's result has reached the main thread).
 */
export function leaseThreadPool(filename: string, workers: number, warmTask: unknown, tasksPerWorker = 1): Promise<Lease<ThreadPool>> {
  return lease(
    `threads:${workers}:${tasksPerWorker}:${filename}`,
    () => startPool(filename, workers, warmTask, tasksPerWorker),
    (p) => p.pool.destroy(),
  );
}
