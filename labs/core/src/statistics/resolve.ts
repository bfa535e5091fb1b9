/**
 * How many more samples a ratio's interval needs before it excludes 1: what a run that cannot tell two cases apart is
 * missing, in a number a learner can act on ("needs about 40 more samples per case"), instead of a bare "no clear
 * difference". An estimate, not a promise: a 95 % interval's half-width shrinks about as 1/sqrt(n) for the same
 * spread (on the log scale, where a ratio's interval is about symmetric), so the interval would just exclude 1 at
 * n' = n x (half-width / |ln ratio|)^2. A ratio of exactly 1 gives no estimate: no number of samples shows a
 * difference that was not measured.
 */
import { StatisticsInputError } from './errors.ts';

/** What a ratio's interval says about 1, and what it would take to decide. */
export type Resolution =
  | { resolved: true }
  /** `moreSamples`: per case, beyond `n`; null when the ratio is 1 (nothing to resolve). */
  | { resolved: false; moreSamples: number | null };

/**
 * @param ratio the point estimate (a speedup, or a ratio of medians), > 0
 * @param ci95 its 95 % interval, 0 < lo <= hi
 * @param n the samples per case the interval came from (or the rounds, for a paired interval: the answer is in the same unit)
 */
export function samplesToResolve(ratio: number, ci95: readonly [number, number], n: number): Resolution {
  const [lo, hi] = ci95;
  if (!(ratio > 0) || !(lo > 0) || !(hi >= lo) || !Number.isFinite(hi) || !Number.isInteger(n) || n < 1) {
    throw new StatisticsInputError(`samplesToResolve needs a ratio > 0, an interval 0 < lo <= hi and a whole n >= 1 (got ${ratio}, [${lo}, ${hi}], ${n})`);
  }
  if (lo > 1 || hi < 1) return { resolved: true };
  const effect = Math.abs(Math.log(ratio));
  // Below 0.1 %: as good as no difference measured.
  if (effect < 1e-3) return { resolved: false, moreSamples: null };
  const halfWidth = (Math.log(hi) - Math.log(lo)) / 2;
  const needed = Math.ceil(n * (halfWidth / effect) ** 2);
  return { resolved: false, moreSamples: Math.max(1, needed - n) };
}
