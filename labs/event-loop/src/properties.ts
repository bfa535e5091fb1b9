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
import { deriveRingSync, KEYS_PER_REQUEST } from './work.ts';

/** Turns of the loop a ring must give: one between every two keys. */
export const TURNS_PER_RING = KEYS_PER_REQUEST - 1;

function blocked(report: ProbeReport): string {
  return (
    `the event loop turned ${report.turns} time${report.turns === 1 ? '' : 's'} while one ring of ${KEYS_PER_REQUEST} keys was derived ` +
    `(${formatTime(report.ringMs)}; longest stretch without a turn ${formatTime(report.longestBlockMs)}, one key takes about ${formatTime(report.keyMs)} here)`
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
    `${TURNS_PER_RING}, one between every two keys. Awaiting a resolved promise (await Promise.resolve(), queueMicrotask, ` +
    `process.nextTick) continues in the microtask queue, which Node empties before the event loop gets back to I/O, so a ` +
    `/ping waits for the whole ring, as inline. End each turn with setImmediate (await new Promise((r) => setImmediate(r))): ` +
    `its callback runs after pending I/O. Episode 05, "Cooperative chunking".`
  );
}

/** Off-loop variants: the main thread only starts the work and collects it, so the loop keeps turning meanwhile. */
function checkOffLoop(variant: 'threadpool' | 'pool', report: ProbeReport): string | null {
  if (report.turns >= TURNS_PER_RING) return null;
  const where = variant === 'threadpool' ? "libuv's threadpool (the async crypto.pbkdf2, not pbkdf2Sync)" : 'the pool (pool.run), not on the main thread';
  return `the ${variant} handler blocks the event loop: ${blocked(report)}. The work must run in ${where}, so the main thread stays free for /ping.`;
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
 * The judge's verdict on a variant's probe report (the evidence the case's propertyEvidence sent): its shape read
 * (a malformed field throws, naming it), the ring checked against the judge's own derivation, then the variant's rule.
 */
export function judgeProbe(variant: VariantName, workers: number, evidence: unknown): string | null {
  const report: ProbeReport = readEvidence(evidence, REPORT_SHAPE, "the server's probe report");
  if (report.error !== null) return `threw while deriving account ${PROBE_ACCOUNT} for the property check: ${report.error}`;
  probeRing ??= deriveRingSync(PROBE_ACCOUNT);
  if (report.body !== probeRing) return `wrong body for account ${PROBE_ACCOUNT} in the property check`;
  return checkVariantProperty(variant, workers, report);
}
