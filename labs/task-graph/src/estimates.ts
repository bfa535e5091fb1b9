/**
 * Planning the lab's runs (the harness's plan.ts): the calibration times one matrix product of the lab's size on
 * this thread; each case's estimate is its graph's greedy schedule (Brent: work / min(W, P) + span) plus each
 * task's trip through the pool.
 */
import { type Calibration, type CaseEstimate, type LabContext, rateOf, timePerCall } from '@parallel-course/harness';
import { multiplyMod, seededMatrix } from './matrix.ts';

/** The matrix side of every product the lab measures (lab.ts re-exports it as SIZE). */
export const PRODUCT_SIZE = 80;

/**
 * The calibration on the course machine (2-vCPU AMD EPYC VM, 2026-12-06, shared with other sessions): one
 * 80 x 80 product (0.68-0.80 ms in five calibrations, load average 3.6).
 */
export const COURSE_MACHINE_RATES = { msPerProduct: 0.75 };

/**
 * Costs on the course machine besides the products, in ms, scaled by how much slower (or faster) this machine
 * multiplies: perTaskMs a task's trip through the pool with two 50 KiB matrices out and one back; threadStartMs one
 * thread started; sampleMs a sample's fixed part.
 */
export const COURSE_MACHINE_COSTS = { perTaskMs: 0.15, emptyTaskMs: 0.06, threadStartMs: 150, sampleMs: 2 };

/** Matrices of the check inputs besides the measured one (lab.ts: CHECK_COUNTS), all small. */
const CHECK_PRODUCTS = 20;

export function calibrate(): Calibration {
  const a = seededMatrix(1, 0, PRODUCT_SIZE);
  const b = seededMatrix(1, 1, PRODUCT_SIZE);
  return { msPerProduct: timePerCall(() => multiplyMod(a, b)) };
}

function slowdown(calibration: Calibration): number {
  return rateOf(calibration, 'msPerProduct') / COURSE_MACHINE_RATES.msPerProduct;
}

/**
 * A measured sample's fresh matrices, made before it, and its check after it (fresh-inputs.ts: n^2 seeded entries and
 * one matrix-vector product per matrix), as a fraction of one product of two matrices (n^3 multiply-adds). Measured
 * on the course machine at a load of 10: 20 ms to make 64 matrices of 80 x 80, 5 ms a vector to check them, 1.3-1.8
 * ms a product.
 */
const FRESH_PER_MATRIX = 1 / 4;

/** What the fresh inputs add to each measured sample of a product of `count` matrices, in ms. */
function freshMs(count: number, calibration: Calibration): number {
  return count * FRESH_PER_MATRIX * rateOf(calibration, 'msPerProduct');
}

/** The serial product of `count` matrices: count - 1 products on the main thread. */
export function estimateSerial(count: number, calibration: Calibration): CaseEstimate {
  return { sampleMs: (count - 1) * rateOf(calibration, 'msPerProduct'), sampleCheckMs: freshMs(count, calibration) };
}

/** A graph of count - 1 products on `workers` threads: the chain's span is all of it, the tree's ceil(log2(count)). */
export function estimateGraph(variant: 'flat' | 'tree', count: number, workers: number, ctx: LabContext, calibration: Calibration): CaseEstimate {
  const product = rateOf(calibration, 'msPerProduct');
  const tasks = count - 1;
  const span = variant === 'flat' ? tasks : Math.ceil(Math.log2(Math.max(1, count)));
  const w = Math.max(1, Math.min(workers, ctx.availableParallelism));
  const perTask = COURSE_MACHINE_COSTS.perTaskMs * slowdown(calibration);
  return {
    sampleMs: Math.min(tasks, tasks / w + span) * product + tasks * perTask + COURSE_MACHINE_COSTS.sampleMs,
    setupMs: (COURSE_MACHINE_COSTS.threadStartMs * workers * slowdown(calibration)) / w,
    checkMs: CHECK_PRODUCTS * (product / 10 + perTask),
    sampleCheckMs: freshMs(count, calibration),
  };
}

/** `tasks` empty tasks through a pool of `workers` threads. */
export function estimateEmpty(tasks: number, workers: number, ctx: LabContext, calibration: Calibration): CaseEstimate {
  const w = Math.max(1, Math.min(workers, ctx.availableParallelism));
  return {
    sampleMs: tasks * COURSE_MACHINE_COSTS.emptyTaskMs * slowdown(calibration),
    setupMs: (COURSE_MACHINE_COSTS.threadStartMs * workers * slowdown(calibration)) / w,
  };
}

/** Making the inputs and their expected outputs: the matrices (cheap) and the serial product of each input. */
export function estimateInputs(count: number, calibration: Calibration): number {
  return (count - 1) * rateOf(calibration, 'msPerProduct') + CHECK_PRODUCTS * rateOf(calibration, 'msPerProduct') / 10;
}
