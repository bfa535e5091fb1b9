/**
 * A piscina pool of the lab's worker (graph-worker.ts), started and warmed in a case's set-up, never in a sample:
 * every thread has loaded the module and answered one task before the first sample is timed.
 */
import { Piscina } from 'piscina';
import type { EmptyTask } from './graph-worker.ts';

const WORKER = new URL('./graph-worker.ts', import.meta.url).href;

export async function startPool(workers: number): Promise<Piscina> {
  // minThreads = maxThreads: every thread starts now and stays; idleTimeout keeps them alive between samples.
  const pool = new Piscina({ filename: WORKER, minThreads: workers, maxThreads: workers, idleTimeout: 60_000 });
  try {
    const warm: EmptyTask = { kind: 'empty', index: 0 };
    await Promise.all(Array.from({ length: workers }, () => pool.run(warm)));
  } catch (error) {
    await pool.destroy();
    throw error;
  }
  return pool;
}
