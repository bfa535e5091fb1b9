/** Messages between the harness and a server process (server-main.ts), over the fork IPC channel. */

export type VariantName = 'inline' | 'chunked' | 'threadpool' | 'pool';

export type ServerRequest =
  | { type: 'reset-loop-delay' }
  | { type: 'loop-delay' }
  | { type: 'close' }
  | { type: 'probe'; account: number };

/**
 * What the server saw while it derived one ring itself (server-main.ts), for the check of each variant's property
 * (properties.ts): the event loop's turns meanwhile, and the worker threads started by the handler.
 */
export interface ProbeReport {
  /** The ring, or the error the handler threw. */
  body: string | null;
  error: string | null;
  /** setImmediate callbacks that ran while the ring was derived: each is a turn of the loop, a chance for a /ping. */
  turns: number;
  /** The ring's wall time and the longest stretch in it without a turn, in ms. */
  ringMs: number;
  longestBlockMs: number;
  /** One key (deriveKeySync) timed in this process just before, in ms. */
  keyMs: number;
  /** Worker threads this process started: by the end of set-up (creating the handler and its warm-up), and since. */
  threadsAtReady: number;
  threadsSince: number;
}

export type ServerMessage =
  /** Listening: on loopback `port`, and on the Unix socket `socketPath` (in the run's temp folder) for the judge's probe. */
  | { type: 'ready'; port: number; socketPath: string }
  | { type: 'failed'; message: string }
  | { type: 'loop-delay-reset' }
  | { type: 'loop-delay'; p50Ms: number; p99Ms: number; maxMs: number; count: number }
  | ({ type: 'probe' } & ProbeReport);
