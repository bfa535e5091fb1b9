/**
 * The 95 % confidence interval of a speedup, median(baseline) / median(variant), for two cases measured in the same
 * rounds: a two-stage bootstrap that resamples rounds, then the samples within each drawn round, and takes the ratio
 * within the pairing.
 *
 * Why pair by round: the harness interleaves the cases of a group in rounds (each round runs every case back to back),
 * so a change of machine speed (a vCPU switching between about 62 and 97 ms for the same work) hits the baseline and the
 * variant of a round alike. Resampling the two cases independently (bootstrap.ts) mixes fast rounds of one with slow
 * rounds of the other: under such drift its interval came out 1.8 to 2.6 times as wide as this one at 10 % noise
 * within a round (test/coverage.test.ts prints the table), and about 10 times at 2 %. (It still covers: drift common
 * to both cases only makes the independent interval too wide, not too short.)
 *
 * Why two stages, and percentile. Coverage of the 95 % interval at 8 to 20 samples, rounds of 1 to 4 samples, with and
 * without drift (the test's synthetic data; the first two alternatives were simulated while choosing, not in the test):
 * - resampling whole rounds alone (the cluster bootstrap) needs many rounds: with the 2 to 5 rounds of a short run it
 *   can only rearrange a few blocks, and covered as little as 0.53 (2 rounds of 4 samples);
 * - BCa on the two-stage resamples, with the acceleration from a jackknife over rounds, covered 0.85 to 0.97 under
 *   drift, below 0.93 in 8 of 13 configurations: the jackknife is not a consistent estimate for a median (Efron and Tibshirani 1993, §11.6), and the bias
 *   correction is erratic when many resampled ratios tie with the estimate;
 * - the two-stage percentile interval (this one) covered 0.94 to 1.00 everywhere. Resampling the samples within each
 *   drawn round adds the within-round variation that a few rounds cannot show; with many rounds it counts that
 *   variation about twice, so it errs on the wide side (0.977 to 0.998 with 2 to 4 samples per round), never short.
 * Sources: A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", 1997, §3.8 (resampling
 * hierarchical data at one or both stages); B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", 1993,
 * ch. 13 (the percentile interval).
 *
 * Few rounds: with one round there is no drift to see or remove, and the method is the independent bootstrap of that
 * round's samples; with 2 or 3 rounds (a quick run: 3 rounds x 4 samples) the within-round stage gives most of the
 * width. With one sample per round it is the bootstrap of (baseline, variant) pairs.
 *
 * Reproducibility contract (an instructor's validator recomputes these from results.json):
 * - the rounds are the distinct values of `baselineRounds`, ascending: r_0 < ... < r_{K-1}; the variant must have the
 *   same set. Round r_j of a case holds its samples i with rounds[i] = r_j, in the order given (index order);
 * - resample b = 0 .. resamples - 1, for slot j = 0 .. K - 1: one draw u picks round r = r_{floor(u * K)}; then the
 *   baseline's m samples of round r are drawn, m draws with index floor(u * m) into that round's samples; then the
 *   variant's samples of round r the same way (its own m). All from the one rng, in exactly this order;
 * - the resample's statistic is R-7 median(the baseline draws) / R-7 median(the variant draws) (tallyMedian);
 * - the interval is [R-7 quantile 0.025, R-7 quantile 0.975] of the ascending statistics.
 * The result depends on the rng's state: create a fresh `createRng(seed)` where the validator will.
 * Cost: O(n log n + resamples * (K + n_baseline + n_variant)) time, O(n + resamples) memory: about 7 ms for 10 000
 * resamples of two 30-sample cases (AMD EPYC, 2026-12-04; 14 ms with a copy and a quickselect per resample).
 */
import { StatisticsInputError, assertSamples } from './errors.ts';
import { assertResampling, nextUniform, percentileInterval, rankSamples, tallyDraws, tallyMedian } from './bootstrap.ts';

/**
 * Throws unless `rounds` has one non-negative integer per sample. `fn` and `arg` name the caller and the argument.
 */
export function assertRounds(fn: string, arg: string, rounds: readonly number[], sampleCount: number): void {
  if (!Array.isArray(rounds)) {
    throw new StatisticsInputError(`${fn}: ${arg} must be an array of round indices, got ${typeof rounds}`);
  }
  if (rounds.length !== sampleCount) {
    throw new StatisticsInputError(
      `${fn}: ${arg} has ${rounds.length} entries for ${sampleCount} samples; pass one round index per sample, in the order taken`,
    );
  }
  for (let i = 0; i < rounds.length; i++) {
    const r = rounds[i];
    if (typeof r !== 'number' || !Number.isSafeInteger(r) || r < 0) {
      throw new StatisticsInputError(`${fn}: ${arg}[${i}] is ${String(r)}; a round index is an integer >= 0`);
    }
  }
}

