/**
 * A run's fourth stage: statistics (the core's analyzeRun, bootstrap intervals), the notes, and one `Results` from the
 * core's buildResults, the same as the in-page lab's.
 * In: RunStart, DeclaredRun, the supervised run. Out: Results, or the outcome (its summary printed) when there is
 * nothing to compare.
 */
import { analyzeRun, buildResults, notImplementedCases, type AnalysisInput, type Results } from '@parallel-course/core';
import { EXIT_CHECK_FAILED } from '../errors.ts';
import type { SupervisedRun } from '../supervise/supervisor.ts';
import type { DeclaredRun } from './declare.ts';
import type { RunLabOutcome, RunStart } from './open.ts';
import { runNotes } from './run-notes.ts';

/** Bootstrap resamples per interval: 10,000 keeps the 2.5% and 97.5% percentiles stable to about 1%. */
export const BOOTSTRAP_RESAMPLES = 10_000;

export function resultsOf(start: RunStart, declared: DeclaredRun, run: SupervisedRun): { results: Results } | { outcome: RunLabOutcome } {
  const { lab, correctness } = run;
  const measuredCases = lab.cases.filter((c) => run.measured.has(c.key));
  if (!measuredCases.some((c) => c.variant === lab.baseline) || !measuredCases.some((c) => c.variant !== lab.baseline) || run.harnessOverheadMs === null) {
    const summary = 'Nothing to measure: the baseline and at least one other variant must pass the check and be measured. No results were written.';
    start.print(summary);
    return { outcome: { exitCode: EXIT_CHECK_FAILED, results: null, runDir: null, correctness, summary } };
  }
  const inputs: AnalysisInput[] = measuredCases.map((c) => {
    const m = run.measured.get(c.key)!;
    const { samplesMs, sampleRounds, sampleProcesses, callsPerSample, workPerSample, sample, observations } = m;
    return {
      variant: c.variant, params: c.params, ...(c.workers !== undefined ? { workers: c.workers } : {}), samplesMs, sampleRounds,
      ...(sampleProcesses !== undefined ? { sampleProcesses } : {}), callsPerSample, workPerSample, sample, observations,
    };
  });
  start.progress.stage('Computing statistics (bootstrap intervals)...');
  const { options, seed, cpus } = start;
  const analysis = analyzeRun(inputs, {
    baseline: lab.baseline,
    headline: lab.headline,
    seed,
    resamples: BOOTSTRAP_RESAMPLES,
    // Oversubscription is judged against the CPUs the job may really use, also when P was forced higher.
    availableParallelism: cpus.available,
    grading: lab.grading ? { ...lab.grading, notImplemented: notImplementedCases(correctness) } : null,
  });
  const notes = runNotes(start, declared, run, measuredCases, analysis);
  const { plan } = lab;
  const record = {
    lab: lab.name, title: lab.title, impl: options.impl, quick: options.quick,
    startedAt: start.startedAt.toISOString(), finishedAt: new Date().toISOString(), command: start.command,
    baseline: lab.baseline, sweeps: lab.sweeps, seed, bootstrapResamples: BOOTSTRAP_RESAMPLES,
    // The plan every case was measured with (the supervisor held the runner to it): validate checks the samples by it.
    sampling: { warmupSamples: plan.warmupSamples, rounds: plan.rounds, samplesPerRound: plan.samplesPerRound },
    harnessOverheadMs: run.harnessOverheadMs,
    environment: start.environment, cpus, topology: start.topology, correctness,
    ...(start.solutionFingerprint ? { solutionFingerprint: start.solutionFingerprint } : {}),
    notes,
  };
  return { results: buildResults(record, analysis) };
}
