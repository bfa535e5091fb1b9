/**
 * Verdicts from the interval of a difference or a ratio, never from whether two intervals overlap.
 *
 * Why not overlap: two 95 % intervals that overlap can still come from values whose difference is real (two
 * estimates each with half-width h differ significantly from about 1.4 h apart, not 2 h), and "no overlap" is a test at
 * about the 0.5 % level, not 5 %. The interval that answers "is a larger than b?" is the interval of a / b (or a - b).
 *
 * Where only the two values' own intervals are known (a page quoting two values of a run, each with its interval),
 * the interval of their ratio comes from MOVER, the method of variance estimates recovery: each end of the combined
 * interval adds, in quadrature, the distances from each estimate to the end of its own interval on the side that
 * matters. For a ratio it works on the log scale. It assumes the two estimates are independent; two cases measured
 * side by side in one run are usually positively correlated (a slow moment slows both), and then MOVER errs on the
 * wide side, never the short one. Where the samples are at hand, the harness's paired interval of the ratio
 * (statistics/rounds.ts) is the sharper answer.
 * Sources: G. Y. Zou and A. Donner, "Construction of confidence limits about effect measures: a general approach",
 * Statistics in Medicine 27(10), 2008 (MOVER); G. Y. Zou, "On the estimation of additive interaction by use of the
 * four-by-two table and beyond", Am. J. Epidemiology 168(2), 2008 (ratios on the log scale); N. Schenker and J. F.
 * Gentleman, "On judging the significance of differences by examining the overlap between confidence intervals", The
 * American Statistician 55(3), 2001 (why overlap is the wrong test).
 *
 * A value without an interval has no uncertainty the reader can weigh: comparing it gives no direction ('unknown'),
 * except with a constant the text names (b = 1: "faster than the baseline at all?"), which is exact by definition.
 */
import { StatisticsInputError } from './errors.ts';

/** A value with its 95 % interval, or null where the value has none. */
export interface Estimate {
  value: number;
  ci95: readonly [number, number] | null;
}

/** How a compares with b: more, less, level (the interval of the ratio or difference contains 1 or 0), or unknown. */
export type IntervalVerdict = 'more' | 'less' | 'level' | 'unknown';

/** The interval of a / b or a - b and the verdict it gives. */
export interface IntervalComparison {
  /** 'ratio' (a / b, log scale, both positive) or 'difference' (a - b); null when a verdict is 'unknown'. */
  scale: 'ratio' | 'difference' | null;
  /** The point estimate a / b or a - b; null when unknown. */
  estimate: number | null;
  /** Its 95 % interval; null when either value lacks one. */
  ci95: [number, number] | null;
  verdict: IntervalVerdict;
  /** Why there is no verdict ('unknown'), in words for a reader; null otherwise. */
  reason: string | null;
}

function assertEstimate(fn: string, arg: string, e: Estimate): void {
  if (e === null || typeof e !== 'object' || typeof e.value !== 'number' || !Number.isFinite(e.value)) {
    throw new StatisticsInputError(`${fn}: ${arg}.value must be a finite number, got ${String(e?.value)}`);
  }
  if (e.ci95 !== null) {
    const [low, high] = e.ci95;
    // A percentile bootstrap interval can, rarely, leave out its own point estimate: allowed (the distances below are
    // then taken as 0 on that side), but not an interval whose ends are swapped or not numbers.
    if (!Number.isFinite(low) || !Number.isFinite(high) || low > high) {
      throw new StatisticsInputError(`${fn}: ${arg}.ci95 must be finite numbers with low <= high, got [${String(low)}, ${String(high)}]`);
    }
  }
}

/**
 * MOVER interval of a - b for independent estimates: [d - sqrt((a - la)^2 + (ub - b)^2), d + sqrt((ua - a)^2 + (b -
 * lb)^2)], d = a - b. Reference: a = 10 [8, 12], b = 7 [6, 9] -> d = 3, [3 - sqrt(4 + 4), 3 + sqrt(4 + 1)] =
 * [0.1716, 5.2361].
 */
export function moverDifferenceCi(a: number, aCi: readonly [number, number], b: number, bCi: readonly [number, number]): [number, number] {
  const d = a - b;
  const gap = (x: number) => Math.max(0, x); // an estimate outside its own interval adds nothing on that side
  return [d - Math.hypot(gap(a - aCi[0]), gap(bCi[1] - b)), d + Math.hypot(gap(aCi[1] - a), gap(b - bCi[0]))];
}

/**
 * MOVER interval of a / b for independent positive estimates: the difference interval of ln a and ln b, exponentiated.
 * Reference: a = 2 [1.6, 2.5], b = 1.6 [1.4, 1.8] -> ratio 1.25, ln ends ln 1.25 -+ hypot(ln(2/1.6), ln(1.8/1.6)) and
 * ln 1.25 + hypot(ln(2.5/2), ln(1.6/1.4)): [0.97124, 1.62124] (overlap would also say level here).
 */
export function moverRatioCi(a: number, aCi: readonly [number, number], b: number, bCi: readonly [number, number]): [number, number] {
  const [low, high] = moverDifferenceCi(Math.log(a), [Math.log(aCi[0]), Math.log(aCi[1])], Math.log(b), [Math.log(bCi[0]), Math.log(bCi[1])]);
  return [Math.exp(low), Math.exp(high)];
}

/** 'more' when the interval lies wholly above `neutral` (1 for a ratio, 0 for a difference), 'less' when wholly below. */
export function verdictOf(ci95: readonly [number, number], neutral: number): 'more' | 'less' | 'level' {
  if (ci95[0] > neutral) return 'more';
  if (ci95[1] < neutral) return 'less';
  return 'level';
}

/**
 * Compares a with b by the interval of a / b (both values and interval ends positive) or a - b (otherwise).
 * - both with intervals: MOVER (see the module comment);
 * - b a constant (`b.ci95` null and `bIsConstant`): a's interval over b (or minus b), exact in b;
 * - otherwise (a value without an interval): verdict 'unknown', with the reason. No direction is guessed from two
 *   bare numbers, however far apart.
 * @throws StatisticsInputError on a non-finite value or an interval whose ends are swapped.
 */
export function compareEstimates(a: Estimate, b: Estimate, options: { bIsConstant?: boolean } = {}): IntervalComparison {
  assertEstimate('compareEstimates', 'a', a);
  assertEstimate('compareEstimates', 'b', b);
  const bIsConstant = options.bIsConstant === true;
  const missing = [a.ci95 === null ? 'a' : null, b.ci95 === null && !bIsConstant ? 'b' : null].filter((x) => x !== null);
  if (missing.length > 0) {
    return {
      scale: null,
      estimate: null,
      ci95: null,
      verdict: 'unknown',
      reason: `${missing.join(' and ')} ${missing.length === 1 ? 'has' : 'have'} no 95% interval, so the difference cannot be told from noise: no direction is given`,
    };
  }
  const aCi = a.ci95 as readonly [number, number];
  const bCi: readonly [number, number] = b.ci95 ?? [b.value, b.value];
  const positive = aCi[0] > 0 && bCi[0] > 0;
  if (positive) {
    const ci95 = moverRatioCi(a.value, aCi, b.value, bCi);
    return { scale: 'ratio', estimate: a.value / b.value, ci95, verdict: verdictOf(ci95, 1), reason: null };
  }
  const ci95 = moverDifferenceCi(a.value, aCi, b.value, bCi);
  return { scale: 'difference', estimate: a.value - b.value, ci95, verdict: verdictOf(ci95, 0), reason: null };
}
