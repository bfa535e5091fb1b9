/**
 * Planning a run: how long each case and the whole run will take on this machine, from each case's work per sample
 * divided by rates a short calibration measured (the lab's `planning`, its cases' `estimate`), never from a constant
 * tuned to one machine; and the smallest change that keeps a run within its budget (5 min full, 90 s quick): fewer
 * rounds, never below MIN_ROUNDS, then leaving out the lab's optional sweep points. Pure: nothing is loaded or timed
 * here (plan-lab.ts does that for a run, tools/plan-cli.ts for the instructor's table).
 */
import { resolveHeadline, type Calibration, type CaseDefinition, type LabContext, type LabDefinition, type SamplingPlan } from '../lab-definition.ts';
import { caseKey, caseLabel, formatDuration, paramsKey } from '@parallel-course/core';
import { MAX_CALLS_PER_SAMPLE, PROBE_SAMPLES, TARGET_SAMPLE_TRIPS } from '../measure/sample-limits.ts';
import { wholeFetchMs } from '../measure/whole-output.ts';
import { GRADE_FORKS, gradedSampling } from '../measure/run-cases.ts';

/** How long a run may take, in ms: a full run about 5 minutes, a quick one about 90 seconds, on any node. */
export const RUN_BUDGET_MS = { full: 300_000, quick: 90_000 } as const;

/** The fewest rounds a reduced plan keeps: the paired intervals resample rounds, and fewer than 3 say little. */
export const MIN_ROUNDS = 3;

/**
 * The harness's own time in a run, besides the lab's calls: starting the runner (Node strips the TypeScript of the
 * harness and the lab), the environment (git, nvidia-smi), the statistics (10,000 bootstrap resamples per interval)
 * and the reports with their charts. From quick and full runs of the labs on the course machine (2026-12-03):
 * about 4 s a run and 0.1 s a case. A graded run's forks start 2 (F - 1) more runners (run-cases.ts GRADE_FORKS), each
 * about 0.5 s (perRunner): graded runs of the test fixture's lab, forks 1 against 5 (8 more runners), took 1.6 s and
 * 8.1 s longer at load averages 11 and 22 on the shared 2-vCPU VM (2026-12-06), 0.2 to 1 s a runner. A planning figure,
 * not a promise.
 */
export const HARNESS_MS = { perRun: 4_000, perCase: 100, perRunner: 500 } as const;

/**
 * The judge's round trip per sample on the course machine, in ms (its calibration read 0.03 to 0.13): a call shorter
 * than TARGET_SAMPLE_TRIPS of them is planned as judge-sampler.ts runs it, several calls a sample after PROBE_SAMPLES
 * probes. A planning figure, not a promise.
 */
export const PLANNED_ROUND_TRIP_MS = 0.1;

/** The machine whose rates are every lab's `planning.courseMachine`: what the planning test and `npm run plan` assume. */
export const COURSE_MACHINE = "the course machine (a cloud VM with 2 shared AMD EPYC vCPUs, Node 24.21.0)";

/** One case as planned, in ms. */
export interface PlannedCase {
  /** run-protocol's case key (`variant|params`), as RunJob.omit names it. */
  key: string;
  label: string;
  /** The plan may leave it out (an optional case that is not the baseline, the headline or graded). */
  optional: boolean;
  /** False when the case declares no estimate: its times are then 0 and the plan says so. */
  estimated: boolean;
  /** One sample: its calls (several for a call under TARGET_SAMPLE_TRIPS planned round trips) times the estimate's. */
  sampleMs: number;
  setupMs: number;
  /** The check: the lab's check inputs and one call on the measured input; and a sample of several calls' probes. */
  checkMs: number;
  /** Checking each warm-up and measured sample's outputs (a fresh input's checkSample), outside the timed region. */
  sampleCheckMs: number;
  /**
   * The processes the case runs in: a graded pair's F forks in a graded run (each sets it up, checks it and warms it
   * up), else 1.
   */
  forks: number;
  /** A graded pair's case in a graded run: one discarded sample before each round (judge-sampler.ts rewarm). */
  rewarmed: boolean;
}

