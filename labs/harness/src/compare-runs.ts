/**
 * The pure part of `--compare` (compare.ts): this run against an earlier one, case by case, with a statistical verdict
 * (faster, slower or within noise, from `compareSamples`: the 95% bootstrap interval of the ratio of medians, from the
 * two runs' own samples), and the caveats that say when the two runs may not be comparable.
 * No node: imports, so the results viewer in the browser gives the same verdicts as `npm run lab -- <lab> --compare <run>`.
 * A run whose numbers do not recompute from its samples is refused with an `IncomparableRunError`; compare.ts turns
 * it into the command line's UsageError.
 */
import { caseLabel, checkResults, compareSamples, createRng, formatRatio, type Params, type Results, sameParams } from '@parallel-course/core';

export type Verdict = 'faster' | 'slower' | 'within-noise' | 'only-in-this-run' | 'only-in-earlier-run';

export interface CaseComparison {
  variant: string;
  params: Params;
  verdict: Verdict;
  /** median(earlier) / median(this run): above 1 means this run is faster. Null when a side is missing. */
  ratio: number | null;
  ci95: [number, number] | null;
  earlierMedianMs: number | null;
  currentMedianMs: number | null;
}

export interface RunComparison {
  lab: string;
  earlier: { impl: string; startedAt: string; commit: string | null };
  current: { impl: string; startedAt: string; commit: string | null };
  /** The noise band used on top of the intervals, as a fraction (0 = the intervals alone decide). */
  threshold: number;
  cases: CaseComparison[];
  /** Why the two runs may not be comparable (another machine, another Node...), for the reader to weigh. */
  caveats: string[];
}

export interface CompareRunsOptions {
  /** Noise band on top of the intervals (fraction); default 0: the two runs' own intervals decide. */
  threshold?: number;
  /** Bootstrap resamples; default the current run's bootstrapResamples. */
  resamples?: number;
  /** How the caveats name the two runs; default "the earlier run" and "the current run". */
  names?: { earlier: string; current: string };
  /**
   * checkResults's findings for a run the caller has already checked (the viewer checks a learner's file when it opens
   * it): that run is not recomputed a second time. A native-kernel run takes about 2 s to recompute.
   */
  checked?: { earlier?: readonly string[]; current?: readonly string[] };
}

/** A run that cannot be compared: its numbers do not recompute from its samples. The message says which and why. */
export class IncomparableRunError extends Error {
  readonly code = 'INCOMPARABLE_RUN';
  constructor(message: string) {
    super(message);
    this.name = 'IncomparableRunError';
  }
}

/** The same machine facts must hold for a timing comparison to mean what it says; each difference is a caveat. */
export function comparisonCaveats(earlier: Results, current: Results): string[] {
  const a = earlier.environment;
  const b = current.environment;
  const caveats: string[] = [];
  if (a.hostname !== b.hostname || a.cpuModel !== b.cpuModel) {
    // An in-page run records neither a hostname nor a CPU model: say so rather than print blanks.
    const machine = (env: typeof a): string => [env.hostname, env.cpuModel].filter((part) => part.trim() !== '').join(', ') || 'machine not recorded';
    caveats.push(`the runs were on different machines (${machine(a)} vs ${machine(b)}): a verdict may reflect the machine, not the code`);
  }
  if (a.availableParallelism !== b.availableParallelism) {
    caveats.push(`available CPUs differ (${a.availableParallelism} vs ${b.availableParallelism})`);
  }
  if (a.node !== b.node) caveats.push(`Node versions differ (${a.node} vs ${b.node})`);
  if (earlier.quick !== current.quick) caveats.push('one run is --quick and the other is not: the inputs may differ in size');
  if (earlier.seed !== current.seed) caveats.push(`the seeds differ (${earlier.seed} vs ${current.seed}): the inputs differ`);
  return caveats;
}

/**
 * Problems that make a run unfit to compare with: numbers that do not recompute (thrown as an IncomparableRunError
 * naming the run and the first such number, unsanitised: the caller escapes it for its medium) and failed cases
 * (returned, as caveats).
 */
