/**
 * The judge's own probe of a variant's server (the case's probeFromOutside, lab.ts), run in the harness's judge
 * process, which never loads learner code: through the server's Unix socket in the run's temp folder (server-main.ts),
 * it asks for OUTSIDE_RINGS rings one after another and, while they are derived, sends GET /ping one at a time, at the
 * pinger's pace (outside-window.ts PING_EVERY_KEYS), each timed by its own clock. A handler that lets the event loop turn between keys answers each /ping within about a
 * key's time; one that blocks the loop (a "yield" in the microtask queue, pbkdf2Sync on the main thread) holds a /ping
 * for a whole ring. One ring at a time: a ring's block is then one stretch of 8 keys that no /ping can cut short.
 * Nothing here is reported by the learner's process: the requests, the clock and the bodies' check are the judge's.
 * Each window runs in a worker thread of the judge (outside-window.ts), with an event loop of its own: the
 * judge's main thread computes other runners' expected outputs meanwhile, synchronously (a graded run's three runners
 * check at once; a burst's expected rings take hundreds of ms), and a /ping answered while it did so would be timed
 * as held by the server. A worker rather than a child process: it starts in tens of ms, needs no second Node or loader,
 * and its clock is the same performance.now(); rather than keeping the judge idle during a window, it leaves the
 * other runners' checks as fast as they were. What the window still shares with the judge's main thread (review
 * finding 4): the CPUs, where its synchronous work is one more thread that can keep the pinger waiting (a window whose
 * pinger lagged reads void, pingerLate, so it cannot pass a blocked loop; the key it times, fastestKeyMs), and libuv's
 * threadpool, where the window's own rings are derived after it (that delays the comparison, not a timing); the
 * result's message and the next window's start wait for the main loop, which times nothing.
 * Input: the socket's path. Output: an OutsideProbe, every window read (judged by properties.ts judgeOutside).
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
 * How the probe decides: windows are read one after another until one reads free (a pass), BLOCKED_WINDOWS read blocked
 * (a fail), or a ring comes back wrong. A window counts as free only when the judge's own pinger was on time during it:
 * one whose pinger lagged (pingerLate) where its lag could change its reading (readWindow) reads void and counts for
 * neither side, so a machine busy enough to starve the pinger, which learner threads sharing the CPUs can make, cannot
 * pass a blocked loop. A probe that reads MAX_WINDOWS windows, or passes PROBE_BUDGET_MS, undecided is void: the machine
 * was too busy to judge, and the case fails saying so (never a pass). Not a majority of windows: an honest handler's
 * windows on a loaded machine read blocked often enough (a quick run of the solution beside 3 CPU hogs: its pool's 2 of
 * 2, its threadpool's 3 of 3 before this rule) that needing 2 free windows failed it where one free window passes it,
 * and a blocked loop's windows read free only with a late pinger (none of 176 measured with an on-time one).
 */
export const BLOCKED_WINDOWS = 3;
/** The most windows one probe reads (a window is 4 rings: under 100 ms on an idle machine, seconds on a loaded one). */
export const MAX_WINDOWS = 8;
/**
 * No window starts after this many ms of a probe (the judge's PROBE_LIMIT_MS, 30 s, bounds the whole: a window that
 * starts here has 10 s left, several times the slowest window measured).
 */
export const PROBE_BUDGET_MS = 20_000;
/** A /ping's lag (pingLagsMs) up to this many keys' time is on time (Node's timers have a 1 ms grain). */
export const LATE_ALLOWANCE_KEYS = 1;
/**
 * The share of a window its pinger may lag (pingerLate) for the window to count; beyond it the window is void.
 * Measured on this project's 2-vCPU VM (Intel Xeon) with other work running (load 5-18), 10 probes of each handler
 * with nothing of ours besides and 10 beside 3 CPU hogs: the solution's handlers' windows lagged a share of at most 0.27
 * (its threadpool's, whose 4 threads share the CPUs with the pinger) and all 60 probes passed; the trap fixtures'
 * windows lagged at most 0.16 and read blocked in all 94 probes. Where a trap's window once read free on a loaded
 * machine (before the pinger measured its lag as this), it had lagged 0.41-0.78 by a stricter measure.
 */
export const PINGER_LATE_SHARE = 0.2;

/** What the judge saw from outside: every window it read, in order, each on the clock of its own thread, in ms. */
export interface OutsideProbe {
  windows: OutsideWindow[];
  /** The probe ran out of windows or of PROBE_BUDGET_MS before it decided. */
  outOfTime?: boolean;
}

/** The keys' time a /ping may wait without counting as held: a turn's key, and one more for the scheduler. */
export const ALLOWED_KEYS = 2;

/** The /pings' waits beyond ALLOWED_KEYS keys' time each, summed, as a share of the window. */
export function stalledShare(window: Pick<OutsideWindow, 'keyMs' | 'windowMs' | 'pingWaitsMs'>): { stalledMs: number; share: number } {
  const allowance = ALLOWED_KEYS * window.keyMs;
  const stalledMs = window.pingWaitsMs.reduce((sum, wait) => sum + Math.max(0, wait - allowance), 0);
  return { stalledMs, share: stalledMs / Math.max(window.windowMs, 1e-9) };
}

/**
 * Rings during which at most one /ping was answered (its answer arrived between the ring's request and its answer).
 * A blocked loop answers none while it derives (at most one that was waiting when the ring's request came); a free
 * one answers a /ping at every turn it gets, however slowly a loaded machine gives it turns.
 */
