/**
 * Planning the lab's runs (the harness's plan.ts): the calibration times the unit of work, one PBKDF2 key, and each
 * case's estimate is its burst of requests (KEYS_PER_REQUEST keys each) over the CPUs its variant can use.
 */
import { type Calibration, type CaseEstimate, type LabContext, parallelMs, rateOf, timePerCall } from '@parallel-course/harness';
import { deriveKeySync, KEYS_PER_REQUEST } from './work.ts';

/**
 * ms per key on the course machine: the median of calibrations over ten minutes there while others used it too
 * (2026-12-03; load average 5 to 9 on its 2 vCPUs; 2.6 to 13.5 ms). The lab's comments quote 2.6 ms from a quiet day.
 */
export const COURSE_MACHINE_RATES = { msPerKey: 4 };

/**
 * Costs on the course machine besides the keys, in ms; a run scales them by how much slower (or faster) this
 * machine derives a key. requestMs: a request's HTTP round trip on loopback and the load generator's share of the
 * CPUs (a quick run there: 30.6 ms a request inline, about 5 ms more than its 8 keys). serverStartMs: a server process up and
 * listening (Node, type stripping, the lab's modules); threadStartMs: one pool thread's start, CPU time.
 */
export const COURSE_MACHINE_COSTS = { requestMs: 5, serverStartMs: 400, threadStartMs: 60 };

/** Requests in the check: the six accounts of `inputs().check`. */
const CHECK_REQUESTS = 6;

/** Threads of libuv's pool in the server (it inherits this environment): UV_THREADPOOL_SIZE, else libuv's default 4. */
function libuvThreads(): number {
  const n = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 1024) : 4;
}

/** The calibration: ms per PBKDF2 key on this machine, over about 60 ms of keys. */
export function calibrate(): Calibration {
  let account = 1000;
  return { msPerKey: timePerCall(() => deriveKeySync(account++, 0)) };
}

/** ms of one request on one core here: its keys plus the course machine's overhead, scaled alike. */
function requestMs(calibration: Calibration): number {
  const msPerKey = rateOf(calibration, 'msPerKey');
  return KEYS_PER_REQUEST * msPerKey + COURSE_MACHINE_COSTS.requestMs * (msPerKey / COURSE_MACHINE_RATES.msPerKey);
}

/** ms for `requests` requests in flight at once on `workers` workers (whole requests each) with P CPUs. */
function burstMs(requests: number, workers: number, p: number, perRequestMs: number): number {
  // Up to P, each worker serves ceil(requests / workers) in turn; past P, the CPUs are the limit, not the workers.
  return workers <= p ? Math.ceil(requests / workers) * perRequestMs : parallelMs(requests * perRequestMs, workers, p);
}

/** The estimate of one server case: `workers` pool threads, or the variant's own parallelism (inline, chunked: 1). */
export function estimateServerCase(variant: string, workers: number | undefined, requests: number, ctx: LabContext, calibration: Calibration): CaseEstimate {
  const p = ctx.availableParallelism;
  const perRequest = requestMs(calibration);
  const slowdown = rateOf(calibration, 'msPerKey') / COURSE_MACHINE_RATES.msPerKey;
  // The threadpool variant hands out single keys: libuv's threads share them finely, so no whole-request rounding.
  const run = (n: number) =>
    variant === 'threadpool' ? parallelMs(n * perRequest, libuvThreads(), p) : burstMs(n, variant === 'pool' ? (workers ?? 1) : 1, p, perRequest);
  // A pool starts its threads (in parallel up to P) and sends each a warm-up request before the server says ready.
  const threads = variant === 'pool' ? (workers ?? 1) : 0;
  const poolStartMs = threads ? parallelMs(threads * COURSE_MACHINE_COSTS.threadStartMs * slowdown, threads, p) + burstMs(threads, threads, p, perRequest) : 0;
  return {
    sampleMs: run(requests),
    setupMs: COURSE_MACHINE_COSTS.serverStartMs * slowdown + poolStartMs,
    checkMs: run(CHECK_REQUESTS),
  };
}

/** The expected outputs, derived serially in the judge's process (judge-outputs.ts): the check's accounts and the burst's. */
export function estimateInputs(requests: number, calibration: Calibration): number {
  return (CHECK_REQUESTS + requests) * KEYS_PER_REQUEST * rateOf(calibration, 'msPerKey');
}
