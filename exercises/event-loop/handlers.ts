/**
 * Your server's handlers for the event-loop lab. Each returns a RingHandler: `derive(account)` resolves to the
 * response body, exactly the bytes `deriveRingSync(account)` (labs/event-loop/src/work.ts) returns.
 * Check your work with:   npm run lab -- event-loop
 * The episode (episodes/05-event-loop.mdx) explains each technique; the harness tells you which ones pass.
 */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import {
  deriveKeySync,
  formatBody,
  KEYS_PER_REQUEST,
  type RingHandler,
} from '@parallel-course/event-loop/work.ts';

/**
 * Cooperative chunking: the same work, still on the main thread, cut into pieces with the event loop free between
 * them, so that a /ping that arrives mid-request waits for one piece instead of a whole ring.
 * Interface: derive(account) resolves to formatBody(account, keys), where keys[i] is deriveKeySync(account, i) for
 * i < KEYS_PER_REQUEST. Constraint: no other thread; between two keys, pending I/O (a /ping) must get to run.
 * The check tests that too, not only the bytes: it counts the event loop's turns while one ring is derived.
 */
export function createChunkedHandler(): RingHandler {
  return {
    async derive(account) {
      const keys: string[] = [];
      // TODO(learner): derive the keys one at a time, and after each one end this turn of the event loop so that
      // pending I/O runs before the next key. Which ways of waiting let I/O callbacks in, and which do not (a
      // resolved promise's callbacks run before any I/O)? The episode's section on chunking explains the phases.
      return notImplemented('createChunkedHandler in exercises/event-loop/handlers.ts (derive one key per turn of the event loop)');
    },
    async close() {},
  };
}

/**
 * Node's own threadpool: a built-in whose asynchronous form already runs off the main thread.
 * Interface: derive(account) resolves to the same body as deriveRingSync(account). Constraint: no pool of your own;
 * the main thread only starts the keys and collects them, and the keys of one ring run in parallel.
 */
export function createThreadpoolHandler(): RingHandler {
  return {
    async derive(_account) {
      // TODO(learner): derive every key of the ring with the asynchronous form of the function deriveKeySync calls
      // (read work.ts: same password, salt, iterations, length and digest), without waiting for one key before
      // starting the next. The body lists the keys as hex, in key order, whatever order they finish in.
      return notImplemented('createThreadpoolHandler in exercises/event-loop/handlers.ts (use the async crypto.pbkdf2)');
    },
    async close() {},
  };
}

/**
 * A pool of `workers` worker threads with piscina, running exercises/event-loop/worker.ts: each request is one task.
 * Constraint: exactly `workers` threads, all started before the first request (starting a thread costs milliseconds,
 * and no request should pay it), none ended while idle; close() ends them all. The check counts the threads started.
 */
export function createPoolHandler(_workers: number): RingHandler {
  // TODO(learner): create the pool once, here, not per request; which of piscina's options (its README lists them)
  // give a pool of exactly `workers` threads that are all started at once and never shrink? Then return a
  // RingHandler whose derive hands one task (the account) to the pool and whose close ends the pool.
  return notImplemented('createPoolHandler in exercises/event-loop/handlers.ts (create a piscina pool and run one task per request)');
}
