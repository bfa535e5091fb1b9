/**
 * Descriptive statistics of one set of samples: location, spread and Tukey outlier counts.
 * Pure functions over plain number arrays; they never modify their input and throw StatisticsInputError on an empty
 * array or a non-finite value rather than returning NaN.
 */
import { StatisticsInputError, assertSamples } from './errors.ts';

/** Counts of samples beyond Tukey's fences (see `outliers`). */
export interface OutlierCounts {
  lowSevere: number;
  lowMild: number;
  highMild: number;
  highSevere: number;
}

/**
 * The R-7 quantile of an ascending array, without checks: h = (n - 1) q, lo = floor(h),
 * result = x[lo] + (h - lo) (x[lo + 1] - x[lo]). Shared with the bootstrap so that every median in the stage is computed
 * by the same floating-point expression (a validator reproducing results.json needs exactly this one).
 */
export function quantileOfSorted(xs: ArrayLike<number>, q: number): number {
  const h = (xs.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, xs.length - 1);
  const low = xs[lo] as number;
  return low + (h - lo) * ((xs[hi] as number) - low);
}

/**
 * An ascending copy of `xs` (numeric order, unlike the default `Array.prototype.sort`). An empty array gives an empty
 * copy: sorting is defined there, unlike the statistics below (callers such as the observation summary rely on it).
 * @throws StatisticsInputError when `xs` holds a non-finite value (NaN has no place in an order).
 */
export function sorted(xs: readonly number[]): number[] {
  if (Array.isArray(xs) && xs.length === 0) return [];
  assertSamples('sorted', 'xs', xs);
  return [...xs].sort((a, b) => a - b);
}

/**
 * The q-quantile of an ascending array by linear interpolation between order statistics: definition 7 of Hyndman &
 * Fan (1996), the default of R's `quantile()`, of NumPy's `percentile()` and Excel's PERCENTILE.INC.
 * With h = (n - 1) q: x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] - x[floor(h)]).
 * quantile(xs, 0) is the minimum, quantile(xs, 1) the maximum.
 *
 * Source: R. J. Hyndman and Y. Fan, "Sample quantiles in statistical packages", The American Statistician 50(4), 1996.
 * @param sortedXs samples in ascending order (use `sorted(xs)`), same unit as the result.
 * @param q the quantile, 0 <= q <= 1 (0.5 is the median, 0.25 the first quartile).
 * @throws StatisticsInputError when the array is empty, unsorted or non-finite, or q is outside [0, 1].
 */
export function quantile(sortedXs: readonly number[], q: number): number {
  assertSamples('quantile', 'sortedXs', sortedXs);
  if (typeof q !== 'number' || !(q >= 0 && q <= 1)) {
    throw new StatisticsInputError(`quantile: q must be between 0 and 1 (0.5 is the median), got ${String(q)}`);
  }
  for (let i = 1; i < sortedXs.length; i++) {
    if ((sortedXs[i] as number) < (sortedXs[i - 1] as number)) {
      throw new StatisticsInputError(
        `quantile: sortedXs must be in ascending order, but sortedXs[${i - 1}] = ${sortedXs[i - 1]} > sortedXs[${i}] = ${sortedXs[i]}; pass sorted(xs)`,
      );
    }
  }
  return quantileOfSorted(sortedXs, q);
}