export function closedRings(window: Pick<OutsideWindow, 'ringsMs' | 'pingAnswersMs'>): number {
  return window.ringsMs.filter((ring) => window.pingAnswersMs.filter((t) => t > ring.sent && t < ring.answered).length <= 1).length;
}

/**
 * Whether a window shows the loop blocked: its /pings held for more than OUTSIDE_STALL_SHARE of it (beyond ALLOWED_KEYS
 * keys each) and at least CLOSED_RINGS of its rings closed. Both: CPU contention alone (a threadpool's 4 threads on 1
 * CPU) delays /pings for half the window too, but they are still answered during the rings.
 */
export function looksBlocked(window: Pick<OutsideWindow, 'keyMs' | 'windowMs' | 'pingWaitsMs' | 'ringsMs' | 'pingAnswersMs'>): boolean {
  return stalledShare(window).share > OUTSIDE_STALL_SHARE && closedRings(window) >= CLOSED_RINGS;
}

/**
 * The pinger's own lag in a window: each /ping's lag beyond LATE_ALLOWANCE_KEYS keys, summed, and as a share of the
 * window. While the pinger lags no /ping waits at the server, so a blocked loop's stall goes unseen: a thread the
 * machine starved (other programs, or learner threads sharing the CPUs) made blocked loops look free.
 */
export function pingerLate(window: Pick<OutsideWindow, 'keyMs' | 'windowMs' | 'pingLagsMs'>): { lateMs: number; longestMs: number; share: number } {
  const allowance = LATE_ALLOWANCE_KEYS * window.keyMs;
  const lateMs = window.pingLagsMs.reduce((sum, lag) => sum + Math.max(0, lag - allowance), 0);
  return { lateMs, longestMs: Math.max(0, ...window.pingLagsMs), share: lateMs / Math.max(window.windowMs, 1e-9) };
}

/** How one window reads. */
export type WindowReading = 'wrong' | 'void' | 'blocked' | 'free';

/**
 * A wrong ring first. Then free when fewer than CLOSED_RINGS rings closed, however late the pinger was: a late pinger
 * sends fewer /pings, and a blocked loop answers at most one during a ring whenever they come, so lag cannot open its
 * rings (the solution's threadpool, whose 4 threads share the CPUs with the pinger, lagged most: void there, it read
 * "too busy" in a loaded quick run). Otherwise void when the pinger lagged (PINGER_LATE_SHARE), or when the stall it
 * may have missed (its lag) could lift the window over OUTSIDE_STALL_SHARE; else looksBlocked decides.
 */
export function readWindow(window: OutsideWindow): WindowReading {
  if (window.wrongRings.length > 0) return 'wrong';
  if (closedRings(window) < CLOSED_RINGS) return 'free';
  const late = pingerLate(window).share;
  if (late > PINGER_LATE_SHARE) return 'void';
  const stalled = stalledShare(window).share;
  if (stalled > OUTSIDE_STALL_SHARE) return 'blocked';
  return stalled + late > OUTSIDE_STALL_SHARE ? 'void' : 'free';
}

/** The probe's verdict ('open': not decided yet) and the window that shows it. */
export interface OutsideVerdict {
  verdict: 'wrong' | 'blocked' | 'free' | 'open';
  /** The window read as the verdict (the wrong one, the free one, or the last blocked one); null when open. */
  window: OutsideWindow | null;
  /** How the windows read, in order. */
  readings: WindowReading[];
}

/** The verdict of `windows`, read in order: a wrong ring or a free window at once, else BLOCKED_WINDOWS blocked ones. */
export function outsideVerdict(windows: readonly OutsideWindow[]): OutsideVerdict {
  const readings: WindowReading[] = [];
  for (const window of windows) {
    const reading = readWindow(window);
    readings.push(reading);
    if (reading === 'wrong' || reading === 'free') return { verdict: reading, window, readings };
    if (readings.filter((r) => r === 'blocked').length >= BLOCKED_WINDOWS) return { verdict: 'blocked', window, readings };
  }
  return { verdict: 'open', window: null, readings };
}

/**
 * Probes the server on `socketPath` from this process (see the file's comment): windows one after another, each in a
 * worker thread of its own (windowInThread), until outsideVerdict decides, MAX_WINDOWS were read or PROBE_BUDGET_MS
 * passed (outOfTime).
 */
export async function probeFromOutside(socketPath: string): Promise<OutsideProbe> {
  const started = performance.now();
  const windows: OutsideWindow[] = [];
  while (outsideVerdict(windows).verdict === 'open') {
    if (windows.length >= MAX_WINDOWS || performance.now() - started > PROBE_BUDGET_MS) return { windows, outOfTime: true };
    const window = await windowInThread(socketPath, drawOutsideAccounts(), fastestKeyMs);
    fastestKeyMs = Math.min(fastestKeyMs, window.keyMs);
    windows.push(window);
  }
  return { windows };
}

/**
 * The fastest key a window of this process timed, in ms (each window times its own and uses the faster): a key only
 * reads slower than it is (a loaded or starved thread), so the fastest is the nearest to its cost. A learner's threads
 * that spun whenever no ring was derived stretched a window's own key past a ring's time, and every held /ping read as
 * within its allowance (properties.test.ts's starver fixture).
 */
let fastestKeyMs = Number.POSITIVE_INFINITY;

/** One window (outside-window.ts oneWindow) on the rings of `accounts`, timed in a worker thread: what it saw, or its error. */
function windowInThread(socketPath: string, accounts: readonly number[], fastestKeyMs: number): Promise<OutsideWindow> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./outside-window-thread.ts', import.meta.url), { workerData: { socketPath, accounts, fastestKeyMs } });
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
