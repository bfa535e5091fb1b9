/**
 * The pure part of `--compare` (the harness's compare.ts): this run against an earlier one, case by case, with a statistical verdict
 * (faster, slower or within noise) and the caveats that say when the two runs may not be comparable.
 * No node: imports, so the results viewer in the browser gives the same verdicts as `npm run lab -- <lab> --compare <run>`.
 * A run whose numbers do not recompute from its samples is refused with an `IncomparableRunError`; compare.ts turns
 * it into the command line's UsageError.
 *
 * What is compared (issue 43): not the variant's times, which move with the machine between the runs (the course's VM
 * timed the same code two thirds apart in two runs a minute apart), but its speedup over the baseline within each run.
 * The baseline is the lab's code in both runs, so a machine that is slower in one run slows both and cancels:
 * - a case with a speedup in both runs, its baseline measured in the same rounds (pairing 'rounds', 2 rounds or more):
 *   the ratio of the two speedups with Welch's interval over the per-round speedups (core compareSpeedupsBetweenRuns;
 *   coverage 0.945 to 0.969 of 0.95 in its simulation with drift);
 * - a case with a speedup in both runs but no common rounds with its baseline: the same ratio with the MOVER interval
 *   from the two speedups' own intervals (core moverRatioCi), which assumes the two runs independent;
 * - the baseline case itself: no verdict on code; the ratio of its times is the machine's drift between the runs,
 *   with the bootstrap interval of that ratio, and a caveat when it excludes 1;
 * - a case with no speedup over a baseline in both runs: no verdict, and the reason.
 */
import { caseLabel, sameParams } from './case-identity.ts';
import { formatBracketInterval, formatLoadAverage, formatRatio } from './format.ts';
import type { Params, Results, SpeedupEntry } from './results-schema.ts';
import { compareSamples, compareSpeedupsBetweenRuns, createRng, moverRatioCi } from './statistics.ts';
import { checkResults } from './validate.ts';

export type Verdict = 'faster' | 'slower' | 'within-noise' | 'machine' | 'no-verdict' | 'only-in-this-run' | 'only-in-earlier-run';

/** How a case's ratio and interval were found (see the module comment); null for cases only one run has. */
export type ComparisonBasis = 'speedup-rounds' | 'speedup-intervals' | 'baseline-time' | null;

