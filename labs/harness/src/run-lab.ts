/**
 * One lab run, the stages in one readable sequence (as Criterion.rs's analysis does):
 * inputs -> check -> measure -> statistics -> environment -> results -> reports. No stage reaches back.
 */
import path from 'node:path';
import { ANALYSIS_FILE, writeAnalysis } from './lab-analysis.ts';
import { type AnalysisInput, analyzeRun, buildResults, caseLabel, type CorrectnessEntry, notImplementedCases, plausibilityFlags, type Results } from '@parallel-course/core';
import { cpuBudget, describeBudget } from './cpus.ts';
import { currentTopology, describeTopology, topologyWarnings } from './topology.ts';
import { slurmStepWarning } from './slurm-step.ts';
import { collectEnvironment } from './environment.ts';
import { EXIT_CHECK_FAILED, EXIT_OK, exitCodeForSignal, LabLoadError } from './errors.ts';
import { type Impl, type LabDefinition, type SamplingPlan } from './lab-definition.ts';
import { fingerprintReference } from './reference-fingerprint.ts';
import { labNames, loadLab, ROOT_DIR } from './lab-registry.ts';
import { measureGroups } from './measure.ts';
import { planLoadedLab, type LabPlan, type LabPlanOptions } from './plan-lab.ts';
import { createProgress } from './progress.ts';
import { writeReports, formatTerminalSummary } from './report/index.ts';
import { stdoutSummaryWidth } from './text-table.ts';
import { mismatchHint } from './mismatch-hint.ts';
import { prepareRunDir, removeIfEmpty, writeRunFolder } from './results-writer.ts';
import { runCases } from './run-cases.ts';
import type { LabInfo } from './run-protocol.ts';
import { supervise } from './supervisor.ts';
import type { SandboxLimits } from './os-sandbox.ts';

/** Bootstrap resamples per interval: 10,000 keeps the 2.5% and 97.5% percentiles stable to about 1%. */
export const BOOTSTRAP_RESAMPLES = 10_000;
export const DEFAULT_SEED = 20261202;

export interface RunLabOptions {
  lab: string;
  impl: Impl;
  quick: boolean;
  /** Parent folder of run folders; the run goes to `<outDir>/<lab>/<timestamp>/`. Default `<root>/results`. */
  outDir?: string;
  /** Overrides the lab's sampling plan (tests use a tiny one). */
  sampling?: SamplingPlan;
  seed?: number;
  /** No progress and no summary on the terminal (tests). */
  silent?: boolean;
  /** The command line to record in the results, for "the exact commands to reproduce". */
  command?: string;
  rootDir?: string;
  /** Multiplies every time limit of a call into lab code (tests shorten the limits; default 1). */
  limitScale?: number;
  /** Plan the sweep for this many CPUs (--cpus): see cpus.ts. Default: COURSE_CPUS, else the CPUs the job may use. */
  cpus?: number;
  /** `--grade`: measure the lab's graded cases of the reference solution beside these, and grade them (grade.ts). */
  grade?: boolean;
  /** `--trusted-code`: grade even where no OS sandbox can start (supervisor.ts). */
  trustedCode?: boolean;
  /** Overrides the sandbox's limits (os-sandbox.ts; tests use small ones). */
  limits?: Partial<SandboxLimits>;
}

export interface RunLabOutcome {
  exitCode: number;
  results: Results | null;
  runDir: string | null;
  correctness: CorrectnessEntry[];
  /** What the run printed as its summary (also written to stdout unless silent). */
  summary: string;
}

/** Formats the check stage's verdicts for the terminal, with the fix for each failure. */
export function formatCheckReport(entries: CorrectnessEntry[], lab: string, impl: Impl): string {
  const lines = ['Correctness check (every case against the reference, before any timing):'];
  for (const e of entries) {
    const label = caseLabel(e);
    if (e.passed) {
      const err = e.maxAbsError !== null ? `, max abs error ${e.maxAbsError.toExponential(2)}` : '';
      lines.push(`  ok    ${label} (${e.inputsChecked} inputs, ${e.comparator}${err})`);
    } else {
      lines.push(`  ${e.notImplemented ? 'TODO ' : 'FAIL '} ${label}: ${e.reason}`);
      const hint = e.notImplemented ? null : mismatchHint(e);
      if (hint !== null) lines.push(`        ${hint}`);
    }
  }
  if (entries.some((e) => e.notImplemented)) {
    lines.push(
      `Some variants are not implemented yet: write them in ${impl === 'exercise' ? `exercises/${lab}` : `solutions/${lab}`} ` +
        `(look for TODO(learner)), or run the reference solution with --impl solution.`,
    );
  }
  return lines.join('\n');
}

