/**
 * The pure part of the instructor's check of a results file (validate.ts), shared with the site's results viewer:
 * no node: imports, so a browser bundle can run the same recomputation the command line runs.
 *   1. the schema (parseResults: every problem with its path);
 *   2. correctness: every case passed its check (a failed case is named with its reason);
 *   3. every summary number recomputed from the raw samples with the file's own seed and resample count
 *      (`analyzeRun` is a pure function of them), so a hand-edited number is caught and named.
 */
import type { AnalysisInput } from './analysis.ts';
import { analyzeRun, type RunAnalysis } from './build-results.ts';
import { notImplementedCases } from './grade.ts';
import type { Results } from './results-schema.ts';
import { parseResultsJson, ResultsFileError } from './read-results.ts';
import { caseLabel } from './case-identity.ts';
import { formatSignificant } from './format.ts';

/** The largest results file any reader accepts, in bytes: far above any file a lab writes (raw samples included),
 * small enough that reading it cannot exhaust a laptop's or a phone's memory. The harness (safe-read.ts) and the
 * site's viewer (site/src/lib/results-file.ts) both refuse bigger files before reading them. */
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

/** Two recomputed numbers agree when they differ by at most this, relatively: JSON keeps doubles exactly, so any
 * real difference is an edit; the margin only forgives a different last digit from another platform's Math. */
export const RELATIVE_TOLERANCE = 1e-9;

export interface ValidationResult {
  valid: boolean;
  /** Each problem in one line, naming the field: "speedups[3].speedup is 2.5 but the samples give 1.74". */
  problems: string[];
  /** The parsed results when the schema held (also when other checks failed). */
  results: Results | null;
}

function showDifference(value: unknown, other?: unknown): string {
  if (value === undefined) return 'no value';
  if (typeof value !== 'number') return JSON.stringify(value);
  if (Number.isInteger(value)) return String(value);
  // Four significant digits, more when needed to show that the two numbers differ.
  for (let digits = 4; digits < 17; digits++) {
    const a = formatSignificant(value, digits);
    if (typeof other !== 'number' || a !== formatSignificant(other, digits)) return a;
  }
  return String(value);
}

function sameNumber(a: number, b: number): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

/** Fields `analyze` copies from its input: the raw data itself, so there is nothing to recompute. */
const RAW_INPUT_KEYS = new Set(['samplesMs', 'sampleRounds', 'sampleProcesses', 'samples', 'params', 'workPerSample', 'sample', 'description', 'unit']);

/**
 * Compares what the file says with what the samples give, field by field, and names each difference by its path.
 * Raw data that `analyze` only copies (RAW_INPUT_KEYS: samples, rounds, params, work, descriptions) is not compared.
 */
export function diffRecomputed(path: string, claimed: unknown, recomputed: unknown, problems: string[]): void {
  if (problems.length >= 50) return;
  if (typeof recomputed === 'number' || typeof claimed === 'number') {
    if (typeof recomputed !== 'number' || typeof claimed !== 'number' || !sameNumber(claimed, recomputed)) {
      const said = claimed === undefined ? 'missing' : showDifference(claimed, recomputed);
      problems.push(`${path} is ${said} but the samples give ${showDifference(recomputed, claimed)}`);
    }
    return;
  }
  if (Array.isArray(recomputed) || Array.isArray(claimed)) {
    if (!Array.isArray(recomputed) || !Array.isArray(claimed)) {
      problems.push(`${path} is ${JSON.stringify(claimed)} but the samples give ${JSON.stringify(recomputed)}`);
      return;
    }
    if (claimed.length !== recomputed.length) {
      problems.push(`${path} has ${claimed.length} entries but the samples give ${recomputed.length}`);
      return;
    }
    claimed.forEach((item, i) => diffRecomputed(`${path}[${i}]`, item, recomputed[i], problems));
    return;
  }
  if (recomputed !== null && typeof recomputed === 'object') {
    if (claimed === null || typeof claimed !== 'object') {
      problems.push(`${path} is ${JSON.stringify(claimed)} but the samples give an entry`);
      return;
    }
    const keys = new Set([...Object.keys(recomputed), ...Object.keys(claimed)]);
    for (const key of keys) {
      if (RAW_INPUT_KEYS.has(key)) continue;
      diffRecomputed(`${path}.${key}`, (claimed as Record<string, unknown>)[key], (recomputed as Record<string, unknown>)[key], problems);
    }
    return;
  }
  if (claimed !== recomputed) {
    problems.push(`${path} is ${JSON.stringify(claimed)} but the samples give ${JSON.stringify(recomputed)}`);
  }
}

