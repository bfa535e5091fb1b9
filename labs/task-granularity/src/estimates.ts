/**
 * Planning the lab's runs (the harness's plan.ts): the calibration times the two units of work, a Monte Carlo point
 * and a checksummed MiB; each case's estimate is its tasks over the workers (whole tasks per round, so one task on
 * W workers takes the serial time) plus what each task and each hand-off costs.
 */
import { type Calibration, type CaseEstimate, type LabContext, parallelMs, rateOf, timePerCall } from '@parallel-course/harness';
import { taskCount } from './chunks.ts';
import { histogramSync } from './monte-carlo.ts';
import { checksum, makePayload, MIB, warmChecksum } from './payload.ts';

/**
 * The calibration on the course machine: the median of calibrations over ten minutes there while others used it
 * too (2026-12-03; load average 5 to 9 on its 2 vCPUs). The lab's comments quote 7.5 ns per point from a quiet day.
 */
export const COURSE_MACHINE_RATES = { nsPerPoint: 9, msPerMiB: 0.13 };

/**
 * Costs on the course machine besides the points, in ms, scaled by how much slower (or faster) this machine
 * counts a point. perTaskMs: one task's round trip through a pool, mostly on the main thread, so it does not shrink
 * with more workers (8192 tasks took 0.49 s on 2 threads); sampleMs: a pool sample's fixed part (the busy clock,
 * the merge, waking the workers); threadStartMs / processStartMs: one worker started, in CPU time (2 threads took
 * 213-257 ms, 2 processes 265-277 ms); forkMs: the main thread's serial part of each start; clone and transfer: the
 * copies of a hand-off per MiB (64 MiB: 126 and 79 ms against a 10 ms checksum); makePayload per MiB.
 */
export const COURSE_MACHINE_COSTS = {
  perTaskMs: 0.06,
  sampleMs: 15,
  threadStartMs: 150,
  processStartMs: 270,
  forkMs: 10,
  cloneMsPerMiB: 2,
  transferMsPerMiB: 1.2,
  makePayloadMsPerMiB: 2.2,
};

/** Points of the check inputs besides the measured one (inputs(): 0, 1003 and three of 2^21). */
const CHECK_POINTS = [0, 1_003, 1 << 21, 1 << 21, 1 << 21];
/** Bytes of the payload check inputs (5 and 65,543), as MiB. */
const CHECK_MIB = (5 + 65_543) / MIB;

/** The calibration: ns per Monte Carlo point and ms per checksummed MiB on this machine, about 60 ms each. */
export function calibrate(): Calibration {
  let seed = 1;
  const points = 1 << 16;
  const nsPerPoint = (timePerCall(() => histogramSync({ seed: seed++, points })) * 1e6) / points;
  warmChecksum();
  const bytes = makePayload(1, MIB);
  return { nsPerPoint, msPerMiB: timePerCall(() => checksum(bytes)) };
}

/** How much slower than the course machine this one counts points (below 1: faster). */
function slowdown(calibration: Calibration): number {
  return rateOf(calibration, 'nsPerPoint') / COURSE_MACHINE_RATES.nsPerPoint;
}

/** ms to count `points` on one core. */
function serialMs(points: number, calibration: Calibration): number {
  return (points * rateOf(calibration, 'nsPerPoint')) / 1e6;
}

/** ms of one run of `points` in tasks of `chunk` points on `workers` workers: whole tasks per round, plus each task's trip. */
function chunkedMs(points: number, chunk: number, workers: number, p: number, calibration: Calibration): number {
  if (points === 0) return 0;
  const tasks = taskCount(points, chunk);
  const rounds = Math.ceil(tasks / Math.max(1, Math.min(workers, p)));
  // Past P, workers time-slice: the rounds above count whole tasks per CPU, not per worker.
  const compute = serialMs(Math.min(points, rounds * chunk), calibration);
  return compute + (tasks * COURSE_MACHINE_COSTS.perTaskMs + COURSE_MACHINE_COSTS.sampleMs) * slowdown(calibration);
}

/** ms to start `workers` threads (or processes): their start-up in parallel up to P, the main thread's part in turn. */
function startMs(workers: number, perWorkerMs: number, p: number, calibration: Calibration): number {
  return (parallelMs(workers * perWorkerMs, workers, p) + workers * COURSE_MACHINE_COSTS.forkMs) * slowdown(calibration);
}

/**
 * Each sample's fresh histogram counted up front (lab.ts expectedAt), serially on each of P threads at once: its
 * share of that, per sample.
 */
function freshExpectedMs(points: number, p: number, calibration: Calibration): number {
  return serialMs(points, calibration) / Math.max(1, p);
}

/** The serial baseline on a Monte Carlo input of `points`, in a run on P CPUs. */
export function estimateSerial(points: number, calibration: Calibration, p = 1): CaseEstimate {
  return { sampleMs: serialMs(points, calibration), checkMs: serialMs(CHECK_POINTS.reduce((a, b) => a + b, 0), calibration), sampleCheckMs: freshExpectedMs(points, p, calibration) };
}

/**
 * A pool (threads or processes) of `workers` on tasks of `chunk` points; `startsPool`: this case is the one charged
 * with starting the pool its chunk sizes share (lease.ts).
 */
export function estimatePool(kind: 'threads' | 'processes', points: number, chunk: number, workers: number, startsPool: boolean, ctx: LabContext, calibration: Calibration): CaseEstimate {
  const p = ctx.availableParallelism;
  const run = (n: number) => chunkedMs(n, chunk, workers, p, calibration);
  const perWorker = kind === 'threads' ? COURSE_MACHINE_COSTS.threadStartMs : COURSE_MACHINE_COSTS.processStartMs;
  return {
    sampleMs: run(points),
    setupMs: startsPool ? startMs(workers, perWorker, p, calibration) : 0,
    checkMs: CHECK_POINTS.reduce((sum, n) => sum + run(n), 0),
    sampleCheckMs: freshExpectedMs(points, p, calibration),
  };
}

/** The tally: one task per worker into a shared histogram, on a pool of its own. */
export function estimateTally(points: number, workers: number, ctx: LabContext, calibration: Calibration): CaseEstimate {
  const perWorker = (n: number) => Math.ceil(n / workers);
  return estimatePool('threads', points, perWorker(points), workers, true, ctx, calibration);
}

/** A payload of `mib` MiB checksummed on the main thread (`transport` null) or handed to a worker and back. */
export function estimatePayload(transport: 'clone' | 'transfer' | 'shared' | null, mib: number, calibration: Calibration): CaseEstimate {
  const copyPerMiB = transport === 'clone' ? COURSE_MACHINE_COSTS.cloneMsPerMiB : transport === 'transfer' ? COURSE_MACHINE_COSTS.transferMsPerMiB : 0;
  const run = (m: number) => m * (rateOf(calibration, 'msPerMiB') + copyPerMiB * slowdown(calibration));
  return {
    sampleMs: run(mib),
    setupMs: transport ? COURSE_MACHINE_COSTS.threadStartMs * slowdown(calibration) : 0,
    checkMs: run(CHECK_MIB),
  };
}

/** Inputs and expected outputs: the payload made and checksummed, or every Monte Carlo input counted serially. */
export function estimateInputs(payloadMiB: number | undefined, measuredPoints: number, calibration: Calibration): number {
  if (payloadMiB !== undefined) return payloadMiB * (COURSE_MACHINE_COSTS.makePayloadMsPerMiB * slowdown(calibration) + rateOf(calibration, 'msPerMiB'));
  return serialMs(measuredPoints + CHECK_POINTS.reduce((a, b) => a + b, 0), calibration);
}
