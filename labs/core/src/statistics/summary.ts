/**
 * The summary of one case's samples that results.json stores (`SampleSummary` in results-schema.ts).
 */
import type { SampleSummary } from '../results-schema.ts';
import { StatisticsInputError, assertSamples } from './errors.ts';
import { cv, mad, mean, outliers, quantileOfSorted, robustCv, sd, sorted } from './descriptive.ts';
import { orderStatisticMedianCi } from './order-statistic.ts';

/**
 * A summary is flagged `noisy` when its robust coefficient of variation (1.4826 * MAD / median, see `robustCv`) exceeds
 * this: 0.1 = 10 %. On a quiet machine repeated timings of a CPU-bound function vary by a few per cent; beyond 10 %
 * something else (another process, frequency scaling, a vCPU switching speed) is in the numbers and the learner should
 * look before concluding. The rule used sd / mean until issue 15; on clean, roughly normal data the two agree, but one
 * slow sample (a GC pause) could push sd / mean past 10 % on its own, and that is an outlier, not noise.
 */
export const NOISY_ROBUST_CV = 0.1;

/** Options of `summarize`. */
export interface SummarizeOptions {
  /** Threshold of the `noisy` flag on `robustCv` (unitless; default NOISY_ROBUST_CV = 0.1). */
  noisyRobustCv?: number;
}

/**
 * Summarises one set of samples: n, median with its distribution-free 95 % interval (`orderStatisticMedianCi`; no
 * random numbers), mean, sd (n - 1), unscaled mad, R-7 iqr, min, max, cv = sd / mean, robustCv = 1.4826 mad / median,
 * `noisy = robustCv > noisyRobustCv` and Tukey outlier counts (counted, not dropped).
 * Every value is in the unit of the samples (ms for times) except n, cv, robustCv and the counts.
 * @param xs the samples in the order collected.
 * @throws StatisticsInputError naming the problem on an empty array, a non-finite sample or bad options.
 */
export function summarize(xs: readonly number[], options: SummarizeOptions = {}): SampleSummary {
  assertSamples('summarize', 'xs', xs);
  const threshold = options.noisyRobustCv ?? NOISY_ROBUST_CV;
  if (typeof threshold !== 'number' || !(threshold >= 0) || !Number.isFinite(threshold)) {
    throw new StatisticsInputError(
      `summarize: options.noisyRobustCv must be a finite number >= 0 (0.1 = 10 %), got ${String(threshold)}`,
    );
  }
  const ascending = sorted(xs);
  const spread = robustCv(xs);
  return {
    n: xs.length,
    median: quantileOfSorted(ascending, 0.5),
    ci95: orderStatisticMedianCi(xs),
    mean: mean(xs),
    sd: sd(xs),
    mad: mad(xs),
    iqr: quantileOfSorted(ascending, 0.75) - quantileOfSorted(ascending, 0.25),
    min: ascending[0] as number,
    max: ascending[ascending.length - 1] as number,
    cv: cv(xs),
    robustCv: spread,
    noisy: spread > threshold,
    outliers: outliers(xs),
  };
}
