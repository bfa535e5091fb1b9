/**
 * Speedup, efficiency and the scaling laws the course teaches: Amdahl, Gustafson and the Karp-Flatt metric, plus a
 * least-squares Amdahl fit to measured speedups. Workers (p) are counted in threads or processes; speedups are unitless.
 */
import type { AmdahlFit } from '../results-schema.ts';
import { StatisticsInputError, assertNumber } from './errors.ts';

/**
 * Speedup S = baselineMedian / variantMedian: how many times faster the variant is (above 1 = faster).
 * Both medians must be in the same unit (ms) and positive.
 * @throws StatisticsInputError when a median is not a finite number > 0 (0 means below the timer's resolution).
 */
export function speedup(baselineMedian: number, variantMedian: number): number {
  const hint = 'a median of 0 ms means the samples are below the timer resolution: give each sample more work';
  assertNumber('speedup', 'baselineMedian', baselineMedian, 0, false, hint);
  assertNumber('speedup', 'variantMedian', variantMedian, 0, false, hint);
  return baselineMedian / variantMedian;
}

/**
 * Parallel efficiency E = S / p: the fraction of p workers' capacity turned into speedup (1 = perfect, unitless).
 * @throws StatisticsInputError when speedup is not > 0 or workers is not >= 1.
 */
export function efficiency(speedupValue: number, workers: number): number {
  assertNumber('efficiency', 'speedup', speedupValue, 0, false);
  assertNumber('efficiency', 'workers', workers, 1, true);
  return speedupValue / workers;
}

/**
 * The Karp-Flatt metric, the experimentally determined serial fraction e = (1/S - 1/p) / (1 - 1/p).
 * 0 for a perfect speedup S = p; it is Amdahl's f when the measurement follows Amdahl's law exactly; negative for a
 * superlinear speedup (S > p, e.g. data that now fits in the caches). If e grows with p, the overhead grows with p
 * (communication, contention), which Amdahl's fixed serial fraction does not explain.
 * Source: A. H. Karp and H. P. Flatt, "Measuring parallel processor performance", CACM 33(5), 1990.
 * @returns e, or null for p <= 1 (undefined there: 0 / 0).
 * @throws StatisticsInputError when speedup is not > 0 or workers is not a finite number.
 */
export function karpFlatt(speedupValue: number, workers: number): number | null {
  assertNumber('karpFlatt', 'speedup', speedupValue, 0, false);
  assertNumber('karpFlatt', 'workers', workers, -Infinity, false);
  if (workers <= 1) return null;
  return (1 / speedupValue - 1 / workers) / (1 - 1 / workers);
}

function assertFraction(fn: string, serialFraction: number): void {
  if (typeof serialFraction !== 'number' || !(serialFraction >= 0 && serialFraction <= 1)) {
    throw new StatisticsInputError(
      `${fn}: serialFraction must be between 0 and 1 (0.1 = 10 % of the one-worker time is serial), got ${String(serialFraction)}`,
    );
  }
}

/**
 * Amdahl's law for a fixed problem size: S(p) = 1 / (f + (1 - f) / p), where f is the serial fraction of the
 * one-worker run time. S(1) = 1 and S tends to 1 / f as p grows.
 * Source: G. M. Amdahl, "Validity of the single processor approach to achieving large scale computing capabilities",
 * AFIPS 1967 (the formula in this form: Hennessy & Patterson, "Computer Architecture", ch. 1).
 * @throws StatisticsInputError when f is outside [0, 1] or workers is not >= 1.
 */
export function amdahlSpeedup(serialFraction: number, workers: number): number {
  assertFraction('amdahlSpeedup', serialFraction);
  assertNumber('amdahlSpeedup', 'workers', workers, 1, true);
  return 1 / (serialFraction + (1 - serialFraction) / workers);
}

/**
 * Gustafson's law (scaled speedup, the problem grows with p): S(p) = p - f (p - 1), where f is the serial fraction of
 * the p-worker run time.
 * Source: J. L. Gustafson, "Reevaluating Amdahl's law", CACM 31(5), 1988.
 * @throws StatisticsInputError when f is outside [0, 1] or workers is not >= 1.
 */
export function gustafsonSpeedup(serialFraction: number, workers: number): number {
  assertFraction('gustafsonSpeedup', serialFraction);
  assertNumber('gustafsonSpeedup', 'workers', workers, 1, true);
  return workers - serialFraction * (workers - 1);
}

/** The upper limit of Amdahl's speedup as p grows without bound: 1 / f (Infinity when f = 0). */
export function amdahlLimit(serialFraction: number): number {
  assertFraction('amdahlLimit', serialFraction);
  return serialFraction === 0 ? Infinity : 1 / serialFraction;
}

