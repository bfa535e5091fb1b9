/**
 * The course's solution of the event-loop lab: three ways to keep the server responsive while it derives key rings.
 * The exercise (exercises/event-loop/handlers.ts) has the same exports.
 */
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { Piscina } from 'piscina';
import {
  deriveKeySync,
  DIGEST,
  formatBody,
  ITERATIONS_PER_KEY,
  KEY_BYTES,
  KEYS_PER_REQUEST,
  passwordFor,
  saltFor,
  type RingHandler,
} from '@parallel-course/event-loop/work.ts';

const pbkdf2Async = promisify(pbkdf2);

/**
 * Cooperative chunking: derive one key, then give the event loop a turn (setImmediate runs after pending I/O),
 * so a /ping waits for at most one key per request in flight (an eighth of a ring each) instead of whole rings. It adds no parallelism:
 * everything still runs on the one main thread.
 */
export function createChunkedHandler(): RingHandler {
  return {
    async derive(account) {
      const keys: string[] = [];
      for (let i = 0; i < KEYS_PER_REQUEST; i++) {
        keys.push(deriveKeySync(account, i));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      return formatBody(account, keys);
    },
    async close() {},
  };
}

/**
 * Node's own threadpool: async `crypto.pbkdf2` already runs on libuv's threadpool (UV_THREADPOOL_SIZE threads,
 * 4 by default), so this work needs no pool of ours at all. All keys are started at once; they run in parallel.
 */
export function createThreadpoolHandler(): RingHandler {
  return {
    async derive(account) {
      const keys = await Promise.all(
        Array.from({ length: KEYS_PER_REQUEST }, (_, i) =>
          pbkdf2Async(passwordFor(account), saltFor(account, i), ITERATIONS_PER_KEY, KEY_BYTES, DIGEST),
        ),
      );
      return formatBody(account, keys.map((key) => key.toString('hex')));
    },
    async close() {},
  };
}

/**
 * A piscina pool with exactly `workers` threads, all started up front (minThreads = maxThreads) so no request
 * pays for a thread start. Each request is one task: the whole ring is derived in a worker (worker.ts).
 *
 * Design task (episode 05, "size the pool for a latency budget": /ping p99 under 10 ms at the highest throughput):
 * the lab sweeps `workers`; the size to deploy is os.availableParallelism(), P. Pools beyond P add no throughput
 * (their speedup's interval overlaps the pool at P's) and their /ping p99 is no better: threads beyond the CPUs only
 * time-slice them with the main thread, which answers every /ping. Read the run's table (the lab's analysis) for
 * this machine's numbers. Near the budget, leave one CPU to the main thread.
 */
export function createPoolHandler(workers: number): RingHandler {
  const pool = new Piscina({
    filename: new URL('./worker.ts', import.meta.url).href,
    minThreads: workers,
    maxThreads: workers,
    // Queue without limit: the load generator bounds the number of requests in flight.
    maxQueue: Infinity,
  });
  return {
    derive(account) {
      return pool.run({ account }) as Promise<string>;
    },
    close() {
      return pool.destroy();
    },
  };
}
