/**
 * A run's declarations, from the lab's definition and the job: its context, its case list (the plan's omissions
 * gone, the solution's copies of graded cases added) and what the supervisor needs to know of each case. Computed
 * from the lab code alone (`lab.cases()` starts nothing and imports no learner code), so the judge's process and the
 * runner each compute them from their own load of the lab, and nothing about them crosses the process boundary. In
 * the judge's process they are computed once (run/declare.ts) and handed to the supervisor, which checks and measures
 * the runners' outputs against them.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { LabLoadError, UsageError } from '../errors.ts';
import { caseKey, isSolutionCopy, paramsKey, solutionCopyParams } from '@parallel-course/core';
import { resolveHeadline, type CaseDefinition, type LabContext, type LabDefinition, type SamplingPlan, type VariantInfo } from '../lab-definition.ts';
import { type CaseInfo, type LabInfo, type RunJob, type RunnerSide } from './run-protocol.ts';

/** The learner's file behind a variant, from its `source` line: `<impl>/schedule.ts: runInChunks` -> `exercises/<lab>/schedule.ts`. */
export function learnerFileOf(info: VariantInfo | undefined, lab: string, impl: RunJob['impl']): string | null {
  if (!info) return null;
  const implDir = `${impl === 'exercise' ? 'exercises' : 'solutions'}/${lab}`;
  const files = info.source.split(/[,+]/).map((part) => part.trim().split(':')[0]?.trim() ?? '').filter(Boolean);
  const learner = files.find((f) => f.startsWith('<impl>/'));
  return (learner ?? files[0] ?? null)?.replace('<impl>', implDir) ?? null;
}

/** What this job grades, or null; a lab that declares nothing to grade cannot be graded. */
function gradingOf(lab: LabDefinition<unknown, unknown>, job: RunCasesJob, ctx: LabContext): LabInfo['grading'] {
  if (!job.grade) return null;
  if (!lab.grading) throw new LabLoadError(`the ${lab.name} lab declares nothing to grade (no 'grading' in labs/${lab.name}/src/lab.ts)`);
  return { cases: lab.grading.cases(ctx), target: lab.grading.target, targetText: lab.grading.targetText };
}

/**
 * The solution's copies of the graded cases: the same variant and params plus `impl: 'solution'`, set up
 * from solutions/<lab>, so they are checked, measured and interleaved with the learner's cases like any other case.
 */
function solutionCopies(lab: LabDefinition<unknown, unknown>, job: RunCasesJob, ctx: LabContext, grading: LabInfo['grading']): CaseDefinition<unknown, unknown>[] {
  if (!grading) return [];
  const solutionCtx: LabContext = { ...ctx, impl: 'solution', implDir: path.join(job.rootDir, 'solutions', lab.name) };
  const graded = new Set(grading.cases.map((g) => caseKey(g)));
  return lab
    .cases(solutionCtx)
    .filter((d) => graded.has(caseKey(d)))
    .map((d) => ({ ...d, params: solutionCopyParams(d.params), setup: () => d.setup(solutionCtx) }));
}

/**
 * Which runner of a graded run sets up a case (run-protocol.ts RunnerSide): the solution's copies the solution's, the
 * learner's graded cases (`graded`, the grading's case keys) a runner of their own that mirrors the solution's, every
 * other case the learner's. The two graded runners then hold and do the same things, case for case in the same order,
 * and differ only in whose code they run: a runner that also ran every other case of the lab (its inputs, its heap,
 * the caches they leave) read the solution graded against itself 10-15% off 1, in either direction (issue 42).
 */
export function runnerSideOf(definition: Pick<CaseDefinition<unknown, unknown>, 'variant' | 'params'>, graded: ReadonlySet<string>): RunnerSide {
  if (isSolutionCopy(definition.params)) return 'solution';
  return graded.has(caseKey(definition)) ? 'graded' : 'learner';
}

/**
 * A graded run's process pairs (JMH's forks, and its default count): fork i of the learner's graded cases' runner and
 * fork i of the solution's, each a fresh process, so 1 + 2 x GRADE_FORKS runners. Why: two fresh processes running
 * the same code differed by about 6% (issue 42, session 19: between-pair sd of the log ratio 0.057 against 0.019
 * within a pair), and once in four quiet runs one process read 2.7x slow for its whole life; a grade from one process
 * a side cannot show either in its interval. With 5 a side, one such process is one fork in five, its rounds a fifth
 * of the pair's, and the grade's interval can resample processes (forkstats). More cost start, check and warm-up of
 * two more processes each (plan.ts); fewer leave an interval over processes with too few to resample.
 */