export interface RunPlan {
  lab: string;
  /** The CPU count planned for (LabContext.availableParallelism). */
  p: number;
  quick: boolean;
  sampling: SamplingPlan;
  cases: PlannedCase[];
  /** Making the inputs and their expected outputs, once per distinct input. */
  inputsMs: number;
  /** A graded run's process pairs (run-cases.ts GRADE_FORKS); 1 for a practice run. */
  forks: number;
  harnessMs: number;
  /** Everything: harness + inputs + per case (set-up + check + (warm-up + rounds x samples per round) samples). */
  totalMs: number;
  /** Labels of the cases without an estimate (not counted). */
  unestimated: string[];
}

/** A plan fitted to a budget: what was asked, what will run, and what changed. */
export interface RunFit {
  budgetMs: number;
  /** The plan with the lab's own sampling and every case. */
  asked: RunPlan;
  /** The plan that will run. */
  plan: RunPlan;
  /** Cases left out to stay within the budget. */
  omitted: PlannedCase[];
  /** False when even the fewest rounds without the optional cases are over the budget. */
  withinBudget: boolean;
}

export interface PlanOptions {
  /** `--grade`: the graded cases run twice, the learner's and the solution's (runner.ts), in `forks` processes a side. */
  grade?: boolean;
  /** A graded run's process pairs (RunJob.forks); default run-cases.ts GRADE_FORKS. */
  forks?: number;
  /** Keys of cases to leave out. */
  omit?: ReadonlySet<string>;
}

/** Keys the plan may never leave out besides the baseline's cases: the headline and, in a --grade run, the graded cases. */
function protectedKeys(lab: LabDefinition<unknown, unknown>, ctx: LabContext, grade: boolean): Set<string> {
  const keys = new Set([caseKey(resolveHeadline(lab.headline, ctx))]);
  if (grade) for (const graded of lab.grading?.cases(ctx) ?? []) keys.add(caseKey(graded));
  return keys;
}

/** Samples each case takes under `sampling`, the check's one on the measured input included. */
function samplesPerCase(sampling: SamplingPlan): number {
  return 1 + sampling.warmupSamples + sampling.rounds * sampling.samplesPerRound;
}

/** One case's time under `sampling`, its other forks' set-up, check and warm-up and its discarded samples included. */
function caseMs(c: PlannedCase, sampling: SamplingPlan): number {
  const sample = c.sampleMs + c.sampleCheckMs;
  const forks = (c.forks - 1) * (c.setupMs + c.checkMs + sampling.warmupSamples * sample);
  return c.setupMs + c.checkMs + (samplesPerCase(sampling) - 1) * sample + forks + (c.rewarmed ? sampling.rounds * sample : 0);
}

function totalOf(cases: PlannedCase[], sampling: SamplingPlan, inputsMs: number, harnessMs: number): number {
  return harnessMs + inputsMs + cases.reduce((sum, c) => sum + caseMs(c, sampling), 0);
}

/** The harness's own time: a run's, a case's each, and the runners a graded run's forks add (2 (F - 1), HARNESS_MS). */
function harnessOf(cases: PlannedCase[], forks: number): number {
  return HARNESS_MS.perRun + HARNESS_MS.perCase * cases.length + HARNESS_MS.perRunner * 2 * (forks - 1);
}


/**
 * The plan of a run of `lab` for `ctx` under `sampling`, with each case's estimate at `calibration`. Calls
 * `lab.cases(ctx)`, which must start nothing.
 */
