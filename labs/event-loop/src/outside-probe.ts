/**
 * The judge's own probe of a variant's server (the case's probeFromOutside, lab.ts), run in the harness's judge
 * process, which never loads learner code: through the server's Unix socket in the run's temp folder (server-main.ts),
 * it asks for OUTSIDE_RINGS rings one after another and, while they are derived, sends GET /ping one after another,
 * each timed by its own clock. A handler that lets the event loop turn between keys answers each /ping within about a
 * key's time; one that blocks the loop (a "yield" in the microtask queue, pbkdf2Sync on the main thread) holds a /ping
 * for a whole ring. One ring at a time: a ring's block is then one stretch of 8 keys that no /ping can cut short.
 * Nothing here is reported by the learner's process: the requests, the clock and the bodies' check are the judge's.
 * Each window runs in a worker thread of the judge (outside-window.ts), with an event loop of its own: the
 * judge's main thread computes other runners' expected outputs meanwhile, synchronously (a graded run's three runners
 * check at once; a burst's expected rings take hundreds of ms), and a /ping answered while it did so would be timed
 * as held by the server. A worker rather than a child process: it starts in tens of ms, needs no second Node or loader,
 * and its clock is the same performance.now(); rather than keeping the judge idle during a window, it leaves the
 * other runners' checks as fast as they were.
 * Input: the socket's path. Output: an OutsideProbe (judged by properties.ts judgeOutside).
 */
import { randomInt } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { FRESH_INPUT_INDICES } from '@parallel-course/harness';
import type { OutsideWindow } from './outside-window.ts';

/** Rings asked for, one after another: a window of several rings, so one descheduling of the server weighs less. */
export const OUTSIDE_RINGS = 4;
/**
 * The accounts a window's rings are drawn from: those a sample's burst may ask for (accountsOf: 1000 + the fresh
 * number x n + i, bursts of at least 24 requests, lab.ts MIN_REQUESTS; fresh numbers up to FRESH_INPUT_INDICES). Drawn for every window from
 * the CSPRNG, so a handler cannot tell the judge's rings from a sample's by their accounts: with fixed accounts
 * (888,888,800-803, in this file) a handler that kept the loop free for those alone passed (properties.test.ts's
 * probe-aware fixture). A drawn account that a later sample asks for too gives a memoising handler one ring of one
 * sample from its cache: with about 10^4 sample accounts a run among these 2.5 x 10^7, a few runs in a hundred.
 */
export const OUTSIDE_ACCOUNT_RANGE = { from: 1000, to: 1000 + FRESH_INPUT_INDICES * 24 } as const;

/** OUTSIDE_RINGS distinct accounts in OUTSIDE_ACCOUNT_RANGE, from `draw` (the CSPRNG's randomInt). */
export function drawOutsideAccounts(draw: (min: number, max: number) => number = randomInt): number[] {
  const accounts = new Set<number>();
  while (accounts.size < OUTSIDE_RINGS) accounts.add(draw(OUTSIDE_ACCOUNT_RANGE.from, OUTSIDE_ACCOUNT_RANGE.to));
  return [...accounts];
}

/**
 * The share of a window the /pings may spend waiting beyond ALLOWED_KEYS keys' time each before the window may count as
 * blocked (looksBlocked also asks for CLOSED_RINGS). A blocked loop holds a /ping for each ring (8 keys), so for most
 * of the window; a free one answers within about a key, plus what the scheduler adds when other threads (the
 * threadpool's, the pool's, other programs') hold the CPUs. Measured on this project's 2-vCPU VM (Intel Xeon, load
 * 7-10), 10 probes of each handler, every process on both CPUs and then on one (taskset -c 0): the traps of
 * test/fixtures/traps (chunked, threadpool) looked blocked in every window of all 40 probes (their last window's share
 * 0.73-0.96, 2-4 closed rings); the solution's chunked, threadpool and pool-of-2 handlers passed the first window of
 * all 60 (share 0.00-0.73, the highest its threadpool's on one CPU; at most 1 closed ring). So the share alone would
 * fail a free loop on a loaded machine; the closed rings tell them apart.
 */
