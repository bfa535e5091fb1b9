/**
 * Your server's handlers for the event-loop lab. Each returns a RingHandler: `derive(account)` resolves to the
 * response body, exactly the bytes `deriveRingSync(account)` (labs/event-loop/src/work.ts) returns.
 * Check your work with:   npm run lab -- event-loop
 * The episode (episodes/05-event-loop.mdx) explains each technique; the harness tells you which ones pass.
 */
import { notImplemented } from '@parallel-course/harness/lab-definition.ts';
import {
  deriveKeySync,
  formatBody,
  KEYS_PER_REQUEST,
  type RingHandler,
} from '@parallel-course/event-loop/work.ts';

/**
 * Cooperative chunking: keep the event loop free between pieces of work.
 */
export function createChunkedHandler(): RingHandler {
  return {
    async derive(account) {
      const keys: string[] = [];
      // TODO(learner): derive the KEYS_PER_REQUEST keys one at a time with deriveKeySync(account, i), and after
      // each key give the event loop a turn: `await new Promise<void>((resolve) => setImmediate(resolve))`.
      // Then return formatBody(account, keys).
      return notImplemented('createChunkedHandler in exercises/event-loop/handlers.ts (derive one key per turn of the event loop)');
    },
    async close() {},
  };
}

/**
 * Node's own threadpool: the async crypto API runs PBKDF2 off the main thread for you.
 */
export function createThreadpoolHandler(): RingHandler {
  return {
    async derive(_account) {
      // TODO(learner): start all KEYS_PER_REQUEST keys with the async `crypto.pbkdf2` (callback API, or
      // `promisify(pbkdf2)` from node:util), using passwordFor, saltFor, ITERATIONS_PER_KEY, KEY_BYTES and DIGEST
      // from work.ts, wait for all of them (Promise.all), and return formatBody(account, keys as hex strings).
      return notImplemented('createThreadpoolHandler in exercises/event-loop/handlers.ts (use the async crypto.pbkdf2)');
    },
    async close() {},
  };
}

/**
 * A pool of `workers` worker threads with piscina: each request becomes one task that runs exercises/event-loop/worker.ts.
 */
export function createPoolHandler(_workers: number): RingHandler {
  // TODO(learner): create the pool once, here:
  //   new Piscina({ filename: new URL('./worker.ts', import.meta.url).href, minThreads: workers, maxThreads: workers })
  // (import { Piscina } from 'piscina'). minThreads = maxThreads starts every thread up front.
  // Then derive(account) is `pool.run({ account })` and close() is `pool.destroy()`.
  return notImplemented('createPoolHandler in exercises/event-loop/handlers.ts (create a piscina pool and run one task per request)');
}