/** The distinct round indices of `rounds`, ascending. */
export function roundSet(rounds: readonly number[]): number[] {
  return [...new Set(rounds)].sort((a, b) => a - b);
}

/** True when the two cases were measured in the same set of rounds (the condition for pairing them). */
export function sameRoundSet(a: readonly number[], b: readonly number[]): boolean {
  const x = roundSet(a);
  const y = roundSet(b);
  return x.length === y.length && x.every((r, i) => r === y[i]);
}

/** A case's samples grouped by round: round j's samples are values[offsets[j] .. offsets[j + 1] - 1]. */
interface ByRound {
  values: Float64Array;
  offsets: Int32Array;
}

function groupByRound(samples: readonly number[], rounds: readonly number[], order: readonly number[]): ByRound {
  const slot = new Map(order.map((r, j) => [r, j]));
  const counts = new Int32Array(order.length + 1);
  for (const r of rounds) {
    const j = (slot.get(r) as number) + 1;
    counts[j] = (counts[j] as number) + 1;
  }
  const offsets = new Int32Array(order.length + 1);
  for (let j = 0; j < order.length; j++) {
    offsets[j + 1] = (offsets[j] as number) + (counts[j + 1] as number);
  }
  const values = new Float64Array(samples.length);
  const fill = Int32Array.from(offsets.subarray(0, order.length));
  for (let i = 0; i < samples.length; i++) {
    const j = slot.get(rounds[i] as number) as number;
    const at = fill[j] as number;
    values[at] = samples[i] as number;
    fill[j] = at + 1;
  }
  return { values, offsets };
}

/**
 * The paired two-stage-bootstrap 95 % interval of median(baseline) / median(variant) (unitless; above 1 means the variant
 * is faster) for two cases measured in the same rounds. See the module comment for the method and the exact draw order.
 * @param baseline times of the baseline (ms), in the order taken.
 * @param baselineRounds the round index of each baseline sample (same length).
 * @param variant times of the implementation compared with it (ms), in the order taken.
 * @param variantRounds the round index of each variant sample; the same set of rounds as the baseline's.
 * @param rng a generator from `createRng(seed)`.
 * @param resamples bootstrap resamples (10 000 in the harness).
 * @throws StatisticsInputError on empty or non-finite samples, bad round indices, different round sets (pair only
 *   cases measured in the same group, else use bootstrapRatioCi), bad resampling arguments, or a resampled variant
 *   median of 0.
 */
export function roundBootstrapRatioCi(
  baseline: readonly number[],
  baselineRounds: readonly number[],
  variant: readonly number[],
  variantRounds: readonly number[],
  rng: () => number,
  resamples: number,
): [number, number] {
  const fn = 'roundBootstrapRatioCi';
  assertSamples(fn, 'baseline', baseline);
  assertSamples(fn, 'variant', variant);
  assertRounds(fn, 'baselineRounds', baselineRounds, baseline.length);
  assertRounds(fn, 'variantRounds', variantRounds, variant.length);
  assertResampling(fn, rng, resamples);
  if (!sameRoundSet(baselineRounds, variantRounds)) {
    throw new StatisticsInputError(
      `${fn}: the baseline and the variant were not measured in the same rounds, so they cannot be paired; use bootstrapRatioCi (independent resampling) for cases from different measure groups`,
    );
  }
  const order = roundSet(baselineRounds);
  const k = order.length;
  const x = groupByRound(baseline, baselineRounds, order);
  const y = groupByRound(variant, variantRounds, order);
  // Each resample is tallied by rank (rankSamples), and its medians read from the tallies: see bootstrap.ts.
  const xRanked = rankSamples(x.values);
  const yRanked = rankSamples(y.values);
  const ratios = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let nx = 0;
    let ny = 0;
    for (let slot = 0; slot < k; slot++) {
      const r = Math.floor(nextUniform(fn, rng) * k);
      const xStart = x.offsets[r] as number;
      const xCount = (x.offsets[r + 1] as number) - xStart;
      tallyDraws(fn, rng, xRanked, xStart, xCount);
      nx += xCount;
      const yStart = y.offsets[r] as number;
      const yCount = (y.offsets[r + 1] as number) - yStart;
      tallyDraws(fn, rng, yRanked, yStart, yCount);
      ny += yCount;
    }
    const top = tallyMedian(xRanked, nx);
    const bottom = tallyMedian(yRanked, ny);
    if (bottom === 0) {
      throw new StatisticsInputError(
        `${fn}: a resample of variant has median 0, so the ratio is undefined; the samples are below the timer resolution: give each sample more work`,
      );
    }
    ratios[b] = top / bottom;
  }
  return percentileInterval(ratios);
}
