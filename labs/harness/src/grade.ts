/**
 * `--grade`: the learner's graded cases against the reference solution's same cases, measured interleaved in one
 * run on one machine. A grade entry is the ratio median(reference time) / median(learner time) (1 = as fast as the
 * reference; 0.5 = half its throughput) with its 95% interval, paired by round like every speedup, against the lab's
 * target. It fails only when the measurement shows the code is slower than the target: the whole interval below it.
 * The benefit of the doubt goes to the learner, so the reference graded against itself passes on a noisy machine;
 * `uncertain` says the interval straddles the target (a full run, or a quieter machine, narrows it). A pure function of the samples, so
 * `report -- validate` recomputes it and a hand-edited grade is caught.
 */
import type { AnalysisInput } from './analysis.ts';
import { paramsKey, type Headline } from './lab-definition.ts';
import type { CaseResult, Grade, Params } from './results-schema.ts';
import { median } from './statistics.ts';

/** The param and value that mark the reference solution's copy of a graded case (runner.ts adds them). */
export const REFERENCE_PARAM = 'impl';
export const REFERENCE = 'reference';

export interface GradingSpec {
  cases: Headline[];
  target: number;
  targetText: string;
}

type Interval = (reference: AnalysisInput, learner: AnalysisInput, key: string) => { ci95: [number, number]; pairing: 'rounds' | 'independent' };

/** The reference copy's params of a learner case's params. */
export function referenceParams(params: Params): Params {
  return { ...params, [REFERENCE_PARAM]: REFERENCE };
}

export function gradeCases(inputs: AnalysisInput[], cases: CaseResult[], spec: GradingSpec, interval: Interval): Grade {
  const find = (variant: string, params: Params) => inputs.find((i) => i.variant === variant && paramsKey(i.params) === paramsKey(params));
  const entries: Grade['entries'] = spec.cases.map((g) => {
    const learner = find(g.variant, g.params);
    const reference = find(g.variant, referenceParams(g.params));
    const base = { variant: g.variant, params: g.params };
    if (!learner || !reference) {
      return { ...base, ratio: null, ci95: null, pairing: null, passed: false, uncertain: false, reason: !learner ? 'your case did not pass its check or was not measured' : "the reference solution's case was not measured" };
    }
    const ratio = median(reference.samplesMs) / median(learner.samplesMs);
    const { ci95, pairing } = interval(reference, learner, `grade:${g.variant}:${paramsKey(g.params)}`);
    return { ...base, ratio, ci95, pairing, passed: ci95[1] >= spec.target, uncertain: ci95[0] < spec.target && ci95[1] >= spec.target, reason: null };
  });
  const graded = cases.filter((c) =>
    spec.cases.some((g) => g.variant === c.variant && (paramsKey(c.params) === paramsKey(g.params) || paramsKey(c.params) === paramsKey(referenceParams(g.params)))),
  );
  return {
    target: spec.target,
    targetText: spec.targetText,
    entries,
    passed: entries.length > 0 && entries.every((e) => e.passed),
    oversubscribed: graded.some((c) => c.oversubscribed),
  };
}
