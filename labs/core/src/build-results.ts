/**
 * The results stage, the top floor of the core: one run's measured samples and its record (what ran, where, when)
 * in, one `Results` out. Both producers of a results file use it, the harness (labs/harness/src/run/results.ts) and the
 * in-page lab (site/src/browser-lab/runner.ts), so the two write the same file the same way:
 *
 *   analyzeRun(inputs, options)    statistics (analysis.ts), then the grade of a `--grade` run (grade.ts)
 *   buildResults(record, analysis) the results object, stamped with SCHEMA_VERSION
 *
 * The instructor's validator (validate.ts) recomputes a file with the same analyzeRun.
 */
import { analyze, caseRatioInterval, type Analysis, type AnalysisInput, type AnalysisOptions } from './analysis.ts';
import { gateImplausible, gradeCases, type GradeInterval, type GradingSpec } from './grade.ts';
import { plausibilityFlags } from './plausibility.ts';
import { SCHEMA_VERSION, type Grade, type Results } from './results-schema.ts';
import { processRatioInterval, sameProcessCells } from './statistics.ts';

export interface RunAnalysisOptions extends AnalysisOptions {
  /** `--grade`: the graded cases and the target (grade.ts); absent or null for a plain run. */
  grading?: GradingSpec | null;
}

/** The analysis of one run: cases, speedups, Amdahl fits, the headline and, for a `--grade` run, the grade. */
export interface RunAnalysis extends Analysis {
  grade: Grade | null;
}

/**
 * A graded case's ratio and interval: over pairs of processes where both sides carry their samples' processes, at least
 * 2, in the same (process, round) cells of one measure group (a graded run's forks; statistics/processes.ts, no random
 * numbers); otherwise resampled as the run's speedups are (caseRatioInterval: pairing, seed derivation, resamples),
 * the ratio median / median. A file without sampleProcesses recomputes exactly as before they existed.
 */
export function gradeRatioInterval(run: { seed: number; bootstrapResamples: number }): GradeInterval {
  return (solution, learner, key) => {
    const { sampleProcesses: sp, sampleRounds: sr } = solution;
    const { sampleProcesses: lp, sampleRounds: lr } = learner;
    if (sp && sr && lp && lr && solution.measureGroup === learner.measureGroup) {
      const s = { samplesMs: solution.samplesMs, sampleRounds: sr, sampleProcesses: sp };
      const l = { samplesMs: learner.samplesMs, sampleRounds: lr, sampleProcesses: lp };
      if (sameProcessCells(s, l)) {
        const { ratio, ci95, best } = processRatioInterval(s, l);
        return { ratio, ci95, pairing: 'processes', best };
      }
    }
    return caseRatioInterval(run, solution, learner, key);
  };
}

/** Statistics, then the grade: every computed field of results.json from the samples, the seed and the declarations. */
export function analyzeRun(inputs: AnalysisInput[], options: RunAnalysisOptions): RunAnalysis {
  const analysis = analyze(inputs, options);
  const run = { seed: options.seed, bootstrapResamples: options.resamples };
  // Over pairs of processes where the run forked, else resampled exactly as the run's speedups are.
  const graded = options.grading ? gradeCases(inputs, analysis.cases, options.grading, gradeRatioInterval(run)) : null;
  // An implausible speedup of a graded case fails its grade (plausibility.ts).
  const grade = graded ? gateImplausible(graded, plausibilityFlags({ cpus: { available: options.availableParallelism }, speedups: analysis.speedups, grade: null })) : null;
  return { ...analysis, grade };
}

/** What a producer records about a run besides its analysis: every field of results.json that is not computed. */
export type RunRecord = Omit<Results, 'schemaVersion' | keyof RunAnalysis>;

/** The results of one run: its record and its analysis, in the schema's field order, at the current SCHEMA_VERSION. */
export function buildResults(record: RunRecord, analysis: RunAnalysis): Results {
  const { solutionFingerprint, notes, runtime, sampling, ...rest } = record;
  return {
    schemaVersion: SCHEMA_VERSION,
    lab: rest.lab,
    ...(runtime !== undefined ? { runtime } : {}),
    title: rest.title,
    impl: rest.impl,
    quick: rest.quick,
    startedAt: rest.startedAt,
    finishedAt: rest.finishedAt,
    command: rest.command,
    baseline: rest.baseline,
    sweeps: rest.sweeps,
    seed: rest.seed,
    bootstrapResamples: rest.bootstrapResamples,
    ...(sampling !== undefined ? { sampling } : {}),
    harnessOverheadMs: rest.harnessOverheadMs,
    environment: rest.environment,
    cpus: rest.cpus,
    topology: rest.topology,
    correctness: rest.correctness,
    cases: analysis.cases,
    speedups: analysis.speedups,
    amdahl: analysis.amdahl,
    headline: analysis.headline,
    grade: analysis.grade,
    ...(solutionFingerprint !== undefined ? { solutionFingerprint } : {}),
    notes,
  };
}
