/**
 * Comparing a variant between two runs (the learner's previous attempt and this one), with the drift of the machine
 * between the runs taken out: the ratio of the variant's two within-run speedups over the same baseline, with a
 * Welch t interval from the spread of the speedups over each run's rounds.
 *
 * The problem: two runs of the same code on a shared machine time it differently, by far more than either run's
 * intervals (the course's VM on 2026-12-06: the same serial baseline 6.4 times apart over seven quick runs in an
 * hour of heavy sharing, sd 0.61 in ln; test/between-runs-coverage.test.ts has the measurements). A ratio of the
 * variant's times between the runs measures that drift as much as the change of code, and no interval built from one
 * run's samples can see it.
 *
 * The two options weighed (issue 43):
 * (a) the ratio of the two within-run speedups, R = S_this / S_earlier with S = median(baseline) / median(variant):
 *     both runs time the same baseline (the lab's code), so a machine that is k times slower in one run slows the
 *     baseline and the variant alike and k cancels. What it cannot cancel is drift that hits the two cases
 *     differently (contention that slows a two-worker pool more than a serial loop); within a run that shows as
 *     speedups that differ from round to round, and the interval below is built from exactly that spread;
 * (b) repeated runs on each side, and an interval from the spread of their results: it sees every kind of drift,
 *     but needs several runs per side (a t interval from 2 runs per side has 2 degrees of freedom: t = 4.3), and a
 *     learner comparing one attempt with the last has one of each.
 * Chosen: (a), because it needs nothing beyond the two runs the learner has, removes the drift that is largest here
 * (the whole machine faster or slower), and estimates the part that does not cancel from the rounds instead of
 * assuming it away. (b) remains the right tool for claims across days or machines; episode 4 says so.
 *
 * Method. A round of a run measures the baseline and the variant back to back. Per round k of a run, the log speedup
 * l_k = median(ln baseline samples of round k) - median(ln variant samples of round k): drift between rounds cancels
 * within it, like the paired bootstrap's (rounds.ts). The run's log speedup is the mean of its l_k, its squared
 * standard error var(l) / K. Between the runs, ln R = mean(l, this run) - mean(l, earlier run), with Welch's interval:
 * ln R +- t(0.975, df) sqrt(v1 / K1 + v2 / K2), df from Welch-Satterthwaite. So the uncertainty comes from how much
 * the speedup itself moves from round to round, which includes drift that did not cancel.
 * Coverage: test/between-runs-coverage.test.ts simulates pairs of runs with drift between runs and between rounds of
 * the size measured on the course's VM and prints the table; the interval covered the true ratio in 0.945 to 0.969 of
 * 4000 pairs per configuration (the high end at 3 rounds a run, where Welch's interval errs on the wide side).
 * What it assumes: rounds are independent given the run (drift within a round is common to both cases of it, or
 * varies from round to round), and the per-round log speedups are roughly symmetric. A drift that shifts one whole
 * run's speedup and stays put for that run is invisible to any within-run statistic: only (b) sees it. Measured: same-
 * code pairs of runs at loads 6.8 to 32 were judged different in 18 of 270 speedups (6.7 %); pairs with the quiet run
 * (load 0.8) in 51 of 108, because with fewer free CPUs a parallel variant's speedup really is lower. So --compare
 * names a changed load (compare-runs.ts) and episode 4 says to repeat runs at a similar load.
 * Sources: B. L. Welch, "The generalization of 'Student's' problem when several different population variances are
 * involved", Biometrika 34, 1947; F. E. Satterthwaite, Biometrics Bulletin 2(6), 1946 (the degrees of freedom).
 */
import { StatisticsInputError, assertSamples } from './errors.ts';
import { mean, median, sd } from './descriptive.ts';
import { assertRounds, roundSet, sameRoundSet } from './rounds.ts';
import { studentTQuantile } from './student-t.ts';

/** One case's samples (ms) and the round of each, as results.json stores them (samplesMs, sampleRounds). */
export interface RoundedCase {
  samplesMs: readonly number[];
  sampleRounds: readonly number[];
}

/**
 * The per-round log speedups of `variant` over `baseline` measured in the same rounds: one value per round,
 * median(ln baseline samples) - median(ln variant samples), rounds in ascending order.
 * Reference: baseline [4, 4 | 9, 1] and variant [2, 2 | 3, 3] in rounds [0, 0 | 1, 1] -> [ln 2, (ln 9 + ln 1) / 2 -
 * ln 3] = [0.6931, 0].
 * @throws StatisticsInputError on bad samples or rounds, samples of 0 (no logarithm), or different round sets.
 */
