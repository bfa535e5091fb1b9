/**
 * `--grade`: the learner's graded cases against the solution's same cases, measured interleaved in one
 * run on one machine. A grade entry is the ratio median(solution time) / median(learner time) (1 = as fast as the
 * solution; 0.5 = half its throughput) with its 95% interval, paired by round like every speedup, against the lab's
 * target. Where both sides ran in the same fresh processes (a graded run's forks, at least 2 a side, process i of the
 * learner's case beside process i of the solution's copy), the interval is over those pairs of processes and the ratio
 * its centre, the geometric mean of the pairs' ratios (statistics/processes.ts, `pairing: 'processes'`): one process a
 * side cannot show how much two processes of the same code differ. It fails only when the measurement shows the code is slower than the target: the whole interval below it,
 * or when the interval is too wide to be a measurement (MAX_GRADE_INTERVAL_SPAN).
 * The benefit of the doubt goes to the learner, so the solution graded against itself passes on a noisy machine;
 * `uncertain` says the interval straddles the target (a full run, or a quieter machine, narrows it). An optional
 * graded case the learner has not attempted (its check said "not implemented") is listed but left out of the verdict. A pure function of the samples, so
 * `report -- validate` recomputes it and a hand-edited grade is caught.
 */
import type { AnalysisInput } from './analysis.ts';
import type { CaseResult, CorrectnessEntry, Grade, Params } from './results-schema.ts';
import { formatBracketInterval, formatFixed } from './format.ts';
import { median } from './statistics.ts';
import { paramsSeedText, sameCase, sameParams, type CaseRef as Headline } from './case-identity.ts';
import { implausibleGradeRatio, type PlausibilityFlag } from './plausibility.ts';

/**
 * The param and value that mark the solution's copy of a graded case (run-cases.ts adds them): `impl: 'solution'`, the
 * course's answer, as `--impl solution` names it.
 */
export const SOLUTION_COPY_PARAM = 'impl';
export const SOLUTION_COPY = 'solution';
/**
 * The value graded results files written before it was renamed carry (`impl: 'reference'`, schema 4): read as
 * SOLUTION_COPY, never written. A reader accepts both rather than an upgrade step rewriting them, because a case's
 * params seed its recomputed intervals (case-identity.ts paramsSeedText), so rewritten params would fail validate.
 */
const RECORDED_SOLUTION_COPY = 'reference';

/** Whether a case is the solution's copy of a graded case (either value a results file may carry). */
export function isSolutionCopy(params: Params): boolean {
  const value = params[SOLUTION_COPY_PARAM];
  return value === SOLUTION_COPY || value === RECORDED_SOLUTION_COPY;
}

/** The params of the solution's copy of a learner case (`impl: 'solution'`). */
export function solutionCopyParams(params: Params): Params {
  return { ...params, [SOLUTION_COPY_PARAM]: SOLUTION_COPY };
}

/** A case's params without the solution copy's marker: the graded case it copies. */
export function gradedCaseParams(params: Params): Params {
  const { [SOLUTION_COPY_PARAM]: _marker, ...rest } = params;
  return rest;
}

/** Whether `c` is the solution's copy of the graded case `graded` (either value a results file may carry). */
function copiesCase(c: Headline, graded: Headline): boolean {
  return c.variant === graded.variant && isSolutionCopy(c.params) && sameParams(gradedCaseParams(c.params), graded.params);
}

/** A graded case; `optional`: an optional exercise, left out of the verdict while the learner has not attempted it. */
export type GradedCase = Headline & { optional?: boolean };

export interface GradingSpec {
  cases: GradedCase[];
  target: number;
  targetText: string;
  /**
   * The cases whose check said "not implemented" (the exercise still throws its marker). An optional graded case
   * among them is reported as not attempted and left out of the verdict; a required one fails as before.
   */
  notImplemented?: Headline[];
}

/**
 * The interval of the ratio solution / learner for one graded case; `key` seeds its resampling. `ratio`: the point
 * estimate of a method that has its own (over pairs of processes: the interval's centre); absent, the ratio is
 * median(solution) / median(learner). `best`: over pairs of processes, the best pair's ratio (statistics/processes.ts
 * ProcessRatio.best), which the learner's code cannot raise by slowing a process of its own.
 */
export type GradeInterval = (solution: AnalysisInput, learner: AnalysisInput, key: string) => { ratio?: number; ci95: [number, number]; pairing: NonNullable<Grade['entries'][number]['pairing']>; best?: number };

/**
 * Why an interval over pairs of processes that reaches the target is not a pass, or null: no pair reached it. The t
 * interval's top rises when one pair's ratio falls far below the others (processes.ts), and the learner's code can
 * slow its own processes; the benefit of the doubt is for an honest machine's noise, not for a spread the learner
 * can make, so at least one pair must reach the target.
 */
export function noPairReached(best: number | undefined, target: number, ci95: readonly [number, number]): string | null {
  if (best === undefined || best >= target || ci95[1] < target) return null;
  return (
    `no pair of processes reached the target: your best process ran at ${formatFixed(best, 2)} of the solution's beside it, ` +
    `below ${formatFixed(target, 2)}; the interval ${formatBracketInterval(ci95, 2)} reaches the target only because your processes differ ` +
    '(one much slower than the others). Look for what makes one run of your code slower than another, then rerun'
  );
}

