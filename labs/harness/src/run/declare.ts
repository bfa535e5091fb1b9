/**
 * A run's second stage, its declarations: the plan (the run's time from each case's work and a calibration here, with
 * fewer rounds or optional cases left out when it would overrun its budget) and the cases, built once here from the
 * lab's definition, with the headline and notes the runner will compute the same way from the same lab.
 * In: RunStart. Out: DeclaredRun (the plan, the runner's job, the cases).
 */
import { planLoadedLab, type LabPlan } from '../plan/plan-lab.ts';
import { runCases, type RunCases } from '../measure/run-cases.ts';
import type { SuperviseOptions } from '../supervise/supervisor.ts';
import type { RunStart } from './open.ts';

export interface DeclaredRun {
  /** Null for a test's own sampling (never planned) and for a lab whose calibration throws (the runner reports it). */
  plan: LabPlan | null;
  job: SuperviseOptions['job'];
  /** The run's cases, computed once here and handed on: the supervisor checks and measures against them. */
  cases: RunCases;
}

export function declareRun(start: RunStart): DeclaredRun {
  const { options, cpus, seed, rootDir, definition } = start;
  const grade = options.grade ? { grade: true } : {};
  let plan: LabPlan | null = null;
  if (!options.sampling) {
    try {
      plan = planLoadedLab(definition, { lab: options.lab, impl: options.impl, quick: options.quick, p: cpus.p, seed, rootDir, rates: 'here', ...grade, ...(options.forks !== undefined ? { forks: options.forks } : {}) });
    } catch {
      plan = null; // a plan that cannot be made changes nothing: the runner reports that lab's problem as before
    }
  }
  if (plan) start.print(plan.line);
  const sampling = options.sampling ?? plan?.sampling;
  const job = {
    lab: options.lab, impl: options.impl, quick: options.quick, seed, rootDir, checkOnly: false, availableParallelism: cpus.p,
    ...grade, ...(options.grade && options.forks !== undefined ? { forks: options.forks } : {}),
    ...(sampling ? { sampling } : {}), ...(plan?.omit.length ? { omit: plan.omit } : {}),
  };
  // Without the lab's notes: they may load native code, which runs only in the runner (it sends them).
  return { plan, job, cases: runCases(definition, job, { notes: false }) };
}