export function roundLogSpeedups(baseline: RoundedCase, variant: RoundedCase): number[] {
  const fn = 'roundLogSpeedups';
  for (const [arg, c] of [['baseline', baseline], ['variant', variant]] as const) {
    assertSamples(fn, `${arg}.samplesMs`, c.samplesMs);
    assertRounds(fn, `${arg}.sampleRounds`, c.sampleRounds, c.samplesMs.length);
    if (c.samplesMs.some((x) => x <= 0)) {
      throw new StatisticsInputError(
        `${fn}: ${arg} has a sample of 0 ms or less, which has no logarithm; the samples are below the timer resolution: give each sample more work`,
      );
    }
  }
  if (!sameRoundSet(baseline.sampleRounds, variant.sampleRounds)) {
    throw new StatisticsInputError(
      `${fn}: the baseline and the variant were not measured in the same rounds; a between-run comparison needs cases measured side by side`,
    );
  }
  const logMedianByRound = (c: RoundedCase, r: number) => median(c.samplesMs.filter((_, i) => c.sampleRounds[i] === r).map(Math.log));
  return roundSet(baseline.sampleRounds).map((r) => logMedianByRound(baseline, r) - logMedianByRound(variant, r));
}

/** Welch's interval for the difference of two means, in the units of the values. */
export interface WelchInterval {
  /** mean(y) - mean(x). */
  difference: number;
  ci95: [number, number];
  /** Welch-Satterthwaite degrees of freedom (Infinity when both variances are 0: the interval is then a point). */
  df: number;
  /** sqrt(var(x) / nx + var(y) / ny). */
  standardError: number;
}

/**
 * Welch's 95 % interval of mean(y) - mean(x) for two independent sets of at least 2 values each.
 * Reference: x = [0, 2], y = [3, 5] -> difference 3, se = sqrt(2/2 + 2/2) = sqrt 2, df = 2 (equal variances and
 * sizes: nx + ny - 2), interval 3 -+ 4.30265 sqrt 2 = [-3.0849, 9.0849].
 * @throws StatisticsInputError when a set has fewer than 2 values or a non-finite one.
 */
export function welchInterval(x: readonly number[], y: readonly number[]): WelchInterval {
  const fn = 'welchInterval';
  assertSamples(fn, 'x', x);
  assertSamples(fn, 'y', y);
  if (x.length < 2 || y.length < 2) {
    throw new StatisticsInputError(`${fn}: each set needs at least 2 values for a spread, got ${x.length} and ${y.length}; measure more rounds`);
  }
  const vx = sd(x) ** 2 / x.length;
  const vy = sd(y) ** 2 / y.length;
  const difference = mean(y) - mean(x);
  const standardError = Math.sqrt(vx + vy);
  if (standardError === 0) return { difference, ci95: [difference, difference], df: Infinity, standardError };
  const df = (vx + vy) ** 2 / (vx ** 2 / (x.length - 1) + vy ** 2 / (y.length - 1));
  const half = studentTQuantile(0.975, df) * standardError;
  return { difference, ci95: [difference - half, difference + half], df, standardError };
}

/** The comparison of one variant's speedup between two runs. */
export interface BetweenRunComparison {
  /**
   * R = exp(mean of this run's per-round log speedups - mean of the earlier run's): how many times the variant's
   * speedup over the baseline grew (above 1 = this run's variant is faster relative to the baseline). Unitless.
   */
  ratio: number;
  /** The 95 % Welch interval of R (see the module comment). */
  ci95: [number, number];
  /** The speedup within each run, exp(mean per-round log speedup) (geometric mean over rounds). */
  earlierSpeedup: number;
  currentSpeedup: number;
  /** Rounds used in each run. */
  rounds: { earlier: number; current: number };
  df: number;
  verdict: 'faster' | 'slower' | 'within-noise';
}

/**
 * Compares a variant between an earlier run and this one by the ratio of its within-run speedups over the same
 * baseline (see the module comment). Each run's baseline and variant must share their rounds, at least 2 of them.
 * Verdict: 'faster' when the interval lies wholly above 1, 'slower' wholly below, else 'within-noise'.
 * @throws StatisticsInputError on bad samples or rounds, fewer than 2 shared rounds in a run, or zero samples.
 */
export function compareSpeedupsBetweenRuns(
  earlier: { baseline: RoundedCase; variant: RoundedCase },
  current: { baseline: RoundedCase; variant: RoundedCase },
): BetweenRunComparison {
  const before = roundLogSpeedups(earlier.baseline, earlier.variant);
  const after = roundLogSpeedups(current.baseline, current.variant);
  if (before.length < 2 || after.length < 2) {
    throw new StatisticsInputError(
      `compareSpeedupsBetweenRuns: each run needs the baseline and the variant in at least 2 common rounds for a spread, got ${before.length} and ${after.length}; use a run with more rounds`,
    );
  }
  const w = welchInterval(before, after);
  const ci95: [number, number] = [Math.exp(w.ci95[0]), Math.exp(w.ci95[1])];
  return {
    ratio: Math.exp(w.difference),
    ci95,
    earlierSpeedup: Math.exp(mean(before)),
    currentSpeedup: Math.exp(mean(after)),
    rounds: { earlier: before.length, current: after.length },
    df: w.df,
    verdict: ci95[0] > 1 ? 'faster' : ci95[1] < 1 ? 'slower' : 'within-noise',
  };
}
