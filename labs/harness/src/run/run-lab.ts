/**
 * One lab run: a flight of stages, each in its own file under run/, in one readable sequence (as Criterion.rs's
 * analysis does). The run's data goes down them and never climbs back to a stage it left:
 *
 *   run/open.ts               inputs: the lab, --out checked, the CPUs, the machine, the solution's fingerprint
 *   run/declare.ts            the plan and the run's declarations (cases, headline)
 *   run/check-and-measure.ts  check, then measure, in a supervised child process (supervisor.ts)
 *   run/results.ts            statistics and notes, then one Results (the core's analyzeRun and buildResults)
 *   run/write.ts              the run folder, made now: results.json, the reports, the lab's own analysis; the summary
 *   run/interrupt.ts          a signal during the last two stages: this run's folder removed, and a line saying so
 *
 * Nothing of the run exists on disk before the write stage, so a run that ends earlier (a failed check, a signal
 * while measuring, an error) has nothing to take back.
 *
 * checkLab, below, is the check stage alone (--watch and --status).
 */
import type { CorrectnessEntry } from '@parallel-course/core';
import { cpuBudget } from '../machine/cpus.ts';
import { EXIT_CHECK_FAILED, EXIT_OK, LabLoadError } from '../errors.ts';
import type { Impl } from '../lab-definition.ts';
import { loadLab, ROOT_DIR } from '../lab-registry.ts';
import { runCases } from '../measure/run-cases.ts';
import { supervise } from '../supervise/supervisor.ts';
import { checkAndMeasure } from './check-and-measure.ts';
import { formatCheckReport } from './check-report.ts';
import { declareRun } from './declare.ts';
import { DEFAULT_SEED, openRun, type RunLabOptions, type RunLabOutcome } from './open.ts';
import { resultsOf } from './results.ts';
import { guardLastStages } from './interrupt.ts';
import { writeRun } from './write.ts';

export { DEFAULT_SEED, type RunLabOptions, type RunLabOutcome } from './open.ts';
export { BOOTSTRAP_RESAMPLES } from './results.ts';
export { formatCheckReport } from './check-report.ts';

export async function runLab(options: RunLabOptions): Promise<RunLabOutcome> {
  const start = await openRun(options);
  const declared = declareRun(start);
  const measured = await checkAndMeasure(start, declared);
  if ('outcome' in measured) return measured.outcome; // interrupted while measuring: nothing to write
  // From here to the written run, a signal removes what this run wrote and says so (run/interrupt.ts).
  const guard = guardLastStages(start);
  try {
    const built = resultsOf(start, declared, measured.run);
    if ('outcome' in built) return built.outcome; // nothing to compare: nothing is written
    return await writeRun(start, built.results, guard);
  } finally {
    guard.lift();
  }
}

export interface CheckLabOptions {
  lab: string;
  impl: Impl;
  seed?: number;
  rootDir?: string;
  /** Multiplies every time limit of a call into lab code (tests shorten the limits; default 1). */
  limitScale?: number;
  /** Check the sweep planned for this many CPUs, as runLab's `cpus`. Default: COURSE_CPUS, else the CPUs the job may use. */
  cpus?: number;
  /** Stops the check (its runner process group) early: --watch closing. The outcome then counts as failed. */
  stop?: AbortSignal;
}

export interface CheckLabOutcome {
  /** EXIT_OK when every case passed, EXIT_CHECK_FAILED otherwise. */
  exitCode: number;
  lab: string;
  impl: Impl;
  correctness: CorrectnessEntry[];
  /** The check report as runLab prints it, with the fix for each failure. */
  report: string;
  /** Wall time of inputs + check + teardown, in ms. */
  elapsedMs: number;
}

/**
 * Stage 1 alone, for `--watch` and `--status`: inputs, expected outputs and the correctness check of every case,
 * then teardown, supervised like a run. Nothing is measured and nothing is written. Uses the quick sweep.
 */
export async function checkLab(options: CheckLabOptions): Promise<CheckLabOutcome> {
  const started = performance.now();
  const rootDir = options.rootDir ?? ROOT_DIR;
  // Lab code only, as in runLab; the learner's code is imported in the runner's set-up, a fresh process per check.
  const job = { lab: options.lab, impl: options.impl, quick: true, seed: options.seed ?? DEFAULT_SEED, rootDir, checkOnly: true, availableParallelism: cpuBudget(options.cpus).p };
  const run = await supervise({
    job,
    cases: runCases(await loadLab(options.lab, rootDir), job, { notes: false }),
    ...(options.limitScale !== undefined ? { limitScale: options.limitScale } : {}),
    ...(options.stop ? { stop: options.stop } : {}),
  });
  if (run.fatal) {
    if (run.fatal.kind === 'usage') throw new LabLoadError(run.fatal.message);
    throw new Error(run.fatal.message);
  }
  const correctness = run.correctness;
  return {
    exitCode: correctness.length > 0 && correctness.every((e) => e.passed) && !run.interrupted ? EXIT_OK : EXIT_CHECK_FAILED,
    lab: options.lab,
    impl: options.impl,
    correctness,
    report: formatCheckReport(correctness, options.lab, options.impl),
    elapsedMs: performance.now() - started,
  };
}
