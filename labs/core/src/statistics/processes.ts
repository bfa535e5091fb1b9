/**
 * The 95 % interval of a ratio median(numerator) / median(denominator) for two cases each measured in several fresh
 * processes, process i of one paired with process i of the other (a graded run's forks: the solution's copy over the
 * learner's case): a Student t interval on the per-pair log ratios, F - 1 degrees of freedom for F pairs.
 *
 * Why processes: two fresh processes running the same code differ by more than one process's rounds show (the course's
 * VM, session 19, quiet: sd 0.057 of the log ratio between pairs of processes against 0.019 within one pair; once in
 * four quiet runs one process read 2.7 times slower for its whole life). An interval from the rounds of one process a
 * side (rounds.ts) cannot see that; pairs of processes are the unit that varies, so the interval is built from them.
 *
 * Method. A round of a pair measures both cases back to back in that pair's two processes. Per round r of pair p,
 * d_pr = median(ln numerator samples of r) - median(ln denominator samples of r): drift between rounds, common to both
 * cases of a round, cancels within it (as in between-runs.ts). Per pair, l_p = the mean of its d_pr: one value per
 * pair, carrying both processes' effects and the rounds' noise. The ratio is exp(mean l_p) (the geometric mean over
 * pairs of the pairs' ratios) and its interval exp(mean l_p -+ t(0.975, F - 1) sd(l) / sqrt F). The ratio is the
 * interval's centre on the log scale, so it always lies inside; no random numbers, so a validator recomputes both
 * exactly from the samples, their rounds and their processes.
 *
 * Chosen by coverage simulation on two-level data (test/process-coverage.test.ts reruns part of it and prints the
 * table). The numerator's times 60 * 1.3 * d_r * a_p * exp(c Z) ms, the denominator's 60 * d_r * b_p * exp(c Z), so
 * the true ratio is 1.3: a per-process effect on each side of its own (a_p, b_p = exp(s Z'), mean log 0, independent
 * per process and side), within-process noise c, drift between rounds common to both sides (d_r = 1 or 1.55,
 * probability 1/2 each, as test/coverage.test's), F processes a side, K rounds a process (round r in process r mod F),
 * m samples a round. 300 trials a configuration (one standard error of a coverage near 0.95: 0.013), 500 resamples
 * for the bootstraps, s = 0, 0.03, 0.06 x c = 0.02, 0.1, 0.3 x F = 3, 5, 8 x (K, m) = (1, 2), (1, 4), (2, 3), (4, 2),
 * (4, 4): 135 configurations. Coverage of the 95 % interval, lowest .. highest, and mean width ln(high / low):
 *
 *   method                                       all 135        s > 0, F = 3     width at s = 0.06, c = 0.1
 *                                                                                F = 3    F = 5    F = 8
 *   two-stage bootstrap, pairs as clusters       0.817 .. 1     0.817 .. 1       0.43     0.38     0.32
 *     (rounds.ts with the processes for rounds)
 *   three-stage bootstrap (pairs, their rounds,  0.807 .. 1     0.807 .. 1       0.32     0.30     0.26
 *     the rounds' samples; ratio of medians)
 *   t on per-pair log ratios (this one)          0.917 .. 0.980 0.927 .. 0.973   0.48     0.26     0.18
 *
 * - Both bootstraps fall short where the process effect dominates and pairs are few (lowest at s = 0.06, c = 0.02,
 *   F = 3: 0.807 and 0.817; at s = 0.03: 0.853 and 0.870): resampling 3 clusters shows (F - 1) / F of their variance and has 10 distinct
 *   draws, so the percentile interval is too short (Davison and Hinkley 1997, §3.8: with few clusters the first stage
 *   is underestimated). The two-stage one also counts the drift between a process's rounds as noise: with quiet
 *   samples (c = 0.02) and 2 to 4 rounds a process its interval is 1.5 to 54 times as wide as the t interval.
 * - Today's paired bootstrap over rounds, blind to processes (what a forked file would get without this), on 54 of
 *   the configurations (c = 0.02, 0.1; (K, m) = (1, 4), (2, 3), (4, 2)): 0.763 .. 1, below 0.93 in 11, all with s > 0
 *   and c = 0.02 (a process's rounds share its effect, so they are not independent draws).
 * - The t interval: 4 configurations of 135 below 0.93 (0.917, 0.927, 0.927, 0.927), no more than chance at a true
 *   0.95 (0.927 or less: 5 % a configuration; 0.917 or less: 1 %); the test's 1500 trials a configuration (K and m
 *   drawn per trial, 27 configurations) gave 0.939 to 0.957. It pays for few pairs with t(0.975, 2) = 4.30 at F = 3
 *   (the widest where processes differ, honestly: 3 pairs say little about a spread); at F = 5 and 8 it is the
 *   narrowest, as it keeps every round's pairing and nothing else.
 * - One denominator process 2.7 times slow (s = 0.03, c = 0.02 and 0.1, K = 2, m = 3): the t interval covered 1.000 at
 *   F = 3, 5, 8, widths 2.87, 1.11, 0.60 (0.35, 0.19, 0.13 without it, c = 0.1): one pair's l_p is off by ln 2.7 =
 *   0.99, the centre moves by 0.99 / F and the half-width grows by t(0.975, F - 1) > 1 times that, so the interval
 *   keeps the truth and widens; the three-stage bootstrap covered 0.85 at F = 3, c = 0.02.
 * Only the t interval reaches 0.93 everywhere (up to the Monte Carlo error above). What it assumes: pairs independent
 * (fresh processes), their l_p roughly normal; an outlying pair widens it rather than shortening it.
 * That widening is a lever for the denominator's code (the learner's, which may slow its own processes on purpose,
 * e.g. one process in five, drawn at random when it starts): at F = 5, lowering one pair's l_p by D lowers the centre
 * by D / 5 and raises the top by about 0.36 D (t(0.975, 4) sd / sqrt 5 grows faster), so a learner at 0.5 to 0.67 of
 * the solution, one process slowed 3 to 7 times, reached a target of 0.9 (review, session 20). So the result also
 * carries `best`, exp(max l_p), which slowing a learner's process never raises; the grade fails an interval that
 * reaches the target when even the best pair is below it (grade.ts). For honest pairs at the target, all F below it
 * has probability 2^-F (3 % at F = 5).
 * Sources: W. S. Gosset ("Student"), "The probable error of a mean", Biometrika 6, 1908 (the t interval); A. C.
 * Davison and D. V. Hinkley, "Bootstrap Methods and their Application", 1997, §3.8 (hierarchical resampling); JMH's
 * forks (OpenJDK's Java Microbenchmark Harness, `@Fork`): the same benchmark in several fresh JVMs, because a JVM's
 * run-to-run variance is only seen across JVMs.
 * Cost: O(n log n) time and O(n) memory for n samples (a sort per round).
 */
