/**
 * What each variant exists for, checked in the check stage (before anything is timed), from what its server saw
 * while it derived one ring itself (server-main.ts: `probe`). The right bytes are not enough: a chunked handler that
 * "yields" with `await Promise.resolve()` returns them too, and blocks `/ping` as long as inline does.
 * Pure: a report in, null or the failure's message out (each says what was seen, why it fails, and the fix).
 * `judgeProbe` is the case's judgeProperty (lab.ts), run in the judge's process: the report was made in the server
 * process, beside the learner's handler, so it is self-reported; the judge reads every field and derives the ring
 * itself to check the probe's body.
 */
import { formatTime } from '@parallel-course/core';
import { readEvidence } from '@parallel-course/harness';
import type { ProbeReport, VariantName } from './protocol.ts';
import { ALLOWED_KEYS, BLOCKED_WINDOWS, closedRings, OUTSIDE_RINGS, outsideVerdict, PROBE_BUDGET_MS, stalledShare, type OutsideProbe, type WindowReading } from './outside-probe.ts';
import { deriveRingSync, KEYS_PER_REQUEST } from './work.ts';

/** Turns of the loop a ring must give: one between every two keys. */
export const TURNS_PER_RING = KEYS_PER_REQUEST - 1;

function blocked(report: ProbeReport): string {
  return (
    `the event loop turned ${report.turns} time${report.turns === 1 ? '' : 's'} while one ring of ${KEYS_PER_REQUEST} keys was derived ` +
    `(${formatTime(report.ringMs)}; longest stretch without a turn ${formatTime(report.longestBlockMs)}, one key takes about ${formatTime(report.keyMs)} here)`
  );
}

/** How each variant keeps the event loop free, for the message that says it did not. */
const FIX: Record<'chunked' | 'threadpool' | 'pool', string> = {
  chunked:
    'Awaiting a resolved promise (await Promise.resolve(), queueMicrotask, process.nextTick) continues in the microtask queue, ' +
    'which Node empties before the event loop gets back to I/O, so a /ping waits for the whole ring, as inline. End each turn ' +
    'with setImmediate (await new Promise((r) => setImmediate(r))): its callback runs after pending I/O. Episode 05, "Cooperative chunking".',
  threadpool: "The work must run in libuv's threadpool (the async crypto.pbkdf2, not pbkdf2Sync), so the main thread stays free for /ping.",
  pool: 'The work must run in the pool (pool.run), not on the main thread, so the main thread stays free for /ping.',
};

/**
 * The judge's rule on what it saw from outside (outside-probe.ts outsideVerdict): BLOCKED_WINDOWS windows read
 * blocked before one reads free, each blocked when the /pings it sent while OUTSIDE_RINGS rings were derived one after
 * another waited (beyond ALLOWED_KEYS keys' time each) for more than OUTSIDE_STALL_SHARE of it and rings went by with
 * at most one answered (looksBlocked); a window whose own pinger lagged (pingerLate) counts for neither side, and a probe left undecided
 * (the machine too busy to judge) fails.
 */
export function judgeOutside(variant: 'chunked' | 'threadpool' | 'pool', outside: OutsideProbe): string | null {
  const { verdict, window, readings } = outsideVerdict(outside.windows);
  if (verdict === 'free') return null;
  if (verdict === 'wrong' && window) return `wrong body for account ${window.wrongRings[0]} in the harness's probe from outside`;
  const counted = (reading: WindowReading) => readings.filter((r) => r === reading).length;
  if (verdict === 'open' || !window) {
    return (
      `the harness could not judge whether the ${variant} handler lets /ping through: the machine was too busy. Of its ${readings.length} ` +
      `window${readings.length === 1 ? '' : 's'} from outside (${formatTime(PROBE_BUDGET_MS)} at most), ${counted('void')} had its own /pings sent late ` +
      `(the harness's thread waited for a CPU) and ${counted('blocked')} read blocked, where one free window passes and ${BLOCKED_WINDOWS} blocked ones fail. ` +
      `Run it again with nothing else running (close other programs and runs); this is no verdict on your handler.`
    );
  }
  const { stalledMs } = stalledShare(window);
  const longest = Math.max(0, ...window.pingWaitsMs);
  return (
    `the ${variant} handler does not let /ping through while it serves requests: the harness's own /ping requests, sent from its ` +
    `process while ${OUTSIDE_RINGS} rings were derived one after another (${formatTime(window.windowMs)}), waited ${formatTime(stalledMs)} in all ` +
    `beyond ${ALLOWED_KEYS} keys' time (longest ${formatTime(longest)}), and ${closedRings(window)} of the ${OUTSIDE_RINGS} rings went by ` +
    `with at most one /ping answered (one key takes about ${formatTime(window.keyMs)} here; ${counted('blocked')} of ${readings.length} windows read so). ${FIX[variant]}`
  );
}