/** The cases whose check said "not implemented", as GradingSpec.notImplemented wants them. */
export function notImplementedCases(correctness: Pick<CorrectnessEntry, 'variant' | 'params' | 'notImplemented'>[]): Headline[] {
  return correctness.filter((e) => e.notImplemented).map((e) => ({ variant: e.variant, params: e.params }));
}

/**
 * The widest interval a grade is read from, as the factor between its ends. The benefit of the doubt (pass unless the
 * whole interval is below the target) is for the noise of an honest machine; an interval wider than this is no
 * measurement of the ratio (seen: a learner 3000x slower than the solution, "passing" with its interval's top above
 * 0.2, because a loaded 1-CPU run descheduled the solution's microsecond samples). Wide enough for every committed
 * graded run (the widest, a schema-4 fixture, spans 6.4x).
 */
export const MAX_GRADE_INTERVAL_SPAN = 10;

/** Why an interval is too wide to grade from, or null. */
export function tooNoisyToGrade(ci95: readonly [number, number]): string | null {
  const [low, high] = ci95;
  if (low > 0 && high / low <= MAX_GRADE_INTERVAL_SPAN) return null;
  return (
    `too noisy to grade: the interval ${formatBracketInterval([low, high], 2)} spans more than a factor of ${MAX_GRADE_INTERVAL_SPAN}; ` +
    'not a pass. Rerun with nothing else running (other jobs, a second lab), or as a full run (without --quick)'
  );
}

/**
 * The grade of a `--grade` run from the analysis's inputs and its cases: each graded case's ratio with the interval
 * `interval` gives (a run resamples it as its speedups are: build-results.ts analyzeRun, keyed `grade:<variant>:<params>`).
 */
export function gradeCases(inputs: AnalysisInput[], cases: CaseResult[], spec: GradingSpec, interval: GradeInterval): Grade {
  const entries: Grade['entries'] = spec.cases.map((g) => {
    const learner = inputs.find((i) => sameCase(i, g));
    const solution = inputs.find((i) => copiesCase(i, g));
    const base = { variant: g.variant, params: g.params };
    const notAttempted =
      g.optional === true && !learner && (spec.notImplemented ?? []).some((n) => sameCase(n, g));
    if (notAttempted) {
      return { ...base, ratio: null, ci95: null, pairing: null, passed: false, uncertain: false, optional: true, notAttempted: true, reason: 'not attempted (an optional exercise: its code still throws "not implemented"); left out of the verdict' };
    }
    if (!learner || !solution) {
      return { ...base, ratio: null, ci95: null, pairing: null, passed: false, uncertain: false, reason: !learner ? 'your case did not pass its check or was not measured' : "the solution's case was not measured" };
    }
    // The seed text is frozen (case-identity.ts paramsSeedText): committed graded runs recompute only with it.
    const { ci95, pairing, ratio: estimate, best } = interval(solution, learner, `grade:${g.variant}:${paramsSeedText(g.params)}`);
    const ratio = estimate ?? median(solution.samplesMs) / median(learner.samplesMs);
    // A ratio no machine gives is flagged, never passed (plausibility.ts).
    const implausible = implausibleGradeRatio(ratio);
    if (implausible !== null) return { ...base, ratio, ci95, pairing, passed: false, uncertain: false, reason: implausible };
    // A whole interval below the target is a fail, however wide; only one that reaches the target can be too noisy.
    const noisy = ci95[1] < spec.target ? null : tooNoisyToGrade(ci95);
    if (noisy !== null) return { ...base, ratio, ci95, pairing, passed: false, uncertain: false, reason: noisy };
    const spread = noPairReached(best, spec.target, ci95);
    if (spread !== null) return { ...base, ratio, ci95, pairing, passed: false, uncertain: false, reason: spread };
    return { ...base, ratio, ci95, pairing, passed: ci95[1] >= spec.target, uncertain: ci95[0] < spec.target && ci95[1] >= spec.target, reason: null };
  });
  const graded = cases.filter((c) =>
    spec.cases.some((g) => sameCase(c, g) || copiesCase(c, g)),
  );
  return {
    target: spec.target,
    targetText: spec.targetText,
    entries,
    passed: entries.some((e) => !e.notAttempted) && entries.every((e) => e.passed || e.notAttempted === true),
    oversubscribed: graded.some((c) => c.oversubscribed),
  };
}

/**
 * The grade with every graded case that has an implausible speedup or scaling (plausibility.ts) failed: a case whose
 * efficiency says W workers did the work of more than 1.5 W was not measured doing the work (a cached input, a
 * forged clock), so its ratio to the solution is not a grade either (issue 42: 404 % efficiency on the graded case
 * passed). `flags` are plausibilityFlags of the run's speedups.
 */
export function gateImplausible(grade: Grade, flags: ReadonlyArray<PlausibilityFlag>): Grade {
  const entries = grade.entries.map((e) => {
    if (e.notAttempted) return e;
    const flag = flags.find((f) => f.kind !== 'grade' && f.variant === e.variant && sameParams(f.params as Params, e.params));
    if (!flag) return e;
    return { ...e, passed: false, uncertain: false, reason: `implausible: ${flag.message}; not graded as a pass (a cached answer or a forged clock?)` };
  });
  return { ...grade, entries, passed: entries.some((e) => !e.notAttempted) && entries.every((e) => e.passed || e.notAttempted === true) };
}