import { StatisticsInputError, assertSamples } from './errors.ts';
import { mean, median, sd } from './descriptive.ts';
import { assertRounds } from './rounds.ts';
import { studentTQuantile } from './student-t.ts';

/** One case's samples (ms), the round and the process of each, as results.json stores them. */
export interface ProcessTaggedCase {
  samplesMs: readonly number[];
  sampleRounds: readonly number[];
  sampleProcesses: readonly number[];
}

/** The (process, round) cells of a case, keyed `process:round`, each with its samples' indices in the order taken. */
function cellsOf(c: ProcessTaggedCase): Map<string, { process: number; round: number; indices: number[] }> {
  const cells = new Map<string, { process: number; round: number; indices: number[] }>();
  for (let i = 0; i < c.samplesMs.length; i++) {
    const process = c.sampleProcesses[i] as number;
    const round = c.sampleRounds[i] as number;
    const key = `${process}:${round}`;
    const cell = cells.get(key);
    if (cell) cell.indices.push(i);
    else cells.set(key, { process, round, indices: [i] });
  }
  return cells;
}

/**
 * True when the two cases were measured in the same (process, round) cells, in at least 2 processes: process i of one
 * with process i of the other, in the same rounds. The condition for processRatioInterval.
 */
export function sameProcessCells(a: ProcessTaggedCase, b: ProcessTaggedCase): boolean {
  if (a.sampleProcesses.length !== a.samplesMs.length || b.sampleProcesses.length !== b.samplesMs.length) return false;
  if (a.sampleRounds.length !== a.samplesMs.length || b.sampleRounds.length !== b.samplesMs.length) return false;
  const x = cellsOf(a);
  const y = cellsOf(b);
  if (x.size !== y.size || ![...x.keys()].every((k) => y.has(k))) return false;
  return new Set(a.sampleProcesses).size >= 2;
}