export function comparabilityProblems(results: Results, which: string, name = `the ${which} run`, problems: readonly string[] = checkResults(results)): string[] {
  const failed = problems.filter((p) => p.startsWith('correctness: '));
  const numbers = problems.filter((p) => !p.startsWith('correctness: '));
  if (numbers.length > 0) {
    throw new IncomparableRunError(
      `${name} (${results.startedAt}) cannot be compared: its numbers do not recompute from its samples (edited, or recorded ` +
        `with another version of the harness): ${numbers[0] ?? ''}. Rerun it, or compare with another run.`,
    );
  }
  return failed.map((p) => `${name}: ${p.replace(/^correctness: /, '')}; that case is not compared`);
}

/**
 * Compares every case the two runs share, plus the cases only one of them has. Pure: same inputs, same verdicts.
 * @throws IncomparableRunError when either run's numbers do not recompute from its samples.
 */
export function compareRuns(earlier: Results, current: Results, options: CompareRunsOptions = {}): RunComparison {
  const resamples = options.resamples ?? current.bootstrapResamples;
  const names = options.names ?? { earlier: 'the earlier run', current: 'the current run' };
  const flagged = [
    ...comparabilityProblems(earlier, 'earlier', names.earlier, options.checked?.earlier),
    ...comparabilityProblems(current, 'current', names.current, options.checked?.current),
  ];
  const cases: CaseComparison[] = [];
  for (const [i, now] of current.cases.entries()) {
    const before = earlier.cases.find((c) => c.variant === now.variant && sameParams(c.params, now.params));
    if (!before) {
      cases.push({ variant: now.variant, params: now.params, verdict: 'only-in-this-run', ratio: null, ci95: null, earlierMedianMs: null, currentMedianMs: now.summary.median });
      continue;
    }
    // One seed per case, derived from the current run's seed, so a repeated comparison gives the same interval.
    const result = compareSamples(before.samplesMs, now.samplesMs, createRng((current.seed ^ (i * 0x9e3779b1)) >>> 0), resamples, {
      ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
    });
    cases.push({
      variant: now.variant,
      params: now.params,
      verdict: result.verdict,
      ratio: result.ratio,
      ci95: result.ci95,
      earlierMedianMs: before.summary.median,
      currentMedianMs: now.summary.median,
    });
  }
  for (const before of earlier.cases) {
    if (!current.cases.some((c) => c.variant === before.variant && sameParams(c.params, before.params))) {
      cases.push({ variant: before.variant, params: before.params, verdict: 'only-in-earlier-run', ratio: null, ci95: null, earlierMedianMs: before.summary.median, currentMedianMs: null });
    }
  }
  return {
    lab: current.lab,
    earlier: { impl: earlier.impl, startedAt: earlier.startedAt, commit: earlier.environment.git.commit },
    current: { impl: current.impl, startedAt: current.startedAt, commit: current.environment.git.commit },
    threshold: options.threshold ?? 0,
    cases,
    caveats: [...flagged, ...comparisonCaveats(earlier, current), ...driftCaveat(cases, current)],
  };
}

/**
 * The baseline runs the same code in both runs (it is the lab's, not the learner's): when it is faster or slower too,
 * the machine changed between the runs, and every verdict includes that change.
 */
function driftCaveat(cases: CaseComparison[], current: Results): string[] {
  const baseline = current.baseline;
  const moved = cases.filter((c) => c.variant === baseline && (c.verdict === 'faster' || c.verdict === 'slower') && c.ratio !== null && c.ci95 !== null);
  return moved.map(
    (c) =>
      `the baseline ${caseLabel(c)} runs the same code in both runs, yet it is ${c.verdict} (${formatRatio(c.ratio!)} ` +
      `[${c.ci95![0].toFixed(2)}, ${c.ci95![1].toFixed(2)}]): the machine changed between the runs, by about that much; ` +
      'compare the speedups over the baseline (each within its own run) instead of the times',
  );
}
