/**
 * Percentile-bootstrap 95 % confidence intervals for the median and for a ratio of medians (a speedup) from
 * independently resampled samples, and the pieces every bootstrap of the stage shares (quickselect median, percentile
 * interval, rng checks).
 *
 * Why the bootstrap: benchmark times are skewed (a floor set by the hardware, a long tail of interruptions), so a
 * t-interval around the mean, as tinybench reports, is the wrong shape. Resampling the measured samples makes no
 * assumption about their distribution. Criterion.rs bootstraps its estimates the same way (`src/stats/univariate`).
 *
 * Where the harness uses these: `bootstrapRatioCi` only for a baseline and a variant that were measured in different
 * measure groups (no common rounds to pair them by) and for comparing two runs (`compareSamples`); speedups within a
 * group use the paired `roundBootstrapRatioCi` (rounds.ts), and a case's median its order-statistic interval
 * (order-statistic.ts): from 8 to 20 samples the percentile interval of a median is too short (coverage 0.927 to
 * 0.949 of a nominal 0.95 in test/coverage.test.ts).
 *
 * Reproducibility contract (an instructor's validator recomputes these from results.json):
 * - resample b = 0 .. resamples - 1 draws n indices i = floor(rng() * n) into `xs` IN THE ORDER GIVEN (for the harness:
 *   samplesMs in collection order), and takes the R-7 median of the drawn values;
 * - bootstrapRatioCi draws, per resample, all baseline indices first, then all variant indices, from the one rng;
 * - the interval is [R-7 quantile 0.025, R-7 quantile 0.975] of the ascending resampled statistics.
 * The result therefore depends on the rng's state: create a fresh `createRng(seed)` where the validator will.
 *
 * Source: B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13 (the percentile interval).
 * Cost: O(resamples * n + resamples log resamples) time (medians by quickselect) and O(n + resamples) memory.
 */
import { StatisticsInputError, assertSamples } from './errors.ts';
import { quantileOfSorted } from './descriptive.ts';

/** Lower and upper tail probabilities of a two-sided 95 % interval. */
const LOW_TAIL = 0.025;
const HIGH_TAIL = 0.975;

/** Throws unless `rng` is a function and `resamples` a positive integer; `fn` names the caller. */
export function assertResampling(fn: string, rng: () => number, resamples: number): void {
  if (typeof rng !== 'function') {
    throw new StatisticsInputError(`${fn}: rng must be a function returning numbers in [0, 1); pass createRng(seed)`);
  }
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new StatisticsInputError(
      `${fn}: resamples must be a positive integer, got ${String(resamples)}; 10000 gives a stable 95 % interval`,
    );
  }
}

/** The next draw of `rng`, checked to be in [0, 1) (a generator that is not `createRng` can break the index maths). */
export function nextUniform(fn: string, rng: () => number): number {
  const u = rng();
  if (!(u >= 0 && u < 1)) {
    throw new StatisticsInputError(`${fn}: rng returned ${String(u)}, outside [0, 1); use createRng(seed)`);
  }
  return u;
}

/**
 * The R-7 median of `a[0 .. n - 1]` by quickselect, in O(n) instead of a sort's O(n log n); reorders that part of `a`
 * (n defaults to the whole array; it must be at least 1). Bit-identical to
 * `quantileOfSorted(sorted, 0.5)`: it finds the same two order statistics (k = floor((n - 1) / 2) and k + 1) and
 * combines them with the same expression. Hoare partitioning with a median-of-three pivot; equal keys stop both
 * scans, so the many duplicates of a resample drawn with replacement do not make it quadratic.
 * Source: C. A. R. Hoare, "Algorithm 65: Find", CACM 4(7), 1961.
 */