export const OUTSIDE_STALL_SHARE = 0.5;
/** Rings of OUTSIDE_RINGS with at most one /ping answered during them (closedRings) for a window to count as blocked. */
export const CLOSED_RINGS = 2;
/**
 * Windows tried before the loop counts as blocked: a free loop passes at its first window within the share, so one
 * window a loaded machine's scheduler stretched (tens of ms at a time) does not fail it; a blocked loop fails them all.
 */
export const OUTSIDE_TRIES = 3;

/** What the judge saw from outside, every time on its own clock, in ms: its last window (the first one within the share). */
export interface OutsideProbe extends OutsideWindow {
  /** Windows tried (at most OUTSIDE_TRIES). */
  tries: number;
}

/** The keys' time a /ping may wait without counting as held: a turn's key, and one more for the scheduler. */
export const ALLOWED_KEYS = 2;

/** The /pings' waits beyond ALLOWED_KEYS keys' time each, summed, as a share of the window. */
export function stalledShare(probe: Pick<OutsideProbe, 'keyMs' | 'windowMs' | 'pingWaitsMs'>): { stalledMs: number; share: number } {
  const allowance = ALLOWED_KEYS * probe.keyMs;
  const stalledMs = probe.pingWaitsMs.reduce((sum, wait) => sum + Math.max(0, wait - allowance), 0);
  return { stalledMs, share: stalledMs / Math.max(probe.windowMs, 1e-9) };
}

/**
 * Rings during which at most one /ping was answered (its answer arrived between the ring's request and its answer).
 * A blocked loop answers none while it derives (at most one that was waiting when the ring's request came); a free
 * one answers a /ping at every turn it gets, however slowly a loaded machine gives it turns.
 */
export function closedRings(probe: Pick<OutsideProbe, 'ringsMs' | 'pingAnswersMs'>): number {
  return probe.ringsMs.filter((ring) => probe.pingAnswersMs.filter((t) => t > ring.sent && t < ring.answered).length <= 1).length;
}

/**
 * Whether a window shows the loop blocked: its /pings held for more than OUTSIDE_STALL_SHARE of it (beyond ALLOWED_KEYS
 * keys each) and at least CLOSED_RINGS of its rings closed. Both: CPU contention alone (a threadpool's 4 threads on 1
 * CPU) delays /pings for half the window too, but they are still answered during the rings.
 */
export function looksBlocked(probe: Pick<OutsideProbe, 'keyMs' | 'windowMs' | 'pingWaitsMs' | 'ringsMs' | 'pingAnswersMs'>): boolean {
  return stalledShare(probe).share > OUTSIDE_STALL_SHARE && closedRings(probe) >= CLOSED_RINGS;
}

/**
 * Probes the server on `socketPath` from this process (see the file's comment): up to OUTSIDE_TRIES windows, each in
 * a worker thread of its own (windowInThread), until one does not look blocked or shows a wrong ring.
 */
export async function probeFromOutside(socketPath: string): Promise<OutsideProbe> {
  let probe: OutsideProbe | null = null;
  for (let tries = 1; tries <= OUTSIDE_TRIES; tries++) {
    probe = { ...(await windowInThread(socketPath, drawOutsideAccounts())), tries };
    if (probe.wrongRings.length > 0 || !looksBlocked(probe)) break;
  }
  return probe as OutsideProbe;
}

/** One window (outside-window.ts oneWindow) on the rings of `accounts`, timed in a worker thread: what it saw, or its error. */
function windowInThread(socketPath: string, accounts: readonly number[]): Promise<OutsideWindow> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./outside-window-thread.ts', import.meta.url), { workerData: { socketPath, accounts } });
    let answered = false;
    worker.once('message', (window: OutsideWindow) => {
      answered = true;
      resolve(window);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      answered = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the probe's worker thread stopped (exit code ${code}) before it answered`));
    });
  });
}