export function planRun(lab: LabDefinition<unknown, unknown>, ctx: LabContext, asked: SamplingPlan, calibration: Calibration, options: PlanOptions = {}): RunPlan {
  const kept = protectedKeys(lab, ctx, options.grade === true);
  // A graded run's rounds, at least its forks (run-cases.ts gradedSampling, which the run itself applies).
  const forks = options.grade ? (options.forks ?? GRADE_FORKS) : 1;
  const sampling = gradedSampling(asked, forks);
  const definitions = lab.cases(ctx).filter((d) => !options.omit?.has(caseKey(d)));
  const graded = new Set(options.grade ? (lab.grading?.cases(ctx) ?? []).map(caseKey) : []);
  const cases: PlannedCase[] = [];
  const unestimated: string[] = [];
  const inputs = new Map<string, number>();
  for (const d of definitions) {
    const key = caseKey(d);
    const label = caseLabel(d);
    const estimate = d.estimate?.(ctx, calibration);
    if (!estimate) unestimated.push(label);
    const callMs = estimate?.sampleMs ?? 0;
    // A short call's sample is several calls, each output checked, after PROBE_SAMPLES discarded probes (judge-sampler.ts).
    const minSampleMs = TARGET_SAMPLE_TRIPS * PLANNED_ROUND_TRIP_MS;
    const calls = callMs > 0 && callMs < minSampleMs && lab.oneCallPerSample === undefined ? Math.min(MAX_CALLS_PER_SAMPLE, Math.ceil(minSampleMs / callMs)) : 1;
    const sampleMs = calls * callMs;
    // The judge's whole fetches of an output over the bound: the measured one's once in the check and on average per
    // sample, each other check input's once.
    const fetch = wholeFetchMs(estimate?.outputBytes);
    const checkFetchMs = (estimate?.checkOutputBytes ?? []).reduce((sum, bytes) => sum + wholeFetchMs(bytes).checkMs, 0);
    const sampleCheckMs = calls * ((estimate?.sampleCheckMs ?? 0) + fetch.sampleMs);
    const planned: PlannedCase = {
      key,
      label,
      optional: d.optional === true && d.variant !== lab.baseline && !kept.has(key),
      estimated: estimate !== undefined,
      sampleMs,
      setupMs: estimate?.setupMs ?? 0,
      checkMs: (estimate?.checkMs ?? 0) + callMs + fetch.checkMs + checkFetchMs + (calls > 1 ? PROBE_SAMPLES * (sampleMs + sampleCheckMs) : 0),
      sampleCheckMs,
      forks: graded.has(key) ? forks : 1,
      rewarmed: graded.has(key),
    };
    cases.push(planned);
    // The solution's copy of a graded case (run-cases.ts solutionCopies) costs what the learner's does.
    if (graded.has(key)) cases.push({ ...planned, key: `${key}|solution`, label: `${label} [solution]`, optional: false });
    const inputKey = paramsKey(d.params, lab.inputParams);
    if (!inputs.has(inputKey)) inputs.set(inputKey, lab.planning?.inputsMs?.(d.params, ctx, calibration) ?? 0);
  }
  const inputsMs = [...inputs.values()].reduce((a, b) => a + b, 0);
  const harnessMs = harnessOf(cases, forks);
  return {
    lab: lab.name,
    p: ctx.availableParallelism,
    quick: ctx.quick,
    sampling,
    cases,
    inputsMs,
    forks,
    harnessMs,
    totalMs: totalOf(cases, sampling, inputsMs, harnessMs),
    unestimated,
  };
}

/** The same plan with other rounds and without some cases (no new call into the lab). */
function replan(plan: RunPlan, rounds: number, omitted: ReadonlySet<string>): RunPlan {
  const sampling = { ...plan.sampling, rounds };
  const cases = plan.cases.filter((c) => !omitted.has(c.key));
  const harnessMs = harnessOf(cases, plan.forks);
  return { ...plan, sampling, cases, harnessMs, totalMs: totalOf(cases, sampling, plan.inputsMs, harnessMs) };
}

