/**
 * Before/after comparison of two sets of times: the bootstrap interval of the ratio of their medians. Between two
 * runs it measures the machine's drift as much as any change of code, so `--compare` judges variants by the ratio of
 * their speedups instead (between-runs.ts) and uses this only for the baseline's own row: how much the machine moved.
 */
import { StatisticsInputError } from './errors.ts';
import { median } from './descriptive.ts';
import { bootstrapRatioCi } from './bootstrap.ts';

/** Options of `compareSamples`. */
export interface CompareOptions {
  /**
   * Relative change treated as noise on top of the interval (unitless; default 0: the interval alone decides).
   * Criterion.rs has the same knob (`noise_threshold`). The harness leaves it at 0: drift between runs is taken out by
   * comparing speedups (between-runs.ts), not by a band tuned to one machine.
   */
  threshold?: number;
}

/** The verdict of `compareSamples`. */
export interface SampleComparison {
  /** median(before) / median(after): above 1 means `after` is faster. Unitless. */
  ratio: number;
  /** Percentile-bootstrap 95 % interval of the ratio (see `bootstrapRatioCi`). */
  ci95: [number, number];
  /** The noise threshold used, so a report can say "within +-2 %". */
  threshold: number;
  verdict: 'faster' | 'slower' | 'within-noise';
}

/**
 * Compares the times of a change (`after`) with those before it.
 * The verdict is 'faster' when the whole 95 % interval of the ratio lies above 1 + threshold, 'slower' when it lies
 * entirely below 1 - threshold, and 'within-noise' otherwise: an interval touching the band [1 - t, 1 + t] cannot
 * tell a change from the machine's noise, however far its point estimate is from 1.
 * @param before times (ms) before the change, in the order collected.
 * @param after times (ms) after the change, in the order collected.
 * @param rng a generator from `createRng(seed)` for the bootstrap.
 * @param resamples bootstrap resamples.
 * @throws StatisticsInputError on empty/non-finite samples, bad resampling arguments or a threshold outside [0, 1).
 */
export function compareSamples(
  before: readonly number[],
  after: readonly number[],
  rng: () => number,
  resamples: number,
  options: CompareOptions = {},
): SampleComparison {
  const threshold = options.threshold ?? 0;
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold < 1)) {
    throw new StatisticsInputError(
      `compareSamples: options.threshold must be a number in [0, 1) (0.02 = 2 %; 0 = the interval alone), got ${String(threshold)}`,
    );
  }
  const ci95 = bootstrapRatioCi(before, after, rng, resamples);
  const afterMedian = median(after);
  if (afterMedian === 0) {
    throw new StatisticsInputError(
      'compareSamples: median(after) is 0, so the ratio is undefined; the samples are below the timer resolution: give each sample more work',
    );
  }
  const ratio = median(before) / afterMedian;
  const verdict = ci95[0] > 1 + threshold ? 'faster' : ci95[1] < 1 - threshold ? 'slower' : 'within-noise';
  return { ratio, ci95, threshold, verdict };
}
