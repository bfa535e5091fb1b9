/**
 * The learner's optimisation report, as data (the machine-readable form, `report.json`): one entry per run with
 * the evidence, the learner's notes, the prediction against the measurement and the threats to validity, plus a
 * comparison of consecutive runs of the same lab ("what changed"). The Markdown and HTML renderers present it.
 *
 * No report is made from a run that failed its check or whose numbers do not follow from its samples.
 */
import { type Results, terminalText } from '@parallel-course/core';
import { compareRuns } from '../analyse/compare.ts';
import type { RunComparison } from '@parallel-course/core';
import { shellCommandLine, shellQuote } from '../write/safe-read.ts';
import { baselineEvidence, scalingEvidence } from './evidence.ts';
import type { Notes } from '../write/notes.ts';
import { judgePrediction, type Prediction, type PredictionVerdict } from '../write/prediction.ts';
import { threatsToValidity, type Threat } from './threats.ts';
import { validateSubmission } from './validate.ts';
import { ReportRefusedError } from '../errors.ts';

export { ReportRefusedError };

const LEARNER_REPORT_VERSION = 1;

export interface RunInput {
  runDir: string;
  results: Results;
  notes: Notes;
  prediction: Prediction | null;
}

export interface ReportRun {
  /** The run folder as the learner named it. */
  runDir: string;
  results: Results;
  notes: Notes;
  bottleneckEvidence: string[];
  scalingEvidence: string[];
  prediction: (Prediction & { measured: number; ci95: [number, number]; verdict: PredictionVerdict; relativeError: number; recordedBeforeRun: boolean }) | null;
  threats: Threat[];
  /** Commands that repeat this run from a fresh clone. */
  reproduce: string[];
}

export interface LearnerReport {
  reportVersion: number;
  generatedAt: string;
  runs: ReportRun[];
  /** Each run against the previous run of the same lab, in the order given. */
  comparisons: RunComparison[];
}

/**
 * The commands that repeat a run: the commit, a locked install, the same command with the same seed. Every field
 * from the results file is shell-quoted (safe-read.ts), so an edited command with a newline or ";" stays one
 * quoted word of its own line and cannot add a command to the block a reader copies.
 */
export function reproduceCommands(results: Results): string[] {
  const commit = results.environment.git.commit;
  const command = /(^| )--seed( |$)/.test(results.command) ? results.command : `${results.command} --seed ${results.seed}`;
  return [
    commit === null ? '# commit unknown: the run was not made in a git checkout' : `git checkout ${shellQuote(commit)}${results.environment.git.dirty ? '   # plus the uncommitted changes of that run' : ''}`,
    'npm ci',
    shellCommandLine(command),
  ];
}

/** Checks a run before it is reported: correctness passed and every number recomputes from the samples. */
function refusalReasons(results: Results): string[] {
  return validateSubmission(results, 'results').problems;
}

export function buildLearnerReport(inputs: RunInput[], now = new Date()): LearnerReport {
  const refused = inputs
    .map((input) => ({ input, reasons: refusalReasons(input.results) }))
    .filter((r) => r.reasons.length > 0);
  if (refused.length > 0) {
    throw new ReportRefusedError(
      refused
        .map(({ input, reasons }) => `no report from ${input.runDir}:\n${reasons.slice(0, 8).map((r) => `  - ${terminalText(r)}`).join('\n')}`)
        .join('\n') +
        '\nFix the code until the check passes (npm run lab -- <lab> --watch), run the lab again and report that run.',
    );
  }
  const runs: ReportRun[] = inputs.map(({ runDir, results, notes, prediction }) => {
    let judged: ReportRun['prediction'] = null;
    if (prediction && results.headline) {
      const { verdict, relativeError } = judgePrediction(prediction, results.headline);
      judged = {
        ...prediction,
        measured: results.headline.speedup,
        ci95: results.headline.ci95,
        verdict,
        relativeError,
        recordedBeforeRun: Date.parse(prediction.recordedAt) <= Date.parse(results.startedAt),
      };
    }
    return {
      runDir,
      results,
      notes,
      bottleneckEvidence: baselineEvidence(results),
      scalingEvidence: scalingEvidence(results),
      prediction: judged,
      threats: threatsToValidity(results),
      reproduce: reproduceCommands(results),
    };
  });
  const comparisons: RunComparison[] = [];
  for (const [i, run] of runs.entries()) {
    const previous = runs.slice(0, i).reverse().find((r) => r.results.lab === run.results.lab);
    if (previous) comparisons.push(compareRuns(previous.results, run.results));
  }
  return { reportVersion: LEARNER_REPORT_VERSION, generatedAt: now.toISOString(), runs, comparisons };
}

/** report.json: the report without the raw samples (they stay in each run's results.json, named by runDir). */
export function toMachineReadable(report: LearnerReport): unknown {
  return {
    ...report,
    runs: report.runs.map(({ results, ...run }) => ({
      ...run,
      lab: results.lab,
      impl: results.impl,
      startedAt: results.startedAt,
      command: results.command,
      headline: results.headline,
      speedups: results.speedups,
      amdahl: results.amdahl,
      correctness: results.correctness.map((e) => ({ variant: e.variant, params: e.params, passed: e.passed, inputsChecked: e.inputsChecked, comparator: e.comparator })),
      baseline: results.cases
        .filter((c) => c.variant === results.baseline)
        .map((c) => ({ variant: c.variant, params: c.params, summary: c.summary, workPerSample: c.workPerSample })),
      environment: results.environment,
    })),
  };
}