export interface CaseComparison {
  variant: string;
  params: Params;
  verdict: Verdict;
  /**
   * For a variant: its speedup in this run / its speedup in the earlier run (above 1 = this run's variant gained on the
   * baseline). For the baseline ('machine'): median(earlier) / median(this run), the machine's drift (above 1 = this
   * run's machine was faster). Null when a side is missing or there is no verdict.
   */
  ratio: number | null;
  ci95: [number, number] | null;
  basis: ComparisonBasis;
  /** The variant's speedup over its baseline in each run (the geometric mean over rounds for 'speedup-rounds'). */
  earlierSpeedup: number | null;
  currentSpeedup: number | null;
  /** Why a case has no verdict ('no-verdict'); null otherwise. */
  reason: string | null;
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
  // The verdicts compare speedups, in which a uniformly faster or slower machine cancels; what does not cancel is a
  // change in the CPUs left free, which moves a parallel variant's speedup itself. On the course's 2-vCPU VM, same-code
  // pairs of runs with the quiet one (load 0.8) were judged different in 51 of 108 speedups, pairs among runs at load
  // 6.8 to 32 in 18 of 270 (issue 43; test/between-runs-coverage.test.ts).
  const la = a.loadAverage?.[0];
  const lb = b.loadAverage?.[0];
  const p = Math.max(a.availableParallelism, b.availableParallelism, 1);
  if (la !== undefined && lb !== undefined && Math.abs(la - lb) > p / 2) {
    caveats.push(
      `the load differed (1-minute load average ${formatLoadAverage([la])} vs ${formatLoadAverage([lb])} on ${p} CPUs): a parallel variant's speedup depends on the CPUs others leave free, ` +
        'which the comparison of speedups cannot cancel; repeat both runs at a similar load before trusting a verdict on a parallel case',
    );
  }
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

/** The speedup entry of a case (variant and params), if the run has one. */
function speedupOf(results: Results, c: { variant: string; params: Params }): SpeedupEntry | undefined {
  return results.speedups.find((s) => s.variant === c.variant && sameParams(s.params, c.params));
}

/** The case a speedup entry is over. */
function baselineCaseOf(results: Results, s: SpeedupEntry) {
  return results.cases.find((c) => c.variant === s.baseline && sameParams(c.params, s.baselineParams));
}

function verdictOf(ci95: readonly [number, number], threshold: number): 'faster' | 'slower' | 'within-noise' {
  return ci95[0] > 1 + threshold ? 'faster' : ci95[1] < 1 - threshold ? 'slower' : 'within-noise';
}

/**
 * Compares every case the two runs share, plus the cases only one of them has. Pure: same inputs, same verdicts.
 * @throws IncomparableRunError when either run's numbers do not recompute from its samples.
 */
export function compareRuns(earlier: Results, current: Results, options: CompareRunsOptions = {}): RunComparison {
  const resamples = options.resamples ?? current.bootstrapResamples;
  const threshold = options.threshold ?? 0;
  const names = options.names ?? { earlier: 'the earlier run', current: 'the current run' };
  const flagged = [
    ...comparabilityProblems(earlier, 'earlier', names.earlier, options.checked?.earlier),
    ...comparabilityProblems(current, 'current', names.current, options.checked?.current),
  ];
  const isBaseline = (c: { variant: string; params: Params }) =>
    current.speedups.some((s) => s.baseline === c.variant && sameParams(s.baselineParams, c.params)) || c.variant === current.baseline;
  const cases: CaseComparison[] = [];
  const none = { ratio: null, ci95: null, basis: null, earlierSpeedup: null, currentSpeedup: null, reason: null } as const;
  for (const [i, now] of current.cases.entries()) {
    const before = earlier.cases.find((c) => c.variant === now.variant && sameParams(c.params, now.params));
    const common = { variant: now.variant, params: now.params, earlierMedianMs: before?.summary.median ?? null, currentMedianMs: now.summary.median };
    if (!before) {
      cases.push({ ...common, ...none, verdict: 'only-in-this-run' });
      continue;
    }
    const sNow = speedupOf(current, now);
    const sBefore = speedupOf(earlier, now);
    if (sNow && sBefore && sNow.baseline === sBefore.baseline && sameParams(sNow.baselineParams, sBefore.baselineParams)) {
      const bNow = baselineCaseOf(current, sNow);
      const bBefore = baselineCaseOf(earlier, sBefore);
      const rounds = (s: SpeedupEntry, b: typeof bNow) => s.pairing === 'rounds' && b !== undefined && new Set(b.sampleRounds).size >= 2;
      if (rounds(sNow, bNow) && rounds(sBefore, bBefore)) {
        const r = compareSpeedupsBetweenRuns({ baseline: bBefore!, variant: before }, { baseline: bNow!, variant: now });
        cases.push({ ...common, ratio: r.ratio, ci95: r.ci95, basis: 'speedup-rounds', earlierSpeedup: r.earlierSpeedup, currentSpeedup: r.currentSpeedup, reason: null, verdict: verdictOf(r.ci95, threshold) });
      } else {
        const ci95 = moverRatioCi(sNow.speedup, sNow.ci95, sBefore.speedup, sBefore.ci95);
        cases.push({ ...common, ratio: sNow.speedup / sBefore.speedup, ci95, basis: 'speedup-intervals', earlierSpeedup: sBefore.speedup, currentSpeedup: sNow.speedup, reason: null, verdict: verdictOf(ci95, threshold) });
      }
      continue;
    }
    if (isBaseline(now)) {
      // One seed per case, derived from the current run's seed, so a repeated comparison gives the same interval.
      const result = compareSamples(before.samplesMs, now.samplesMs, createRng((current.seed ^ (i * 0x9e3779b1)) >>> 0), resamples);
      cases.push({ ...common, ...none, ratio: result.ratio, ci95: result.ci95, basis: 'baseline-time', verdict: 'machine' });
      continue;
    }
    cases.push({
      ...common,
      ...none,
      verdict: 'no-verdict',
      reason: 'no speedup over the same baseline in both runs: its times alone cannot tell a change of code from the machine drifting between the runs',
    });
  }
  for (const before of earlier.cases) {
    if (!current.cases.some((c) => c.variant === before.variant && sameParams(c.params, before.params))) {
      cases.push({ variant: before.variant, params: before.params, ...none, verdict: 'only-in-earlier-run', earlierMedianMs: before.summary.median, currentMedianMs: null });
    }
  }
  return {
    lab: current.lab,
    earlier: { impl: earlier.impl, startedAt: earlier.startedAt, commit: earlier.environment.git.commit },
    current: { impl: current.impl, startedAt: current.startedAt, commit: current.environment.git.commit },
    threshold,
    cases,
    caveats: [...flagged, ...comparisonCaveats(earlier, current), ...driftCaveat(cases)],
  };
}

/**
 * The baseline runs the same code in both runs (it is the lab's, not the learner's): when its time moved, the machine
 * changed between the runs. The verdicts compare speedups, in which that change cancels; the caveat says how large it
 * was, so that nobody compares the times themselves.
 */
function driftCaveat(cases: CaseComparison[]): string[] {
  const moved = cases.filter((c) => c.verdict === 'machine' && c.ratio !== null && c.ci95 !== null && (c.ci95[0] > 1 || c.ci95[1] < 1));
  return moved.map(
    (c) =>
      `the baseline ${caseLabel(c)} runs the same code in both runs, yet it is ${c.ci95![0] > 1 ? 'faster' : 'slower'} in this run (${formatRatio(c.ratio!)} ` +
      `${formatBracketInterval(c.ci95!)}): the machine changed between the runs, by about that much. The verdicts ` +
      'compare each variant\'s speedup over the baseline, in which that change cancels; do not compare the times themselves',
  );
}
