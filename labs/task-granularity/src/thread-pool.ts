/**
 * Piscina pools for the cases, shared between cases that use the same worker file and size (see lease.ts), with
 * their start-up time and memory recorded so the threads-vs-processes comparison has numbers on both sides.
 */
import { Piscina } from 'piscina';
import { createBusyClock, type BusyClock } from './busy-clock.ts';
import { lease, type Lease } from './lease.ts';

const MIB = 1024 * 1024;

export interface ThreadPool {
  pool: Piscina;
  workers: number;
  /** ms from creating the pool to every thread having answered one empty task (threads started, modules loaded). */
  startupMs: number;
  /** Growth of this process's resident memory over that start-up, per thread, in MiB: a rough cost of one thread. */
  memoryPerWorkerMiB: number;
  /** Compute time the workers report (chunk-worker.ts adds to it; other workers ignore it): see busy-clock.ts. */
  busyClock: BusyClock;
}

async function startPool(filename: string, workers: number, warmTask: unknown): Promise<ThreadPool> {
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  // minThreads = maxThreads: every thread starts now and stays; idleTimeout keeps them alive between samples.
  const busyClock = createBusyClock();
  const pool = new Piscina({ filename, minThreads: workers, maxThreads: workers, idleTimeout: 60_000, workerData: { busyClock } });
  try {
    // One task per thread, all at once: each thread loads the worker module before it answers.
    await Promise.all(Array.from({ length: workers }, () => pool.run(warmTask)));
  } catch (error) {
    await pool.destroy();
    throw error;
  }
  const startupMs = performance.now() - started;
  const memoryPerWorkerMiB = Math.max(0, process.memoryUsage().rss - rssBefore) / MIB / workers;
  return { pool, workers, startupMs, memoryPerWorkerMiB, busyClock };
}

/** A pool of `workers` threads running `filename` (a file URL), shared with other cases that ask for the same. */
export function leaseThreadPool(filename: string, workers: number, warmTask: unknown): Promise<Lease<ThreadPool>> {
  return lease(`threads:${workers}:${filename}`, () => startPool(filename, workers, warmTask), (p) => p.pool.destroy());
}
