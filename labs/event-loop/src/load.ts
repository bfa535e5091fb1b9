/**
 * Load on loopback, from the harness's process.
 * - `burst`: one sample's worth of CPU-endpoint requests, all in flight at once, sent by autocannon used as a library
 *   (one connection per request, bounded by request count and a per-request timeout). Resolves when the last response
 *   has arrived; autocannon's own wind-down (it reports on its next tick) is awaited separately, outside the timing.
 * - `PingProbe`: the cheap endpoint's latency under that load, measured with performance.now() around each request
 *   (autocannon's latencies are whole milliseconds; loopback latencies are often far below one).
 */
import http from 'node:http';
import type AutocannonModule from 'autocannon';
import { NotImplementedError } from '@parallel-course/harness';

let autocannon: typeof AutocannonModule | null = null;

/**
 * Loads autocannon, once per process. Importing it costs about 0.13 CPU-s, and most processes that import this lab
 * only read its declarations (the harness's parent, --status, --list, plan, the site's build): only a run that sends
 * load needs it. A case's set-up calls this, so the import is never inside a timed sample.
 */
export async function loadLoadGenerator(): Promise<void> {
  autocannon ??= (await import('autocannon')).default;
}

/** Seconds one request may take before autocannon counts it as timed out. */
const REQUEST_TIMEOUT_S = 60;

export interface Burst {
  /** Response bodies in the order of `accounts`. */
  bodies: Promise<string[]>;
  /** Resolves when autocannon has wound down (outside the timed region). */
  finished: Promise<void>;
}

export function burst(port: number, accounts: readonly number[]): Burst {
  if (autocannon === null) throw new Error('burst: the load generator is not loaded; call loadLoadGenerator() in the set-up, before any timing');
  const byAccount = new Map<number, string>();
  let next = 0;
  let failure: Error | null = null;
  let resolveBodies!: (bodies: string[]) => void;
  let rejectBodies!: (error: Error) => void;
  const bodies = new Promise<string[]>((resolve, reject) => {
    resolveBodies = resolve;
    rejectBodies = reject;
  });
  const settle = () => {
    if (failure) rejectBodies(failure);
    else if (byAccount.size === accounts.length) resolveBodies(accounts.map((a) => byAccount.get(a) as string));
  };
  const finished = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: accounts.length,
    amount: accounts.length,
    timeout: REQUEST_TIMEOUT_S,
    // autocannon reports on its next tick (every sampleInt ms), after the burst; the wait is outside the timing.
    // Ticks cost the load generator CPU that the server's workers need on a small machine: every 5 ms doubled
    // the harness's CPU time per burst here, so tick every 50 ms.
    sampleInt: 50,
    requests: [
      {
        setupRequest: (request) => ({ ...request, path: `/derive?account=${accounts[next++ % accounts.length]}` }),
        onResponse: (status, body) => {
          if (status === 501) failure ??= new NotImplementedError(body.trim().replace(/^not implemented: /, ''));
          else if (status !== 200) failure ??= new Error(`HTTP ${status}: ${body.trim().slice(0, 300)}`);
          else {
            const account = Number(/^account (\d+)\n/.exec(body)?.[1]);
            if (byAccount.has(account)) failure ??= new Error(`two responses for account ${account}`);
            byAccount.set(account, body);
          }
          settle();
        },
      },
    ],
  }).then((result) => {
    if (result.errors > 0 || result.timeouts > 0) {
      failure ??= new Error(`${result.errors} request errors (${result.timeouts} time-outs) from the load generator`);
    }
    if (byAccount.size !== accounts.length) {
      failure ??= new Error(`got ${byAccount.size} of ${accounts.length} responses (is an account missing from the replies?)`);
    }
    settle();
  });
  return { bodies, finished: finished.catch((error: Error) => void rejectBodies(error)) };
}

/** Sends GET /ping back to back (with a short pause) while active, recording each latency in ms. */
export class PingProbe {
  readonly latenciesMs: number[] = [];
  #agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  #active = false;
  #loop: Promise<void> = Promise.resolve();
  readonly port: number;
  /** Pause between pings in ms: 50 pings a second are enough for a p99 over a run and cost the server little. */
  readonly intervalMs: number;

  constructor(port: number, intervalMs = 20) {
    this.port = port;
    this.intervalMs = intervalMs;
  }

  start(): void {
    if (this.#active) return;
    this.#active = true;
    this.#loop = this.#run();
  }

  /** Stops sending; the ping in flight, if any, still records its latency. */
  async stop(): Promise<void> {
    this.#active = false;
    await this.#loop;
  }

  close(): void {
    this.#agent.destroy();
  }

  async #run(): Promise<void> {
    while (this.#active) {
      const start = performance.now();
      await new Promise<void>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: this.port, path: '/ping', agent: this.#agent }, (res) => {
            res.resume();
            res.on('end', () => resolve());
          })
          .on('error', reject);
      }).then(
        () => this.latenciesMs.push(performance.now() - start),
        () => {
          this.#active = false;
        },
      );
      if (this.#active) await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    }
  }
}
