/**
 * The statistics stage of the harness: pure functions from samples to numbers, in the style of Criterion.rs's
 * `src/stats`. It imports nothing from the rest of the harness except the result types, so it can be tested, reused by
 * the instructor's validator and read on its own.
 *
 *   rng.ts              createRng: the seeded generator that makes every bootstrap interval reproducible;
 *                       lowbias32, the hash the labs make seeded inputs with
 *   descriptive.ts      sorted, quantile, median, mean, sd, mad, iqr, cv, robustCv, outliers
 *   order-statistic.ts  orderStatisticMedianCi, medianCiRanks: the distribution-free 95 % interval of a median
 *   rounds.ts           roundBootstrapRatioCi: the 95 % interval of a speedup paired by measurement round
 *   bootstrap.ts        bootstrapMedianCi, bootstrapRatioCi (independent percentile bootstrap, 95 %)
 *   summary.ts          summarize: the SampleSummary of results.json; NOISY_ROBUST_CV
 *   compare.ts          compareSamples: faster / slower / within noise
 *   resolve.ts          samplesToResolve: how many more samples an interval around 1 needs to exclude it
 *   student-t.ts        studentTCdf, studentTQuantile: Student's t for Welch's interval
 *   between-runs.ts     compareSpeedupsBetweenRuns: a variant between two runs, drift cancelled by its baseline
 *   processes.ts        processRatioInterval: a graded ratio's 95 % interval over pairs of processes (forks)
 *   interval-verdict.ts compareEstimates, moverRatioCi: verdicts from the interval of a ratio, never from overlap
 *   scaling-notes.ts    scalingNotes: efficiency above 1, negative Karp-Flatt, sweeps too short to fit, extrapolations
 *   stability.ts        windowThroughputs, firstStableWindow: the windowed stability rule of inference benchmarks
 *   scaling.ts          speedup, efficiency, karpFlatt, amdahlSpeedup, gustafsonSpeedup, amdahlLimit, speedupCurves, amdahlFit
 *
 * Every function throws StatisticsInputError (code STATISTICS_INVALID_INPUT) on input it cannot use, never NaN.
 */
export { StatisticsInputError } from './statistics/errors.ts';
export { createRng, lowbias32 } from './statistics/rng.ts';
export { MAD_TO_SD, cv, iqr, mad, mean, median, outliers, quantile, robustCv, sd, sorted } from './statistics/descriptive.ts';
export type { OutlierCounts } from './statistics/descriptive.ts';
export { medianCiRanks, orderStatisticMedianCi } from './statistics/order-statistic.ts';
export type { MedianCiRanks } from './statistics/order-statistic.ts';
export { roundBootstrapRatioCi, roundSet, sameRoundSet } from './statistics/rounds.ts';
export { bootstrapMedianCi, bootstrapRatioCi } from './statistics/bootstrap.ts';
export { NOISY_ROBUST_CV, summarize } from './statistics/summary.ts';
export type { SummarizeOptions } from './statistics/summary.ts';
export { compareSamples } from './statistics/compare.ts';
export { samplesToResolve } from './statistics/resolve.ts';
export type { Resolution } from './statistics/resolve.ts';
export type { CompareOptions, SampleComparison } from './statistics/compare.ts';
export { AMDAHL_MIN_FREE_POINTS, amdahlFit, amdahlFreePoints, amdahlLimit, amdahlSpeedup, efficiency, gustafsonSpeedup, karpFlatt, speedup, speedupCurves } from './statistics/scaling.ts';
export type { AmdahlFitResult, LawPoint, ScalingPoint } from './statistics/scaling.ts';
export { logGamma, regularizedBeta, studentTCdf, studentTQuantile } from './statistics/student-t.ts';
export { compareSpeedupsBetweenRuns, roundLogSpeedups, welchInterval } from './statistics/between-runs.ts';
export type { BetweenRunComparison, RoundedCase, WelchInterval } from './statistics/between-runs.ts';
export { processPairLogRatios, processRatioInterval, sameProcessCells } from './statistics/processes.ts';
export type { ProcessRatio, ProcessTaggedCase } from './statistics/processes.ts';
export { compareEstimates, moverDifferenceCi, moverRatioCi, verdictOf } from './statistics/interval-verdict.ts';
export { bootstrapSlopeCi, linearFit } from './statistics/slope.ts';
export type { Estimate, IntervalComparison, IntervalVerdict } from './statistics/interval-verdict.ts';
export { SUPERLINEAR_CAUSES, scalingNotes } from './statistics/scaling-notes.ts';
export type { ScalingNotesInput } from './statistics/scaling-notes.ts';
export { DEFAULT_STABILITY, firstStableWindow, windowThroughputs, withinToleranceOfMean } from './statistics/stability.ts';
export type { StabilityOptions } from './statistics/stability.ts';