/** The chunked handler: the event loop must get a turn (pending I/O, a /ping) between every two keys, on one thread. */
function checkChunked(report: ProbeReport): string | null {
  const threads = report.threadsAtReady + report.threadsSince;
  if (threads > 0) {
    return `the chunked handler started ${threads} worker thread${threads === 1 ? '' : 's'}: chunking keeps all the work on the main thread, in pieces; a pool is the pool variant's job`;
  }
  if (report.turns >= TURNS_PER_RING) return null;
  return (
    `the chunked handler does not let /ping through while it serves a request: ${blocked(report)}, where it needs at least ` +
    `${TURNS_PER_RING}, one between every two keys. ${FIX.chunked}`
  );
}

/** Off-loop variants: the main thread only starts the work and collects it, so the loop keeps turning meanwhile. */
function checkOffLoop(variant: 'threadpool' | 'pool', report: ProbeReport): string | null {
  if (report.turns >= TURNS_PER_RING) return null;
  return `the ${variant} handler blocks the event loop: ${blocked(report)}. ${FIX[variant]}`;
}

/** The pool: exactly `workers` threads, started in set-up, none started while requests are served. */
function checkPool(workers: number, report: ProbeReport): string | null {
  if (report.threadsSince > 0) {
    return (
      `the pool started ${report.threadsSince} worker thread${report.threadsSince === 1 ? '' : 's'} while requests were served, after set-up ` +
      `(${report.threadsAtReady} at set-up, for a pool of ${workers}): every request then pays a thread start (milliseconds). Either a pool ` +
      `is created per request (create it once, in createPoolHandler, not in derive) or idle threads end and start again ` +
      `(give piscina minThreads equal to maxThreads). Episode 05, "A pool of worker threads".`
    );
  }
  if (report.threadsAtReady !== workers) {
    return `the pool of ${workers} worker${workers === 1 ? '' : 's'} started ${report.threadsAtReady} threads: it must have exactly ${workers} (piscina's minThreads and maxThreads).`;
  }
  return null;
}

/** Null when the variant has the property it exists for, or the message of its failure. The baseline has none to check. */
export function checkVariantProperty(variant: VariantName, workers: number, report: ProbeReport): string | null {
  if (variant === 'chunked') return checkChunked(report);
  if (variant === 'threadpool') {
    const threads = report.threadsAtReady + report.threadsSince;
    if (threads > 0) return `the threadpool handler started ${threads} worker thread${threads === 1 ? '' : 's'}: it needs no pool of its own; the async crypto.pbkdf2 already runs on libuv's threadpool`;
    return checkOffLoop('threadpool', report);
  }
  if (variant === 'pool') return checkPool(workers, report) ?? checkOffLoop('pool', report);
  return null;
}

/** The account of the property check's ring: one no check input or sample asks for. */
export const PROBE_ACCOUNT = 777_777_777;

/** The fields of a probe report (protocol.ts ProbeReport), as the judge reads them. */
const REPORT_SHAPE = {
  body: 'text or null',
  error: 'text or null',
  turns: 'count',
  ringMs: 'ms',
  longestBlockMs: 'ms',
  keyMs: 'ms',
  threadsAtReady: 'count',
  threadsSince: 'count',
} as const;

let probeRing: string | null = null;

/**
 * The judge's verdict on a variant (its judgeProperty): first what the judge saw itself from outside (`outside`, made
 * in its own process: judgeOutside), then the server's report (the evidence the case's propertyEvidence sent, made
 * beside the learner's handler: self-reported), its shape read (a malformed field throws, naming it), its ring checked
 * against the judge's own derivation, then the variant's rule (a turn between every two keys; threads).
 */
export function judgeProbe(variant: Exclude<VariantName, 'inline'>, workers: number, evidence: unknown, outside: OutsideProbe): string | null {
  const fromOutside = judgeOutside(variant, outside);
  if (fromOutside !== null) return fromOutside;
  const report: ProbeReport = readEvidence(evidence, REPORT_SHAPE, "the server's probe report");
  if (report.error !== null) return `threw while deriving account ${PROBE_ACCOUNT} for the property check: ${report.error}`;
  probeRing ??= deriveRingSync(PROBE_ACCOUNT);
  if (report.body !== probeRing) return `wrong body for account ${PROBE_ACCOUNT} in the property check`;
  return checkVariantProperty(variant, workers, report);
}

/** The judge's own probe from outside (made in its process, never sent by the lab process), typed; throws when absent. */
export function readOutside(outside: unknown): OutsideProbe {
  const probe = outside as OutsideProbe | undefined;
  if (typeof probe !== 'object' || probe === null || !Array.isArray(probe.windows)) throw new Error("the harness's probe from outside did not run for this case");
  return probe;
}