export const GRADE_FORKS = 5;

/** The most forks a job may ask for: each is two more runners, and the results' process index stops at 999. */
export const MAX_FORKS = 100;

/** A graded job's forks (RunJob.forks, tests pass fewer; default GRADE_FORKS); 1 for a practice run. */
export function gradeForks(job: Pick<RunJob, 'grade' | 'forks'>): number {
  if (job.grade !== true) return 1;
  const forks = job.forks ?? GRADE_FORKS;
  if (!Number.isInteger(forks) || forks < 1 || forks > MAX_FORKS) {
    throw new UsageError(`forks must be a whole number of process pairs from 1 to ${MAX_FORKS} (default ${GRADE_FORKS}); got ${String(forks)}`);
  }
  return forks;
}

/**
 * A graded run's sampling: the plan's rounds raised to its forks where fewer (native-kernel's quick plan has 3), so
 * every fork of a graded pair gets a round; the whole run's, since a results file records one plan for every case
 * (validate checks each case's rounds by it).
 */
export function gradedSampling(plan: SamplingPlan, forks: number): SamplingPlan {
  return plan.rounds >= forks ? plan : { ...plan, rounds: forks };
}

/** The case keys a run grades (its grading's cases), the set runnerSideOf takes. */
export function gradedKeys(info: Pick<LabInfo, 'grading'>): ReadonlySet<string> {
  return new Set((info.grading?.cases ?? []).map((g) => caseKey(g)));
}

export type RunCasesJob = Omit<RunJob, 'exclude' | 'checkOnly'>;

export interface RunCases {
  /** The lab's definition the cases came from (lab code only). */
  definition: LabDefinition<unknown, unknown>;
  ctx: LabContext;
  info: LabInfo;
  /** Every case of the run, in the lab's order, the solution's copies last (before any exclusion after a restart). */
  definitions: CaseDefinition<unknown, unknown>[];
}

export interface RunCasesOptions {
  /**
   * Call the lab's `notes()` (default true). The supervisor passes false: a lab's notes may load the learner's native
   * build (native-kernel's peak note asks exercise_march.node for its vector width), and native code is never loaded
   * in the supervisor; the runner computes them and sends them (run-protocol.ts `notes`).
   */
  notes?: boolean;
}

/** The run's declarations; throws LabLoadError for a missing impl folder or a --grade of a lab with nothing to grade. */
export function runCases(lab: LabDefinition<unknown, unknown>, job: RunCasesJob, options: RunCasesOptions = {}): RunCases {
  const implRel = path.join(job.impl === 'exercise' ? 'exercises' : 'solutions', lab.name);
  const implDir = path.join(job.rootDir, implRel);
  if (!existsSync(implDir)) throw new LabLoadError(`${implRel} is missing: restore it with 'git checkout -- ${implRel}'`);
  const ctx: LabContext = {
    impl: job.impl,
    implDir,
    rootDir: job.rootDir,
    quick: job.quick,
    availableParallelism: job.availableParallelism,
    seed: job.seed,
  };
  const grading = gradingOf(lab, job, ctx);
  const omitted = new Set(job.omit ?? []);
  const planned = lab.cases(ctx).filter((d) => !omitted.has(caseKey(d)));
  const definitions = [...planned, ...solutionCopies(lab, job, ctx, grading)];
  const variants = new Map(lab.variants.map((v) => [v.name, v]));
  const cases: CaseInfo[] = definitions.map((d) => ({
    key: caseKey(d),
    variant: d.variant,
    params: d.params,
    ...(d.workers !== undefined ? { workers: d.workers } : {}),
    ...(d.measureGroup !== undefined ? { measureGroup: d.measureGroup } : {}),
    learnerFile: learnerFileOf(variants.get(d.variant), lab.name, isSolutionCopy(d.params) ? 'solution' : job.impl),
    inputKey: paramsKey(d.params, lab.inputParams),
  }));
  const info: LabInfo = {
    name: lab.name,
    title: lab.title,
    baseline: lab.baseline,
    sweeps: lab.sweeps,
    headline: resolveHeadline(lab.headline, ctx),
    notes: options.notes === false ? [] : (lab.notes?.(ctx) ?? []),
    memoryBytes: lab.memoryBytes?.(ctx) ?? null,
    solutionBuildOutputs: job.grade ? (lab.solutionBuildOutputs?.(ctx) ?? []) : [],
    cases,
    plan: gradedSampling(job.sampling ?? (job.quick ? lab.sampling.quick : lab.sampling.full), gradeForks(job)),
    grading,
  };
  return { definition: lab, ctx, info, definitions };
}
