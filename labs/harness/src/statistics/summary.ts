/**
 * The summary of one case's samples that results.json stores (`SampleSummary` in results-schema.ts).
 */
import type { SampleSummary } from '../results-schema.ts';
import { StatisticsInputError, assertSamples } from './errors.ts';
import { cv, mad, mean, outliers, quantileOfSorted, sd, sorted } from './descriptive.ts';
import { bootstrapMedianCi } from './bootstrap.ts';

/** Options of `summarize`. */
export interface SummarizeOptions {
  /** Generator for the bootstrap, from `createRng(seed)`. */
  rng: () => number;
  /** Bootstrap resamples for the median's interval (results.json: `bootstrapResamples`). */
  resamples: number;
  /**
   * A summary is flagged `noisy` when its coefficient of variation exceeds this (unitless; default 0.1 = 10 %).
   * On a quiet machine repeated timings of a CPU-bound function vary by a few per cent; beyond 10 % something else
   * (another process, frequency scaling, GC) is in the numbers and the learner should look before concluding.
   */
  noisyCv?: number;
}

/**
 * Summarises one set of samples: n, median with its bootstrap 95 % interval (see `bootstrapMedianCi`), mean, sd
 * (n - 1), unscaled mad, R-7 iqr, min, max, cv, `noisy = cv > noisyCv` and Tukey outlier counts (counted, not dropped).
 * Every value is in the unit of the samples (ms for times) except n, cv and the counts.
 * @param xs the samples in the order collected (the bootstrap indexes them in this order).
 * @throws StatisticsInputError naming the problem on an empty array, a non-finite sample or bad options.
 */
export function summarize(xs: readonly number[], options: SummarizeOptions): SampleSummary {
  assertSamples('summarize', 'xs', xs);
  const noisyCv = options.noisyCv ?? 0.1;
  if (typeof noisyCv !== 'number' || !(noisyCv >= 0) || !Number.isFinite(noisyCv)) {
    throw new StatisticsInputError(`summarize: options.noisyCv must be a finite number >= 0 (0.1 = 10 %), got ${String(noisyCv)}`);
  }
  const ascending = sorted(xs);
  const variation = cv(xs);
  return {
    n: xs.length,
    median: quantileOfSorted(ascending, 0.5),
    ci95: bootstrapMedianCi(xs, options.rng, options.resamples),
    mean: mean(xs),
    sd: sd(xs),
    mad: mad(xs),
    iqr: quantileOfSorted(ascending, 0.75) - quantileOfSorted(ascending, 0.25),
    min: ascending[0] as number,
    max: ascending[ascending.length - 1] as number,
    cv: variation,
    noisy: variation > noisyCv,
    outliers: outliers(xs),
  };
}
