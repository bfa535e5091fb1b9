/**
 * One window of the judge's probe from outside (outside-probe.ts), run on the event loop of a worker thread of the judge
 * (outside-window-thread.ts), so that nothing else the judge's process computes meanwhile runs on the loop that times
 * the /pings: through the server's Unix socket, the window's rings asked for one after another, GET /ping after GET
 * /ping meanwhile, each timed by this thread's clock, then the bodies compared with the judge's own derivation.
 * Loads no harness module (a fresh thread's imports stay small). Input: the socket's path and the window's accounts.
 * Output: an OutsideWindow.
 */
import { pbkdf2 } from 'node:crypto';
import http from 'node:http';
import { deriveKeySync, DIGEST, formatBody, ITERATIONS_PER_KEY, KEY_BYTES, KEYS_PER_REQUEST, passwordFor, saltFor } from './work.ts';

/** The longest one request may take, in ms: a ring is tens of ms; a handler that never answers fails the probe. */
const REQUEST_LIMIT_MS = 20_000;

/** What one window showed, every time on the clock of the thread that ran it, in ms. */
export interface OutsideWindow {
  /**
   * One key (deriveKeySync) on the window's thread just before it (the fastest of 3), or the fastest the judge's process
   * saw before where that is faster (a thread starved while it timed the key stretches it): the unit of "a turn's worth".
   */
  keyMs: number;
  /** The pinger's pace (PING_EVERY_KEYS keys): a /ping is sent at least this long after the last one. */
  tickMs: number;
  /** From the first /derive sent to the last answered. */
  windowMs: number;
  /** Each /ping's wait, in the order sent (the last may end after the window). */
  pingWaitsMs: number[];
  /** Each ring's request, from its sending to its answer, from the window's start. */
  ringsMs: { sent: number; answered: number }[];
  /** Each /ping's answer, from the window's start. */
  pingAnswersMs: number[];
  /**
   * Each /ping's lag, in the order sent: from when it was due (the last /ping's answer, or tickMs after it was sent if
   * that is later) to when it was sent. While the pinger lags no /ping waits, so a blocked loop's stall goes unseen.
   */
  pingLagsMs: number[];
  /** The accounts whose answered ring was not the judge's own derivation (a ring not derived is no window). */
  wrongRings: number[];
}

function get(socketPath: string, agent: http.Agent, route: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get({ socketPath, path: route, agent, timeout: REQUEST_LIMIT_MS }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${route} had no answer within ${REQUEST_LIMIT_MS / 1000} s`)));
    request.on('error', reject);
  });
}

/**
 * An account's ring in libuv's threadpool (the async crypto.pbkdf2), not on the calling thread's loop: a window's four
 * rings are about 80 ms of work, which on a loop that times /pings (another runner's window, as a graded run's two
 * mirrored runners are probed at about the same time) would hold them as a blocked server does.
 */
export function deriveRing(account: number): Promise<string> {
  const key = (index: number) =>
    new Promise<string>((resolve, reject) =>
      pbkdf2(passwordFor(account), saltFor(account, index), ITERATIONS_PER_KEY, KEY_BYTES, DIGEST, (error, derived) => (error ? reject(error) : resolve(derived.toString('hex')))),
    );
  return Promise.all(Array.from({ length: KEYS_PER_REQUEST }, (_, i) => key(i))).then((keys) => formatBody(account, keys));
}

/**
 * The pinger's cadence, in keys: a /ping is due every half key (outside-probe.ts closedRings counts the /pings answered
 * during a ring of 8 keys, so a free loop shows about 16 a ring), not one after another as fast as the server answers
 * (review finding 13: a server that answered /ping at once and never finished a ring kept this thread sending pings for
 * REQUEST_LIMIT_MS).
 */
export const PING_EVERY_KEYS = 0.5;

/** The wall time of one key (deriveKeySync) on this thread, in ms: the fastest of 3. */
function keyWallMs(account: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 3; k++) {
    const keyStarted = performance.now();
    deriveKeySync(account, k);
    best = Math.min(best, performance.now() - keyStarted);
  }
  return best;
}

/**
 * One window: the rings of `accounts` asked for one after another through `socketPath` while /pings go one at a time,
 * at most one every PING_EVERY_KEYS keys, each timed here (outside-probe.ts
 * says why and how the judge reads it); the bodies compared after it. Each /ping's lag is kept: a thread the machine
 * starved sends its /pings late, and a blocked loop's stall while none waits goes unseen (outside-probe.ts pingerLate).
 */
export async function oneWindow(socketPath: string, accounts: readonly number[], fastestKeyMs = Number.POSITIVE_INFINITY): Promise<OutsideWindow> {
  // Before the window, on this thread: one key's time, or the judge's fastest key so far (`fastestKeyMs`) where that is
  // faster: a key timed while learner threads held the CPUs is slower, and would make the allowance longer than a ring.
  const keyMs = Math.min(keyWallMs(accounts[0] as number), fastestKeyMs);
  const tickMs = Math.max(keyMs * PING_EVERY_KEYS, 0.1);
  const pings = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const derives = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // The ping connection opened (and the server's loop shown free) before the window.
    await get(socketPath, pings, '/ping');
    const pingWaitsMs: number[] = [];
    const pingAnswersMs: number[] = [];
    const ringsMs: { sent: number; answered: number }[] = [];
    const pingLagsMs: number[] = [];
    const started = performance.now();
    let ended: number | null = null;
    const rings = (async () => {
      const bodies: string[] = [];
      for (const account of accounts) {
        const sent = performance.now() - started;
        bodies.push(await get(socketPath, derives, `/derive?account=${account}`));
        ringsMs.push({ sent, answered: performance.now() - started });
      }
      return bodies;
    })().finally(() => {
      ended = performance.now();
    });
    rings.catch(() => {}); // awaited below; the pinger must not leave it unhandled meanwhile
    // The pinger: one /ping at a time, each due when the last was answered but not before tickMs after the last was
    // sent; one due at once goes from the answer's own callback (a running thread cannot be late), one due later
    // waits for a timer, and how late that timer let it go is kept.
    let due = started;
    while (ended === null) {
      // A timer's delay is whole milliseconds (Node truncates a fraction: 1.9 waited 1) and libuv's clock is read once a
      // turn, so a timer can fire before `due`: wait until it has passed. Before, a 1.9 ms pace sent a /ping every
      // 1.6 ms (250 in 411 ms, a CI run on the AMD EPYC VM).
      for (let wait = due - performance.now(); wait > 0 && ended === null; wait = due - performance.now()) {
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
      }
      if (ended !== null) break;
      const sent = performance.now();
      pingLagsMs.push(Math.max(0, sent - due));
      await get(socketPath, pings, '/ping');
      const answered = performance.now();
      pingWaitsMs.push(answered - sent);
      pingAnswersMs.push(answered - started);
      due = Math.max(answered, sent + tickMs);
    }
    const bodies = await rings;
    // After the window: the bodies to compare with, off this thread (deriveRing).
    const expectedRings = await Promise.all(accounts.map((account) => deriveRing(account)));
    const wrongRings = accounts.filter((account, i) => bodies[i] !== expectedRings[i]);
    return { keyMs, tickMs, windowMs: (ended ?? started) - started, pingWaitsMs, ringsMs, pingAnswersMs, pingLagsMs, wrongRings };
  } finally {
    pings.destroy();
    derives.destroy();
  }
}