/** The run's plan from the loaded lab; null when the lab declares none or its calibration throws. */
function planOrNull(lab: LabDefinition<unknown, unknown>, options: LabPlanOptions): LabPlan | null {
  try {
    return planLoadedLab(lab, options);
  } catch {
    return null;
  }
}

/** What to say, and how to exit, when a signal ended the run. */
function interruptedOutcome(signal: NodeJS.Signals, lab: string, outRoot: string, command: string, correctness: CorrectnessEntry[]): RunLabOutcome {
  const summary =
    `Interrupted (${signal}): the lab's processes were stopped and no results were written for this run; ` +
    `earlier runs under ${path.join(outRoot, lab)} are untouched. Rerun with: ${command}`;
  return { exitCode: exitCodeForSignal(signal), results: null, runDir: null, correctness, summary };
}

export async function runLab(options: RunLabOptions): Promise<RunLabOutcome> {
  const rootDir = options.rootDir ?? ROOT_DIR;
  const outRoot = path.resolve(options.outDir ?? path.join(rootDir, 'results'));
  // The lab's definition, loaded once in this process (lab code only: the learner's modules are imported in the
  // runner's set-up, never here): the plan and the lab's own analysis use it. An unknown or broken lab fails here.
  const definition = await loadLab(options.lab, rootDir);
  // The run folder exists and takes a file before anything is measured; it is removed again if nothing is written.
  const startedAt = new Date();
  const runDir = prepareRunDir(outRoot, options.lab, startedAt);
  const progress = createProgress(!options.silent);
  const print = (text: string) => {
    if (!options.silent) process.stdout.write(`${text}\n`);
  };
  const seed = options.seed ?? DEFAULT_SEED;
  const command = options.command ?? `npm run lab -- ${options.lab} --impl ${options.impl}${options.quick ? ' --quick' : ''}`;
  const cpus = cpuBudget(options.cpus);
  const topology = currentTopology(undefined, cpus.affinity);
  // The machine as it was when the run started (its load average then says whether others were using it).
  const environment = await collectEnvironment(rootDir);
  // Before any learner code runs: what the grade will be a ratio to (validate and class compare it with the course's).
  const referenceSolution = options.grade ? fingerprintReference(rootDir, options.lab) : null;
  print(`${options.lab}: checking the ${options.impl} (${options.quick ? 'quick' : 'full'} run; ${describeBudget(cpus)})`);
  // An srun that did not pass --cpus-per-task (Slurm 22.05+) leaves the lab one CPU of a many-CPU job: say so first.
  const stepWarning = slurmStepWarning(cpus.available, process.env);
  if (stepWarning) print(`warning: ${stepWarning}`);

  // The plan (plan.ts): the run's time from each case's work and a calibration here, and fewer rounds (or optional
  // cases left out) when it would overrun its budget. A test's own sampling is never planned; a plan that cannot be
  // made (the lab's calibration throws) changes nothing: the runner reports that lab's problem as before.
  const plan = options.sampling ? null : planOrNull(definition, { lab: options.lab, impl: options.impl, quick: options.quick, p: cpus.p, seed, rootDir, rates: 'here', ...(options.grade ? { grade: true } : {}) });
  if (plan) print(plan.line);
  const sampling = options.sampling ?? plan?.sampling;

  // The run's declarations (its cases, headline, notes), from the lab loaded above: the runner computes the same.
  const job = { lab: options.lab, impl: options.impl, quick: options.quick, seed, rootDir, checkOnly: false, availableParallelism: cpus.p, ...(options.grade ? { grade: true } : {}), ...(sampling ? { sampling } : {}), ...(plan?.omit.length ? { omit: plan.omit } : {}) };
  let declared: LabInfo;
  try {
    // Without the lab's notes: they may load native code, which runs only in the runner (it sends them).
    declared = runCases(definition, job, { notes: false }).info;
  } catch (error) {
    removeIfEmpty(runDir);
    throw error;
  }

  // Stages 1 and 2, check and measure, in a supervised child process: learner code cannot block this one.
  let phase = '';
  const run = await supervise({
    job,
    lab: declared,
    forwardOutput: !options.silent,
    onProgress: (p) => {
      if (p.phase !== phase) {
        phase = p.phase;
        progress.stage(p.phase === 'check' ? `Checking ${p.total} cases against the reference...` : p.phase === 'warm-up' ? 'Measuring: warm-up, then interleaved rounds...' : '');
      }
      progress.update(p.done, p.total, p.label);
    },
    onEvent: (line) => {
      progress.stop();
      print(`stopped: ${line}`);
    },
    ...(options.limitScale !== undefined ? { limitScale: options.limitScale } : {}),
    ...(options.trustedCode ? { trustedCode: true } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  progress.stop();
  if (run.fatal) {
    removeIfEmpty(runDir);
    if (run.fatal.kind === 'usage') throw new LabLoadError(run.fatal.message);
    throw new Error(run.fatal.message);
  }
  const correctness = run.correctness;
  if (run.interrupted) {
    removeIfEmpty(runDir);
    const outcome = interruptedOutcome(run.interrupted, options.lab, outRoot, command, correctness);
    print(outcome.summary);
    return outcome;
  }
  const lab = run.lab!;
  for (const note of lab.notes) print(`note: ${note}`);
  print(formatCheckReport(correctness, lab.name, options.impl));

  const measuredCases = lab.cases.filter((c) => run.measured.has(c.key));
  if (!measuredCases.some((c) => c.variant === lab.baseline) || !measuredCases.some((c) => c.variant !== lab.baseline) || run.harnessOverheadMs === null) {
    removeIfEmpty(runDir);
    const summary = 'Nothing to measure: the baseline and at least one other variant must pass the check and be measured. No results were written.';
    print(summary);
    return { exitCode: EXIT_CHECK_FAILED, results: null, runDir: null, correctness, summary };
  }
  const analysisInputs: AnalysisInput[] = measuredCases.map((c) => {
    const m = run.measured.get(c.key)!;
    return {
      variant: c.variant,
      params: c.params,
      ...(c.workers !== undefined ? { workers: c.workers } : {}),
      samplesMs: m.samplesMs,
      sampleRounds: m.sampleRounds,
      workPerSample: m.workPerSample,
      sample: m.sample,
      observations: m.observations,
    };
  });

  // Stage 3: statistics. Stage 4: environment. Stage 5: results.
  progress.stage('Computing statistics (bootstrap intervals)...');
  const analysis = analyzeRun(analysisInputs, {
    baseline: lab.baseline,
    headline: lab.headline,
    seed,
    resamples: BOOTSTRAP_RESAMPLES,
    // Oversubscription is judged against the CPUs the job may really use, also when P was forced higher.
    availableParallelism: cpus.available,
    grading: lab.grading
      ? { ...lab.grading, notImplemented: notImplementedCases(correctness) }
      : null,
  });
  const notes: string[] = [describeBudget(cpus), ...(stepWarning ? [stepWarning] : []), `Topology: ${describeTopology(topology)}.`, ...(plan ? [plan.note] : []), ...lab.notes, ...run.notes];
  notes.push(...topologyWarnings(topology, Math.max(0, ...measuredCases.map((c) => c.workers ?? 0))));
  if (analysis.cases.some((c) => c.oversubscribed)) {
    notes.push(`Cases with more workers than available CPUs (${cpus.available}) are flagged oversubscribed: their speedup is limited by time-slicing.`);
  }
  const groupNames = measureGroups(measuredCases.map((c) => c.measureGroup)).map(
    (members) => measuredCases[members[0] as number]?.measureGroup ?? 'the other cases',
  );
  if (groupNames.length > 1) {
    notes.push(
      `Measured in ${groupNames.length} groups, one after another (${groupNames.join(', then ')}), with a full garbage ` +
        'collection between them; cases are interleaved within a group only.',
    );
  }
  if (analysis.grade && (cpus.forced || analysis.grade.oversubscribed)) {
    notes.push(`The grade was measured with ${cpus.forced ? `P forced to ${cpus.p}` : ''}${cpus.forced && analysis.grade.oversubscribed ? ' and ' : ''}${analysis.grade.oversubscribed ? 'graded cases oversubscribed' : ''}: the learner's and the reference's code shared the same CPUs, but the ratio is not what the node would give.`);
  }
  // Ratios no machine gives: flagged in the results and every report (plausibility.ts); such a grade does not pass.
  for (const flag of plausibilityFlags({ cpus, speedups: analysis.speedups, grade: analysis.grade })) notes.push(`Implausible, not a measurement: ${flag.message}.`);
  const failedWhileMeasured = correctness.filter((e) => e.failedAt && e.failedAt.stage !== 'check' && e.failedAt.stage !== 'setup');
  if (failedWhileMeasured.length > 0) {
    notes.push(`${failedWhileMeasured.length} case(s) failed after passing the check and are not charted: ${failedWhileMeasured.map((e) => caseLabel(e)).join(', ')}.`);
  }
  const results = buildResults(
    {
      lab: lab.name,
      title: lab.title,
      impl: options.impl,
      quick: options.quick,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command,
      baseline: lab.baseline,
      sweeps: lab.sweeps,
      seed,
      bootstrapResamples: BOOTSTRAP_RESAMPLES,
      // The plan every case was measured with (the supervisor held the runner to it): validate checks the samples by it.
      sampling: { warmupSamples: lab.plan.warmupSamples, rounds: lab.plan.rounds, samplesPerRound: lab.plan.samplesPerRound },
      harnessOverheadMs: run.harnessOverheadMs,
      environment,
      cpus,
      topology,
      correctness,
      ...(referenceSolution ? { referenceSolution } : {}),
      notes,
    },
    analysis,
  );
  // Stage 6: results and reports, fed the same validated results; if the folder failed us after all, a temporary one.
  progress.stage('Writing reports...');
  const written = await writeRunFolder(runDir, results, (dir) => writeReports(results, dir));
  if (written.fellBack) print(`warning: could not write to ${runDir} (${written.problem}); the results are in ${written.dir} instead.`);

  // Stage 7: the lab's own analysis, from the results alone (the same as `npm run analyse -- <run folder>`).
  // The same loaded definition and the results value: nothing is loaded or read back from the folder just written.
  let analysisLine: string | null = null;
  try {
    const analysis = definition.analyse ? await definition.analyse(results) : null;
    if (analysis) analysisLine = `Analysis: ${path.join(writeAnalysis(written.dir, analysis, results).dir, ANALYSIS_FILE)}`;
  } catch (error) {
    analysisLine = `Analysis: the lab's analysis failed (${(error as Error).message}); the results are kept. Retry with: npm run analyse -- ${written.dir}`;
  }
  const summary = [
    formatTerminalSummary(results, { width: stdoutSummaryWidth() }),
    '',
    `Results: ${path.join(written.dir, 'results.json')}`,
    `Report:  ${written.reports.html}`,
    `         ${written.reports.markdown}`,
    ...(analysisLine ? [analysisLine] : []),
  ].join('\n');
  print(summary);
  const anyFailed = correctness.some((e) => !e.passed) || (results.grade !== null && !results.grade.passed);
  return { exitCode: anyFailed ? EXIT_CHECK_FAILED : EXIT_OK, results, runDir: written.dir, correctness, summary };
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
 * Stage 1 alone, for `--watch` and `--status`: inputs, reference outputs and the correctness check of every case,
 * then teardown, supervised like a run. Nothing is measured and nothing is written. Uses the quick sweep.
 */
export async function checkLab(options: CheckLabOptions): Promise<CheckLabOutcome> {
  const started = performance.now();
  const rootDir = options.rootDir ?? ROOT_DIR;
  // Lab code only, as in runLab; the learner's code is imported in the runner's set-up, a fresh process per check.
  const job = { lab: options.lab, impl: options.impl, quick: true, seed: options.seed ?? DEFAULT_SEED, rootDir, checkOnly: true, availableParallelism: cpuBudget(options.cpus).p };
  const run = await supervise({
    job,
    lab: runCases(await loadLab(options.lab, rootDir), job, { notes: false }).info,
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