function assertTagged(fn: string, arg: string, c: ProcessTaggedCase): void {
  assertSamples(fn, `${arg}.samplesMs`, c.samplesMs);
  assertRounds(fn, `${arg}.sampleRounds`, c.sampleRounds, c.samplesMs.length);
  assertRounds(fn, `${arg}.sampleProcesses`, c.sampleProcesses, c.samplesMs.length);
  if (c.samplesMs.some((x) => x <= 0)) {
    throw new StatisticsInputError(
      `${fn}: ${arg} has a sample of 0 ms or less, which has no logarithm; the samples are below the timer resolution: give each sample more work`,
    );
  }
}

/**
 * The per-pair log ratios l_p (see the module comment), one per process, processes ascending: the mean over the
 * pair's rounds of median(ln numerator) - median(ln denominator) of the round.
 * Reference: numerator [4, 4 | 9, 1 | 6] in (process, round) (0, 0), (0, 0), (0, 1), (0, 1), (1, 2) and denominator
 * [2, 2 | 3, 3 | 3] in the same cells -> pair 0: mean(ln 4 - ln 2, (ln 9 + ln 1) / 2 - ln 3) = mean(ln 2, 0) =
 * 0.34657; pair 1: ln 6 - ln 3 = ln 2 = 0.69315.
 * @throws StatisticsInputError on bad samples, rounds or processes, samples of 0 (no logarithm), or cases not measured
 *   in the same (process, round) cells in at least 2 processes.
 */
export function processPairLogRatios(numerator: ProcessTaggedCase, denominator: ProcessTaggedCase): number[] {
  const fn = 'processPairLogRatios';
  assertTagged(fn, 'numerator', numerator);
  assertTagged(fn, 'denominator', denominator);
  if (!sameProcessCells(numerator, denominator)) {
    throw new StatisticsInputError(
      `${fn}: the two cases were not measured in the same processes and rounds (process i of one beside process i of the other, in at least 2 processes); pair them by round instead (roundBootstrapRatioCi)`,
    );
  }
  const x = cellsOf(numerator);
  const y = cellsOf(denominator);
  const logMedian = (c: ProcessTaggedCase, indices: number[]) => median(indices.map((i) => Math.log(c.samplesMs[i] as number)));
  const byProcess = new Map<number, number[]>();
  for (const [key, cell] of x) {
    const d = logMedian(numerator, cell.indices) - logMedian(denominator, (y.get(key) as { indices: number[] }).indices);
    const list = byProcess.get(cell.process);
    if (list) list.push(d);
    else byProcess.set(cell.process, [d]);
  }
  return [...byProcess.keys()].sort((a, b) => a - b).map((p) => mean(byProcess.get(p) as number[]));
}

/** The ratio over pairs of processes and its interval. */
export interface ProcessRatio {
  /** exp(mean l_p): the geometric mean over pairs of processes of each pair's ratio (unitless). */
  ratio: number;
  /** The 95 % t interval of the ratio (see the module comment); [ratio, ratio] when every pair gave the same l_p. */
  ci95: [number, number];
  /** Pairs of processes, F. */
  pairs: number;
  /**
   * exp(max l_p): the ratio of the pair that favours the numerator most (the solution over the learner: the learner's
   * best pair). Only the denominator's code can slow its processes, and slowing one lowers its l_p: that can widen the
   * t interval's top (by 0.36 of the drop at F = 5) but never raise this; grade.ts reads it so that a learner cannot
   * reach the target by slowing a process of its own (see the module comment).
   */
  best: number;
}

/**
 * The ratio of two cases measured in the same pairs of processes, with its 95 % interval over the pairs (see the
 * module comment for the method and its coverage).
 * Reference: l = [0, ln 2] (two pairs) -> ratio exp(ln 2 / 2) = sqrt 2 = 1.41421; sd(l) = ln 2 / sqrt 2, se = ln 2 / 2,
 * t(0.975, 1) = 12.7062: interval exp(0.34657 -+ 12.7062 * 0.34657) = [0.017300, 115.61].
 * @throws as processPairLogRatios.
 */
export function processRatioInterval(numerator: ProcessTaggedCase, denominator: ProcessTaggedCase): ProcessRatio {
  const l = processPairLogRatios(numerator, denominator);
  const centre = mean(l);
  const standardError = sd(l) / Math.sqrt(l.length);
  const half = standardError === 0 ? 0 : studentTQuantile(0.975, l.length - 1) * standardError;
  return { ratio: Math.exp(centre), ci95: [Math.exp(centre - half), Math.exp(centre + half)], pairs: l.length, best: Math.exp(Math.max(...l)) };
}