export function selectMedian(a: Float64Array, n: number = a.length): number {
  const k = (n - 1) >> 1;
  let left = 0;
  let right = n - 1;
  while (right > left) {
    const mid = (left + right) >> 1;
    const x = a[left] as number;
    const y = a[mid] as number;
    const z = a[right] as number;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        const t = a[i] as number;
        a[i] = a[j] as number;
        a[j] = t;
        i++;
        j--;
      }
    }
    // Now a[left..j] <= pivot <= a[i..right], and every element strictly between j and i equals the pivot.
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  const low = a[k] as number;
  if (n % 2 === 1) return low + 0; // `+ 0` turns -0 into 0, as quantileOfSorted's `low + 0 * (...)` does
  // Even n: the next order statistic is the smallest element right of k (all of them are >= a[k]).
  let high = a[k + 1] as number;
  for (let i = k + 2; i < n; i++) if ((a[i] as number) < high) high = a[i] as number;
  return low + 0.5 * (high - low);
}

/** Draws one resample of `xs` (with replacement) into `into` and returns its R-7 median. */
function resampledMedian(fn: string, xs: readonly number[], rng: () => number, into: Float64Array): number {
  const n = xs.length;
  for (let i = 0; i < n; i++) into[i] = xs[Math.floor(nextUniform(fn, rng) * n)] as number;
  return selectMedian(into);
}

/** The [2.5 %, 97.5 %] percentile interval of a set of resampled statistics (sorted in place). */
export function percentileInterval(statistics: Float64Array): [number, number] {
  statistics.sort();
  return [quantileOfSorted(statistics, LOW_TAIL), quantileOfSorted(statistics, HIGH_TAIL)];
}

/**
 * The percentile-bootstrap 95 % confidence interval of the median of `xs`, in the unit of the samples (ms for times).
 * See the module comment for the exact resampling order.
 * @param xs the samples, in the order collected.
 * @param rng a generator from `createRng(seed)`; it is advanced by resamples * n draws.
 * @param resamples how many bootstrap resamples (Criterion.rs uses 100 000; 10 000 is plenty for a 95 % interval).
 * @returns [low, high], low <= median(xs) <= high in practice.
 * @throws StatisticsInputError on empty or non-finite samples, a non-integer resamples or a bad rng.
 */
export function bootstrapMedianCi(xs: readonly number[], rng: () => number, resamples: number): [number, number] {
  assertSamples('bootstrapMedianCi', 'xs', xs);
  assertResampling('bootstrapMedianCi', rng, resamples);
  const scratch = new Float64Array(xs.length);
  const medians = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) medians[b] = resampledMedian('bootstrapMedianCi', xs, rng, scratch);
  return percentileInterval(medians);
}

/**
 * The percentile-bootstrap 95 % confidence interval of median(baseline) / median(variant), the speedup of the variant
 * over the baseline (unitless, above 1 means the variant is faster). The two sets are resampled independently, as they
 * were measured independently; per resample all baseline draws come first, then all variant draws.
 * @param baseline times of the reference implementation (ms), in the order collected.
 * @param variant times of the implementation compared with it (ms), in the order collected.
 * @throws StatisticsInputError on empty or non-finite samples, bad resampling arguments, or when a resampled variant
 *   median is 0 (the ratio is then undefined: the samples are below the timer's resolution).
 */
export function bootstrapRatioCi(
  baseline: readonly number[],
  variant: readonly number[],
  rng: () => number,
  resamples: number,
): [number, number] {
  assertSamples('bootstrapRatioCi', 'baseline', baseline);
  assertSamples('bootstrapRatioCi', 'variant', variant);
  assertResampling('bootstrapRatioCi', rng, resamples);
  const baselineScratch = new Float64Array(baseline.length);
  const variantScratch = new Float64Array(variant.length);
  const ratios = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    const top = resampledMedian('bootstrapRatioCi', baseline, rng, baselineScratch);
    const bottom = resampledMedian('bootstrapRatioCi', variant, rng, variantScratch);
    if (bottom === 0) {
      throw new StatisticsInputError(
        'bootstrapRatioCi: a resample of variant has median 0, so the ratio is undefined; the samples are below the timer resolution: give each sample more work',
      );
    }
    ratios[b] = top / bottom;
  }
  return percentileInterval(ratios);
}
