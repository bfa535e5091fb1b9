/**
 * The plan of one lab run (plan.ts), for `npm run lab` before it starts the runner and for `npm run plan`: loads the
 * lab's definition (lab code only; the learner's modules are imported in set-up, never here), calibrates it on this
 * machine or takes the course machine's rates, and fits the plan to the run's budget.
 */
import path from 'node:path';
import { formatSignificant } from '@parallel-course/core';
import type { Calibration, Impl, LabContext, LabDefinition, SamplingPlan } from '../lab-definition.ts';
import { loadLab } from '../lab-registry.ts';
import { describeFit, describeReduction, fitToBudget, formatDuration, planRun, COURSE_MACHINE, RUN_BUDGET_MS, type RunFit } from './plan.ts';

export interface LabPlanOptions {
  lab: string;
  impl: Impl;
  quick: boolean;
  /** The CPU count to plan for (cpus.ts: P). */
  p: number;
  seed: number;
  rootDir: string;
  grade?: boolean;
  /** A graded run's process pairs (RunJob.forks); default run-cases.ts GRADE_FORKS. */
  forks?: number;
  /** 'here': the lab's calibration on this machine (a run); 'course': the course machine's rates (the table). */
  rates: 'here' | 'course';
}

export interface LabPlan {
  fit: RunFit;
  /** The sampling to run: the lab's own, or fewer rounds. */
  sampling: SamplingPlan;
  /** Keys of the cases left out (RunJob.omit). */
  omit: string[];
  /** What `npm run lab` prints before the check (one line). */
  line: string;
  /** What the results' `notes` record. */
  note: string;
}

/** The context the runner will give the lab's cases (runner.ts builds the same). */
export function planContext(options: LabPlanOptions): LabContext {
  return {
    impl: options.impl,
    implDir: path.join(options.rootDir, options.impl === 'exercise' ? 'exercises' : 'solutions', options.lab),
    rootDir: options.rootDir,
    quick: options.quick,
    availableParallelism: options.p,
    seed: options.seed,
  };
}

/** The rates to plan with: measured here, or the course machine's. */
function ratesFor(lab: LabDefinition<unknown, unknown>, rates: LabPlanOptions['rates']): Calibration {
  if (!lab.planning) return {};
  return rates === 'here' ? lab.planning.calibrate() : lab.planning.courseMachine;
}

/** Plans a loaded lab; null when the lab declares no planning (its runs go as before). */
export function planLoadedLab(lab: LabDefinition<unknown, unknown>, options: LabPlanOptions): LabPlan | null {
  if (!lab.planning) return null;
  const ctx = planContext(options);
  const sampling = options.quick ? lab.sampling.quick : lab.sampling.full;
  const calibration = ratesFor(lab, options.rates);
  const fit = fitToBudget(planRun(lab, ctx, sampling, calibration, options.grade ? { grade: true, ...(options.forks !== undefined ? { forks: options.forks } : {}) } : {}), options.quick ? RUN_BUDGET_MS.quick : RUN_BUDGET_MS.full);
  const rates = Object.entries(calibration)
    .map(([name, value]) => `${name} = ${formatSignificant(value)}`)
    .join(', ');
  const source = options.rates === 'course' ? `the rates of ${COURSE_MACHINE}` : rates ? `rates calibrated on this machine: ${rates}` : "the lab's estimates";
  const reduction = describeReduction(fit);
  return {
    fit,
    sampling: fit.plan.sampling,
    omit: fit.omitted.map((c) => c.key),
    line: describeFit(fit),
    note:
      `Planned run time: about ${formatDuration(fit.plan.totalMs)} for ${fit.plan.cases.length} cases at P = ${options.p} ` +
      `(from each case's work per sample and ${source})${reduction ? `; ${reduction}` : ''}.`,
  };
}

/** Loads and plans a lab; null when it declares no planning. */
export async function planLab(options: LabPlanOptions): Promise<LabPlan | null> {
  return planLoadedLab(await loadLab(options.lab, options.rootDir), options);
}