/** What analyzeRun reads of a results file: each case's raw samples, rounds, processes, work and observations. */
export function analysisInputsOf(results: Results): AnalysisInput[] {
  return results.cases.map((c) => ({
    variant: c.variant,
    params: c.params,
    ...(c.workers !== undefined ? { workers: c.workers } : {}),
    samplesMs: c.samplesMs,
    sampleRounds: c.sampleRounds,
    ...(c.sampleProcesses !== undefined ? { sampleProcesses: c.sampleProcesses } : {}),
    ...(c.callsPerSample !== undefined ? { callsPerSample: c.callsPerSample } : {}),
    workPerSample: c.workPerSample,
    sample: c.sample,
    observations: Object.fromEntries(
      Object.entries(c.observations).map(([name, o]) => [name, { unit: o.unit, description: o.description, samples: o.samples }]),
    ),
  }));
}

/** Recomputes cases, speedups, Amdahl fits and the headline from the raw samples, as the harness did. */
export function recompute(results: Results): RunAnalysis {
  const inputs = analysisInputsOf(results);
  // The lab's baseline and headline are declarations, not measurements: the file records them.
  const baseline = results.baseline;
  const headline = results.headline ?? { variant: '', params: {} };
  return analyzeRun(inputs, {
    baseline,
    headline: { variant: headline.variant, params: headline.params },
    seed: results.seed,
    resamples: results.bootstrapResamples,
    // What the run judged oversubscription by: the CPUs the job may really use (cpus.ts), not Node's own count.
    availableParallelism: results.cpus.available,
    // A graded run declares what it graded and the target; the ratios and verdicts are recomputed from the samples.
    grading: results.grade
      ? {
          cases: results.grade.entries.map((e) => ({ variant: e.variant, params: e.params, ...(e.optional ? { optional: true } : {}) })),
          target: results.grade.target,
          targetText: results.grade.targetText,
          notImplemented: notImplementedCases(results.correctness),
        }
      : null,
  });
}

/**
 * Why a case's sampleProcesses are not a graded run's forks, or null: the harness takes a case's round r (counted from
 * its first) in process r mod F, F its processes (judge-sampler.ts measureRounds), so every round is one process's
 * and F is every index below it. Otherwise a hand-edited file could regroup rounds into whichever processes grade best
 * (2 processes: t(0.975, 1) = 12.7), and validate, which recomputes the grade from them, would call it valid.
 */
function forkProblem(sampleRounds: readonly number[], sampleProcesses: readonly number[], firstRound: number): string | null {
  const forks = new Set(sampleProcesses).size;
  const wrong = sampleRounds.findIndex((r, k) => sampleProcesses[k] !== (r - firstRound) % forks);
  if (wrong < 0) return null;
  return `are not the harness's forks: sample ${wrong} (round ${sampleRounds[wrong]}) is in process ${sampleProcesses[wrong]}, where round r of ${forks} processes is in process r mod ${forks} counted from the case's first round; the file was edited: re-run the lab with --grade`;
}

/**
 * The samples against the plan the file records (`sampling`): every measured case has `rounds` rounds, each of
 * `samplesPerRound` samples, its rounds consecutive. A graded file must record its plan (issue 42: forged rounds gave
 * a graded case 24 samples where the plan had 6, and the file was called valid).
 */