/** Amdahl, Gustafson and the ideal line at one worker count, for the site's explorer chart and its data table. */
export interface LawPoint {
  workers: number;
  amdahl: number;
  gustafson: number;
  ideal: number;
}

/** Both laws evaluated at workers 1..maxWorkers (integers). */
export function speedupCurves(serialFraction: number, maxWorkers: number): LawPoint[] {
  assertFraction('speedupCurves', serialFraction);
  assertNumber('speedupCurves', 'maxWorkers', maxWorkers, 1, true);
  const points: LawPoint[] = [];
  for (let p = 1; p <= Math.floor(maxWorkers); p++) {
    points.push({ workers: p, amdahl: amdahlSpeedup(serialFraction, p), gustafson: gustafsonSpeedup(serialFraction, p), ideal: p });
  }
  return points;
}

/** One measured point of a scaling curve. */
export interface ScalingPoint {
  /** Worker count p, >= 1. */
  workers: number;
  /** Measured speedup S over the one-worker (or sequential) baseline, > 0. */
  speedup: number;
}

/**
 * Distinct worker counts above 1 a fit of Amdahl's one parameter needs: one more than its parameters, so that the fit
 * is tested by at least one point it was not forced through.
 */
export const AMDAHL_MIN_FREE_POINTS = 2;

/** The distinct worker counts above 1 among `points`: the points that carry information about f. */
export function amdahlFreePoints(points: readonly { workers: number }[]): number {
  return new Set(points.filter((p) => p.workers > 1).map((p) => p.workers)).size;
}

/** The fit's numbers; the harness adds `variant` and `param` to make an `AmdahlFit` entry of results.json. */
export type AmdahlFitResult = Omit<AmdahlFit, 'variant' | 'param'>;

/**
 * Least-squares fit of Amdahl's serial fraction f to measured speedups.
 *
 * Method: Amdahl's law rearranges to the straight line y = f x with x = 1 - 1/p and y = 1/S - 1/p. We regress through
 * the origin, f = sum(x y) / sum(x^2), over the points with p > 1, then clamp f to [0, 1].
 * - Through the origin because the model has one parameter and passes through (x, y) = (0, 0) at p = 1 by definition.
 * - Points with p = 1 have x = 0 and so carry no weight anyway; they still count in `rmse` and `points`.
 * - Equivalently, f is the average of the per-point Karp-Flatt values y / x weighted by x^2, so points with many
 *   workers (x near 1) weigh most. The residuals minimised are in 1/S, not in S; `rmse` reports the error in S.
 * - A superlinear curve (S > p) gives f < 0, clamped to 0: Amdahl's law cannot describe it (perfect scaling is its
 *   best case); the rmse then shows how far off it is.
 *
 * - Only where the data can carry it (issue 43): the model has one free parameter, so it needs at least
 *   AMDAHL_MIN_FREE_POINTS = 2 distinct worker counts above 1. With one (a P = 2 machine: workers 1 and 2) f is just
 *   the Karp-Flatt value of that point, the "fit" passes through it with rmse 0 and tests nothing, and 1 / f would
 *   extrapolate a maximum speedup from a single measurement: no fit then.
 *
 * @returns { serialFraction f in [0, 1], maxSpeedup = 1 / f (null when f = 0: unbounded; an extrapolation beyond the
 *   measured worker counts, never a measurement), rmse = sqrt(mean((S_fit(p) - S)^2)) over all points in speedup
 *   units, points = number of points given }, or null with fewer than 2 distinct worker counts above 1.
 * @throws StatisticsInputError naming the point when a worker count is not >= 1 or a speedup is not > 0.
 */
export function amdahlFit(points: readonly ScalingPoint[]): AmdahlFitResult | null {
  if (!Array.isArray(points)) {
    throw new StatisticsInputError('amdahlFit: points must be an array of { workers, speedup }');
  }
  let sumXY = 0;
  let sumXX = 0;
  points.forEach((point, i) => {
    assertNumber('amdahlFit', `points[${i}].workers`, point?.workers, 1, true);
    assertNumber('amdahlFit', `points[${i}].speedup`, point?.speedup, 0, false);
    if (point.workers <= 1) return;
    const x = 1 - 1 / point.workers;
    const y = 1 / point.speedup - 1 / point.workers;
    sumXY += x * y;
    sumXX += x * x;
  });
  if (sumXX === 0 || amdahlFreePoints(points) < AMDAHL_MIN_FREE_POINTS) return null;
  const serialFraction = Math.min(1, Math.max(0, sumXY / sumXX));
  let squaredError = 0;
  for (const point of points) {
    const error = amdahlSpeedup(serialFraction, point.workers) - point.speedup;
    squaredError += error * error;
  }
  return {
    serialFraction,
    maxSpeedup: serialFraction === 0 ? null : 1 / serialFraction,
    rmse: Math.sqrt(squaredError / points.length),
    points: points.length,
  };
}