/** The most rounds, from `low` up to `high`, whose plan fits `budgetMs`; `low` when none does. */
function mostRounds(plan: RunPlan, low: number, high: number, omitted: ReadonlySet<string>, budgetMs: number): number {
  let rounds = low;
  while (rounds < high && replan(plan, rounds + 1, omitted).totalMs <= budgetMs) rounds++;
  return rounds;
}

/**
 * Fits a plan to `budgetMs`: the lab's sampling when it fits; else the most rounds that fit, never below MIN_ROUNDS
 * (or the lab's own rounds, if fewer); else, at the fewest rounds, the optional cases are left out, the longest
 * first, until it fits, and the rounds go back up as far as the budget then allows. Leaving a case out changes no
 * other case: a lab makes its inputs from its whole sweep (event-loop's burst follows its largest pool, run or not).
 */
export function fitToBudget(plan: RunPlan, budgetMs: number): RunFit {
  // A graded run keeps a round for each fork (run-cases.ts gradedSampling).
  const fewest = Math.max(Math.min(plan.sampling.rounds, MIN_ROUNDS), Math.min(plan.sampling.rounds, plan.forks));
  const omitted = new Set<string>();
  let rounds = mostRounds(plan, fewest, plan.sampling.rounds, omitted, budgetMs);
  if (replan(plan, rounds, omitted).totalMs > budgetMs) {
    const costOf = (c: PlannedCase) => caseMs(c, { ...plan.sampling, rounds: fewest });
    // The longest first; of equally long ones, the later in the sweep (a lab lists its main variants first).
    const optional = plan.cases
      .map((c, index) => ({ c, index }))
      .filter(({ c }) => c.optional)
      .sort((a, b) => costOf(b.c) - costOf(a.c) || b.index - a.index)
      .map(({ c }) => c);
    for (const c of optional) {
      if (replan(plan, fewest, omitted).totalMs <= budgetMs) break;
      omitted.add(c.key);
    }
    rounds = mostRounds(plan, fewest, plan.sampling.rounds, omitted, budgetMs);
  }
  const fitted = replan(plan, rounds, omitted);
  return {
    budgetMs,
    asked: plan,
    plan: fitted,
    omitted: plan.cases.filter((c) => omitted.has(c.key)),
    withinBudget: fitted.totalMs <= budgetMs,
  };
}

/** The planned duration's words ("42 s", "2 min 10 s") are the core's formatDuration, named here for the plan's readers. */
export { formatDuration };

/** What the fit changed, in words, or null when nothing changed: "rounds reduced from 10 to 6 to stay within 5 min". */
export function describeReduction(fit: RunFit): string | null {
  const changes: string[] = [];
  if (fit.plan.sampling.rounds < fit.asked.sampling.rounds) changes.push(`rounds reduced from ${fit.asked.sampling.rounds} to ${fit.plan.sampling.rounds}`);
  if (fit.omitted.length > 0) changes.push(`${fit.omitted.length} optional case${fit.omitted.length === 1 ? '' : 's'} left out (${fit.omitted.map((c) => c.label).join(', ')})`);
  if (fit.withinBudget) return changes.length ? `${changes.join(' and ')} to stay within ${formatDuration(fit.budgetMs)}` : null;
  return `${changes.length ? `${changes.join(' and ')}, and still` : 'it is'} over the ${formatDuration(fit.budgetMs)} budget: expect a longer run`;
}

/** The line `npm run lab` prints before the check: "planned: 41 cases, about 2 min 10 s (P = 64); rounds reduced ...". */
export function describeFit(fit: RunFit): string {
  const plan = fit.plan;
  const missing = plan.unestimated.length ? `; ${plan.unestimated.length} case(s) without an estimate not counted` : '';
  const reduction = describeReduction(fit);
  return `planned: ${plan.cases.length} cases, about ${formatDuration(plan.totalMs)} (P = ${plan.p}${missing})${reduction ? `; ${reduction}` : ''}`;
}