export function planProblems(results: Results): string[] {
  const plan = results.sampling;
  if (!plan) return results.grade !== null ? ['sampling: a graded run must record its sampling plan (this file has none); re-run with --grade'] : [];
  const problems: string[] = [];
  for (const [i, c] of results.cases.entries()) {
    const perRound = new Map<number, number>();
    for (const round of c.sampleRounds) perRound.set(round, (perRound.get(round) ?? 0) + 1);
    const rounds = [...perRound.keys()].sort((a, b) => a - b);
    const expected = plan.rounds * plan.samplesPerRound;
    if (c.samplesMs.length !== expected || c.sampleRounds.length !== c.samplesMs.length) {
      problems.push(`cases[${i}] (${caseLabel(c)}) has ${c.samplesMs.length} samples but the plan takes ${expected} (${plan.rounds} rounds of ${plan.samplesPerRound})`);
    } else if (rounds.length !== plan.rounds || rounds.some((r, k) => r !== (rounds[0] as number) + k) || [...perRound.values()].some((n) => n !== plan.samplesPerRound)) {
      problems.push(`cases[${i}] (${caseLabel(c)}).sampleRounds are not ${plan.rounds} consecutive rounds of ${plan.samplesPerRound} samples each`);
    } else if (c.sampleProcesses !== undefined) {
      const problem = forkProblem(c.sampleRounds, c.sampleProcesses, rounds[0] as number);
      if (problem !== null) problems.push(`cases[${i}] (${caseLabel(c)}).sampleProcesses ${problem}`);
    }
    if (problems.length >= 20) break;
  }
  return problems;
}

/**
 * Checks 2 and 3 on results whose schema already held: each failed correctness case, then each number that does not
 * recompute from the samples. Empty when the file can be trusted. The site's viewer shows these as its warning.
 */
export function checkResults(results: Results): string[] {
  const problems: string[] = [];
  for (const entry of results.correctness) {
    if (!entry.passed) {
      problems.push(`correctness: ${caseLabel(entry)} did not pass its check (${entry.reason ?? 'no reason given'})`);
    }
  }
  problems.push(...planProblems(results));
  if (results.runtime === 'browser' && results.grade !== null) {
    problems.push("grade: a run in a browser page is self-reported (the page's scripts own its clock) and cannot carry a grade; grade with npm run lab -- <lab> --grade");
  }
  if (results.speedups.some((s) => s.baseline !== results.baseline)) {
    problems.push('speedups: entries name different baselines; the harness uses one baseline per lab');
  }
  let recomputed: RunAnalysis | null = null;
  try {
    recomputed = recompute(results);
  } catch (error) {
    problems.push(`samples: the summaries cannot be recomputed from them: ${(error as Error).message}`);
  }
  if (recomputed) {
    diffRecomputed('cases', results.cases, recomputed.cases, problems);
    diffRecomputed('speedups', results.speedups, recomputed.speedups, problems);
    diffRecomputed('amdahl', results.amdahl, recomputed.amdahl, problems);
    diffRecomputed('headline', results.headline, recomputed.headline, problems);
    diffRecomputed('grade', results.grade, recomputed.grade, problems);
    const unnamed = results.cases.findIndex((c) => c.workers === undefined && typeof c.params['workers'] === 'number');
    if (problems.length > 0 && unnamed >= 0) {
      problems.push(
        `cases[${unnamed}] has params.workers but no "workers" field: files written before the harness recorded worker ` +
          'counts cannot be recomputed in full; re-run the lab with this version of the course',
      );
    }
  }
  return problems;
}

/** Validates parsed JSON (or raw text) as a submission. Never throws for a bad submission: it reports. */
export function validateSubmission(data: unknown, source = 'submission'): ValidationResult {
  let results: Results;
  try {
    results = typeof data === 'string' ? parseResultsJson(data, source) : parseResultsJson(JSON.stringify(data), source);
  } catch (error) {
    if (error instanceof ResultsFileError) return { valid: false, problems: error.problems.map((p) => `schema: ${p}`), results: null };
    throw error;
  }
  const problems = checkResults(results);
  return { valid: problems.length === 0, problems, results };
}