/**
 * The median: the R-7 quantile at 0.5, i.e. the middle sample for odd n and the mean of the two middle samples for
 * even n. The location statistic the course reports for times, because it ignores a few slow outliers.
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function median(xs: readonly number[]): number {
  assertSamples('median', 'xs', xs);
  return quantileOfSorted(sorted(xs), 0.5);
}

/**
 * The arithmetic mean, sum(x) / n, in the unit of the samples.
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function mean(xs: readonly number[]): number {
  assertSamples('mean', 'xs', xs);
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/**
 * The sample standard deviation, sqrt(sum((x - mean)^2) / (n - 1)) (Bessel's correction), in the unit of the samples;
 * 0 for a single sample, where the spread is unknown rather than infinite. Two passes (mean first) to avoid the
 * cancellation of the one-pass sum-of-squares formula.
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function sd(xs: readonly number[]): number {
  assertSamples('sd', 'xs', xs);
  if (xs.length === 1) return 0;
  const m = mean(xs);
  let squares = 0;
  for (const x of xs) squares += (x - m) * (x - m);
  return Math.sqrt(squares / (xs.length - 1));
}

/**
 * The median absolute deviation, median(|x - median(xs)|), in the unit of the samples. Unscaled, like tinybench's
 * `mad`: multiply by 1.4826 to estimate the standard deviation of normal data (Criterion.rs reports the scaled one).
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function mad(xs: readonly number[]): number {
  assertSamples('mad', 'xs', xs);
  const m = median(xs);
  return median(xs.map((x) => Math.abs(x - m)));
}

/**
 * The interquartile range, Q3 - Q1, with R-7 quartiles (see `quantile`), in the unit of the samples.
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function iqr(xs: readonly number[]): number {
  assertSamples('iqr', 'xs', xs);
  const s = sorted(xs);
  return quantileOfSorted(s, 0.75) - quantileOfSorted(s, 0.25);
}

/**
 * The coefficient of variation, sd(xs) / |mean(xs)|: the spread relative to the size, unitless (0.1 = 10 %).
 * 0 when the mean is 0. (The absolute value only matters for negative data; times are never negative.)
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function cv(xs: readonly number[]): number {
  assertSamples('cv', 'xs', xs);
  const m = mean(xs);
  return m === 0 ? 0 : sd(xs) / Math.abs(m);
}

/**
 * 1 / Phi^-1(3/4) = 1.482602...: the factor that makes the MAD estimate the standard deviation of normal data.
 * Source: F. R. Hampel, "The influence curve and its role in robust estimation", JASA 69(346), 1974; P. J. Rousseeuw
 * and C. Croux, "Alternatives to the median absolute deviation", JASA 88(424), 1993.
 */
export const MAD_TO_SD = 1.4826;

/**
 * The robust coefficient of variation, 1.4826 * mad(xs) / |median(xs)|: the spread relative to the size, unitless
 * (0.1 = 10 %). On normal data it estimates the same number as `cv`; unlike `cv`, one slow sample barely moves it
 * (the MAD ignores up to half of the samples), while two clusters of times (a machine switching speed) raise it.
 * 0 when the median is 0.
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function robustCv(xs: readonly number[]): number {
  assertSamples('robustCv', 'xs', xs);
  const m = median(xs);
  return m === 0 ? 0 : (MAD_TO_SD * mad(xs)) / Math.abs(m);
}

/**
 * Counts samples beyond Tukey's fences, as Criterion.rs classifies them (`src/stats/univariate/outliers/tukey.rs`):
 * with R-7 quartiles Q1, Q3 and IQR = Q3 - Q1, a sample is
 *   lowSevere  if x < Q1 - 3 IQR,     lowMild  if Q1 - 3 IQR <= x < Q1 - 1.5 IQR,
 *   highMild   if Q3 + 1.5 IQR < x <= Q3 + 3 IQR,     highSevere if x > Q3 + 3 IQR.
 * A sample exactly on a fence is not beyond it. Outliers are only counted, never dropped: a slow sample on a shared
 * machine is a real measurement (a GC pause, another process) and the median already resists it.
 *
 * Source: J. W. Tukey, "Exploratory Data Analysis", 1977 (inner fences 1.5 IQR, outer fences 3 IQR).
 * @throws StatisticsInputError when `xs` is empty or holds a non-finite value.
 */
export function outliers(xs: readonly number[]): OutlierCounts {
  assertSamples('outliers', 'xs', xs);
  const s = sorted(xs);
  const q1 = quantileOfSorted(s, 0.25);
  const q3 = quantileOfSorted(s, 0.75);
  const spread = q3 - q1;
  const lowSevere = q1 - 3 * spread;
  const lowMild = q1 - 1.5 * spread;
  const highMild = q3 + 1.5 * spread;
  const highSevere = q3 + 3 * spread;
  const counts: OutlierCounts = { lowSevere: 0, lowMild: 0, highMild: 0, highSevere: 0 };
  for (const x of s) {
    if (x < lowSevere) counts.lowSevere++;
    else if (x > highSevere) counts.highSevere++;
    else if (x < lowMild) counts.lowMild++;
    else if (x > highMild) counts.highMild++;
  }
  return counts;
}
