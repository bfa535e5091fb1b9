/**
 * The judge's half of the measure stage, in the supervisor's process (which never loads learner code): it decides
 * which case runs when, draws each sample's fresh input and reveals it only when it asks for that sample, and times
 * every sample with its own clock, from sending 'sample' to receiving the runner's 'sampled' (sample-server.ts).
 * - the round trip of that protocol is calibrated first with an empty task (the harness overhead per sample);
 * - a warm-up per case, its samples discarded (their outputs still checked), then rounds that interleave the cases
 *   in a rotating order, a graded pair's two cases side by side and their samples ABBA (measure.ts roundUnits,
 *   pairSampleOrder), group after group with a full garbage collection between groups;
 * - from its own times of the warm-up the judge sets each case's calls per sample (sample-limits.ts): a fast case's
 *   sample is several calls back to back, each on its own input, timed as one and recorded per call (the sample's
 *   time / its calls), so the round trip is under 1% of the sample, as JMH's and Criterion.rs's iterations per
 *   sample; every call's output is checked. Where the cap kept a sample shorter, the lab process's own time of it,
 *   held within the round trip's bound of the judge's (judge-clock.ts recordedCallMs), is recorded instead, and a
 *   note says so;
 * - the runner answers the moment the call returns and sends the output right after; the judge checks it in this
 *   process (judge-outputs.ts: whole, or at positions it draws once the answer is in, 'show', then often whole,
 *   fetched block by block, whole-output.ts), times its crossing, and charges to the sample whatever that took
 *   beyond the same step of a trusted case on the same inputs (judge-clock.ts chargeAfterAnswer): work left for after
 *   the answer (a lazy output its serialization reads) is timed. Putting the output inside the window instead would
 *   put its transfer into every sample (docs/architecture.md);
 * - any answer the judge did not ask for, a second answer, an answer to another request, is refused
 *   (judge-channel.ts); the caller fails the run's case for it.
 * This file holds the stages, in the order they run (calibrate, warmUp, chooseCalls, measureRounds, and takeSample for
 * each sample, its outputs checked by sample-checks.ts) and judgeSamples, which runs them.
 * Input: the cases that passed their check (their keys, groups and limits; judged-case.ts), the sampling plan, the
 * channels to the runners. Output: the samples of each case (per call) in the order taken with their rounds and calls
 * per sample, the cases that failed, the calibrated round trip, the run's notes.
 */
import { serialize } from 'node:v8';
import { formatFixed, median } from '@parallel-course/core';
import type { SamplingPlan } from '../lab-definition.ts';
import { JudgeChannel, type Watch } from './judge-channel.ts';
import { chargeAfterAnswer, CLOCK_TOLERANCE, clockNotes, recordedCallMs, upperTrip } from './judge-clock.ts';
import type { JudgedCase, JudgedSamples } from './judged-case.ts';
import type { OutputJudge } from './judge-outputs.ts';
import { measureGroups, pairSampleOrder, roundUnits } from './measure.ts';
import type { Activity } from './run-protocol.ts';
import { checkSampleOutputs, largeOutputNote, type SampleChecking } from './sample-checks.ts';
import { BETWEEN_LIMIT_MS, callsPerSample, type CallsPerSample, MIN_SAMPLE_LIMIT_MS, multiCallLimitMs, pairedCalls, PROBE_BELOW_TRIPS, PROBE_SAMPLES, SAMPLE_LIMIT_FACTOR } from './sample-limits.ts';

/** The empty samples that calibrate the round trip. */
export const CALIBRATION_SAMPLES = 51;

/** What the caller hears while the judge measures. */
export interface JudgeHooks {
  onProgress?(done: number, total: number, label: string, phase: 'warm-up' | 'measure'): void;
  /**
   * Around each case's samples of a round, taken in the case's process `fork` (0 unless it has several: JudgedCase
   * forks); the supervisor reads the CPU other processes used meanwhile.
   */
  beforeRound?(round: number, caseKey: string, fork: number): void;
  afterRound?(round: number, caseKey: string, fork: number): void;
}

/** The channels to the runner processes of a run, and which one has each case. */
export interface JudgeRoute {
  /** Every channel, the one whose round trip is the run's harness overhead first. */
  channels: JudgeChannel[];
  /** Each channel's runner, for the notes ('learner', 'graded', 'solution'); absent: unnamed. */
  names?: string[];
  /** The channel of the process that has the case; of a case measured in several (JudgedCase forks), process `fork`'s. */
  of(caseKey: string, fork?: number): JudgeChannel;
}

/** How the notes name a graded run's runners (run-protocol.ts RunnerSide), one process and several (its forks). */
const RUNNER_NAMES: Record<string, [string, string]> = {
  learner: ["the learner's process", "the learner's processes"],
  graded: ["the learner's graded cases' process", "the learner's graded cases' processes"],
  solution: ["the solution's process", "the solution's processes"],
};

/** The round trips of the processes after the first, by runner name in order of first appearance: "the solution's processes 0.071, 0.080 ms". */
function otherTrips(roundTrips: number[], names: string[]): string {
  const byName = new Map<string, number[]>();
  roundTrips.slice(1).forEach((ms, i) => byName.set(names[i + 1] ?? '', [...(byName.get(names[i + 1] ?? '') ?? []), ms]));
  return [...byName]
    .map(([name, trips]) => `${RUNNER_NAMES[name]?.[trips.length > 1 ? 1 : 0] ?? (trips.length > 1 ? 'other processes' : 'another process')} ${trips.map((ms) => formatFixed(ms, 3)).join(', ')} ms`)
    .join(', ');
}

/**
 * What one judgeSamples run keeps while it measures, shared by its parts (calibrate, takeSample, chooseCalls, warmUp,
 * measureRounds). Times in ms.
 */
interface SamplingRun extends SampleChecking {
  cases: JudgedCase[];
  plan: SamplingPlan;
  hooks: JudgeHooks;
  channels: JudgeChannel[];
  /**
   * Per case, each measured sample's time per call as recorded, the judge's time of the whole sample, and what came
   * after the answer (from 'sampled' to 'output', plus the 'show' round trips of large outputs) per call, in ms.
   */
  taken: Map<string, { callMs: number[]; judgeMs: number[]; afterMs: number[]; sampleRounds: number[]; sampleProcesses: number[]; calls: number }>;
  /** Per case, how many samples the runner's own clock disagreed with the judge's on. */
  disagreements: Map<string, number>;
  /** Each case's calls per sample, set once its warm-up is over (1 until then). */
  chosen: Map<string, CallsPerSample>;
  /** Per case, the judge's times of its warm-up samples (one call each) and the largest output one sent, in bytes. */
  warm: Map<string, { ms: number[]; outputBytes: number | null }>;
  /** The run's round trip (the first channel's median empty sample), and the bound recordedCallMs holds a sample to. */
  roundTripMs: number;
  tripBoundMs: number;
  /** Cases' rounds reported to onProgress so far, of `total`. */
  progress: { done: number; total: number };
}

/** The processes a case is measured in (a graded run's forks), 1 unless it says. */
function forksOf(c: JudgedCase): number {
  return c.forks ?? 1;
}

/** Whether `channel` is one of the processes that has case `c` (any of its forks). */
function hasCase(run: Pick<SamplingRun, 'of'>, c: JudgedCase, channel: JudgeChannel): boolean {
  return Array.from({ length: forksOf(c) }, (_, f) => run.of(c.key, f)).includes(channel);
}

/** The watch of a request between samples: bounded too, since learner code may block the runner's main thread at any time. */
function betweenWatch(run: Pick<SamplingRun, 'cases' | 'of'>, channel: JudgeChannel): Watch {
  return {
    activity: { stage: 'between', caseKey: run.cases.find((c) => hasCase(run, c, channel))?.key ?? '' },
    limitMs: BETWEEN_LIMIT_MS,
    why: `an answer between samples may take ${BETWEEN_LIMIT_MS / 1000} s`,
  };
}

/**
 * Calibration: CALIBRATION_SAMPLES empty tasks through the same request and answers as every sample, of each
 * process. Output: each channel's median round trip (the first is the run's), and the bound recordedCallMs uses.
 */
async function calibrate(run: Pick<SamplingRun, 'cases' | 'of' | 'channels'>): Promise<{ roundTrips: number[]; tripBoundMs: number }> {
  const roundTrips: number[] = [];
  const tripBounds: number[] = [];
  for (const channel of run.channels) {
    const trips: number[] = [];
    for (let i = 0; i < CALIBRATION_SAMPLES; i++) {
      const { sentAt, receivedAt } = await channel.ask({ type: 'sample', caseKey: null }, betweenWatch(run, channel));
      trips.push((receivedAt[0] as number) - sentAt);
    }
    roundTrips.push(median(trips));
    tripBounds.push(upperTrip(trips));
  }
  // In a graded run the solution's process (never running learner code) calibrates the bound too: the learner's
  // process cannot widen it by slowing its own empty samples.
  return { roundTrips, tripBoundMs: Math.min(...tripBounds) };
}


/** Keeps the largest output a warm-up sample of one call sent, in bytes (null: one checked by positions, or unsized). */
function noteOutputSize(run: SamplingRun, c: JudgedCase, output: unknown): void {
  const w = run.warm.get(c.key)!;
  const out = output as { kind?: unknown; value?: unknown };
  let bytes: number | null = null;
  try {
    // An output checked by positions stays one a sample (its sample is long); another, its size in the runner.
    bytes = out.kind === 'whole' ? serialize(out.value).byteLength : null;
  } catch {
    bytes = null;
  }
  w.outputBytes = w.outputBytes === null || bytes === null ? null : Math.max(w.outputBytes, bytes);
}

/**
 * One sample of `c` of `calls` calls, in its process `fork` (0 unless it has several): their inputs made, then timed
 * from this side as one, every call's output checked here; null when the case failed.
 */
async function takeSample(run: SamplingRun, c: JudgedCase, activity: Activity, stage: 'warm-up' | 'measure', index: number, calls: number, fork = 0): Promise<{ judgeMs: number; callMs: number; afterMs: number } | null> {
  // The floor (MIN_SAMPLE_LIMIT_MS) counts once a sample, not once a call: 1,000 calls of a fast case would otherwise
  // let one that hangs on some input hold the run for hours.
  const limitMs = multiCallLimitMs(c.sampleLimitMs, c.checkMs ?? null, calls);
  const watch = {
    activity,
    limitMs,
    why: `one sample may take at most ${formatFixed(limitMs / 1000, 1)} s (${SAMPLE_LIMIT_FACTOR} x its check time, at least ${MIN_SAMPLE_LIMIT_MS / 1000} s${calls > 1 ? `, and ${SAMPLE_LIMIT_FACTOR} x its check time for each of its ${calls - 1} other calls` : ''})`,
  };
  const channel = run.of(c.key, fork);
  // The judge's own copy of each call's input, made before the runner is asked for anything (nothing is timed yet).
  const inputs = run.outputs.next(c.key, calls);
  const prepared = (await channel.ask({ type: 'prepare', caseKey: c.key, fresh: inputs.map((i) => i.fresh) }, watch)).answers[0];
  if (prepared?.type === 'prepared' && prepared.error !== null) {
    run.failed.set(c.key, { reason: `${prepared.error} (${stage} sample #${index})`, stage, sample: index });
    return null;
  }
  const { answers, sentAt, receivedAt } = await channel.ask({ type: 'sample', caseKey: c.key }, watch);
  const [sampled, output] = answers;
  const named = stage === 'warm-up' ? 'warm-up' : 'measured';
  if (sampled?.type !== 'sampled' || output?.type !== 'output') {
    // Every null this returns is a failed case: a probe left unanswered would otherwise leave the count at 1.
    run.failed.set(c.key, { reason: `answered ${named} sample #${index} without its outputs (each call's output is checked)`, stage, sample: index });
    return null;
  }
  const sent: unknown[] = Array.isArray(output.outputs) ? output.outputs : [];
  const threw = sent.find((o) => (o as { kind?: unknown } | null)?.kind === 'threw') as { error?: unknown } | undefined;
  if (threw) {
    run.failed.set(c.key, { reason: `threw while it was measured (${stage}): ${String(threw.error).slice(0, 2000)}`, stage, sample: index });
    return null;
  }
  // One output per call asked: a runner that answered after fewer calls (or sent more) did not do the sample's work.
  if (sent.length !== calls) {
    run.failed.set(c.key, { reason: `answered ${named} sample #${index} with ${sent.length} outputs for its ${calls} calls (each call's output is checked)`, stage, sample: index });
    return null;
  }
  const showMs = await checkSampleOutputs(run, c, inputs, sent, stage, index, watch, channel);
  if (showMs === null) return null;
  if (stage === 'warm-up' && calls === 1) noteOutputSize(run, c, sent[0]);
  const judgeMs = (receivedAt[0] as number) - sentAt;
  // The runner's own clock, for comparison: a lab process whose time of the sample differs from the judge's by more
  // than the round trip and the tolerance was descheduled, or its clock tampered with: a note says so.
  const runner = sampled.runnerMs;
  if (!(Number.isFinite(runner) && runner >= 0) || Math.abs(judgeMs - runner) > run.roundTripMs + CLOCK_TOLERANCE * judgeMs + 1) run.disagreements.set(c.key, (run.disagreements.get(c.key) ?? 0) + 1);
  // The judge's time per call; where a cap kept the sample under MIN_SAMPLE_TRIPS round trips, the lab process's
  // own time held within the round trip's bound (the round trip would otherwise be more than 1% of it).
  const short = run.chosen.get(c.key)?.shortBy != null;
  const wholeMs = short ? recordedCallMs(judgeMs, runner, run.tripBoundMs) : judgeMs;
  return { judgeMs, callMs: wholeMs / calls, afterMs: ((receivedAt[1] as number) - (receivedAt[0] as number) + showMs) / calls };
}

/**
 * Sets the calls per sample of `members` not set yet, from the judge's own times: a first guess from their warm-up
 * (the fastest, less the round trip; their check call's time without a warm-up), then, where that guess's sample
 * is under PROBE_BELOW_TRIPS round trips, PROBE_SAMPLES more discarded samples of that many calls, whose fastest
 * time per call (the round trip and the timer's jitter shared by the calls; a cold or descheduled sample left out)
 * sets the count. A case of a pair gets its pair's count where that is larger and fits (pairedCalls).
 */
async function chooseCalls(run: SamplingRun, members: JudgedCase[]): Promise<void> {
  const { chosen, failed, warm, outputs, plan, roundTripMs } = run;
  const open = members.filter((c) => !chosen.has(c.key) && !failed.has(c.key));
  /** Each case's own count, and the time per call it came from (ms). */
  const own = new Map<string, { choice: CallsPerSample; callMs: number }>();
  for (const c of open) {
    const w = warm.get(c.key)!;
    const callMs = w.ms.length > 0 ? Math.min(...w.ms) - roundTripMs : (c.checkMs ?? Number.POSITIVE_INFINITY);
    const input = outputs.inputBytes ? outputs.inputBytes(c.key) : 0;
    const bytes = input === null || w.outputBytes === null ? null : input + w.outputBytes;
    const guess = callsPerSample(callMs, roundTripMs, bytes);
    // No probe where the count stays 1 whatever a probe reads: a case whose samples are one call each (bytes null: the
    // lab's oneCallPerSample, or an output checked by positions). A slow warm-up call (a busy machine) made its guess
    // 1 call not held by the lab, and its probes were 3 more discarded samples.
    if (guess.shortBy === 'lab' || bytes === null || !(guess.calls * callMs + roundTripMs < PROBE_BELOW_TRIPS * roundTripMs)) {
      own.set(c.key, { choice: guess, callMs });
      continue;
    }
    await outputs.reserve?.(c.key, PROBE_SAMPLES * guess.calls);
    let fastest = Number.POSITIVE_INFINITY;
    for (let p = 0; p < PROBE_SAMPLES && !failed.has(c.key); p++) {
      const probe = await takeSample(run, c, { stage: 'warm-up', caseKey: c.key }, 'warm-up', plan.warmupSamples + p, guess.calls);
      if (probe) fastest = Math.min(fastest, (probe.judgeMs - roundTripMs) / guess.calls);
    }
    if (!failed.has(c.key)) own.set(c.key, { choice: callsPerSample(fastest, roundTripMs, bytes), callMs: fastest });
  }
  for (const c of open) {
    const mine = own.get(c.key);
    if (failed.has(c.key) || !mine) continue;
    // The pair's other case, measured in this group too (the other process's copy of the same variant and params).
    const mateCase = c.pair === undefined ? undefined : open.find((m) => m.pair === c.pair && m.key !== c.key && !failed.has(m.key));
    const mate = mateCase && own.get(mateCase.key);
    chosen.set(c.key, mate ? pairedCalls(mine.choice, mine.callMs, { calls: mate.choice.calls, callMs: mate.callMs }, roundTripMs) : mine.choice);
  }
  // A lab whose expected outputs are made up front makes those of the measured samples' calls now (nothing is timed).
  for (const c of open) {
    if (failed.has(c.key)) continue;
    const samples = plan.rounds * (plan.samplesPerRound + (c.rewarm ? 1 : 0));
    await outputs.reserve?.(c.key, samples * chosen.get(c.key)!.calls);
  }
}

/**
 * The warm-up of one group's cases: plan.warmupSamples discarded samples of one call each, their judge times kept; a
 * case measured in several processes (forks) is warmed up in each, so no fork starts its first round colder than the
 * others, and its calls per sample come from all of their times (the fastest), once.
 */
async function warmUp(run: SamplingRun, members: JudgedCase[]): Promise<void> {
  const { warmupSamples } = run.plan;
  if (warmupSamples === 0) return;
  for (const c of members) {
    run.hooks.onProgress?.(run.progress.done++, run.progress.total, c.label, 'warm-up');
    for (let fork = 0; fork < forksOf(c); fork++) {
      for (let s = 0; s < warmupSamples && !run.failed.has(c.key); s++) {
        const sample = await takeSample(run, c, { stage: 'warm-up', caseKey: c.key }, 'warm-up', fork * warmupSamples + s, 1, fork);
        if (sample) run.warm.get(c.key)!.ms.push(sample.judgeMs);
      }
    }
  }
}

/**
 * Before a case's first sample of round `round`, in its process r mod forks, one discarded sample where the case asks
 * for it (rewarm); false when that sample failed the case.
 */
async function rewarmFor(run: SamplingRun, c: JudgedCase, round: number): Promise<boolean> {
  if (!c.rewarm) return true;
  const calls = run.chosen.get(c.key)?.calls ?? 1;
  return (await takeSample(run, c, { stage: 'warm-up', caseKey: c.key }, 'warm-up', run.plan.warmupSamples * forksOf(c) + round, calls, round % forksOf(c))) !== null;
}

/**
 * `count` measured samples of `c` in round `round` (numbered from `firstRound` in the results), in its process
 * r mod forks, recorded with their round and process; the hooks bracket them.
 */
async function roundSamples(run: SamplingRun, c: JudgedCase, round: number, firstRound: number, count: number): Promise<void> {
  const t = run.taken.get(c.key)!;
  const calls = run.chosen.get(c.key)?.calls ?? 1;
  t.calls = calls;
  const fork = round % forksOf(c);
  run.hooks.beforeRound?.(firstRound + round, c.key, fork);
  for (let j = 0; j < count && !run.failed.has(c.key); j++) {
    const sample = await takeSample(run, c, { stage: 'measure', caseKey: c.key, round: firstRound + round }, 'measure', t.callMs.length, calls, fork);
    if (sample === null) break;
    t.callMs.push(sample.callMs);
    t.judgeMs.push(sample.judgeMs);
    t.afterMs.push(sample.afterMs);
    t.sampleRounds.push(firstRound + round);
    t.sampleProcesses.push(fork);
  }
  run.hooks.afterRound?.(firstRound + round, c.key, fork);
}

/**
 * One round of the cases of `unit` (measure.ts roundUnits): a case alone takes its samples back to back; a pair (a
 * graded case and the solution's copy) takes them in ABBA order (measure.ts pairSampleOrder), each side's discarded
 * sample (rewarm) right before its first sample of the round.
 */
async function unitRound(run: SamplingRun, unit: JudgedCase[], round: number, firstRound: number): Promise<void> {
  const { plan, hooks, failed, progress } = run;
  for (const c of unit) {
    progress.done++;
    if (!failed.has(c.key)) hooks.onProgress?.(progress.done - 1, progress.total, c.label, 'measure');
  }
  const sides = unit.length === 2 ? pairSampleOrder(plan.samplesPerRound, round).map((side) => unit[side] as JudgedCase) : unit.flatMap((c) => Array<JudgedCase>(plan.samplesPerRound).fill(c));
  const rewarmed = new Set<string>();
  for (let i = 0; i < sides.length; ) {
    const c = sides[i] as JudgedCase;
    let count = 1;
    while (sides[i + count] === c) count++;
    i += count;
    if (failed.has(c.key)) continue;
    if (!rewarmed.has(c.key)) {
      rewarmed.add(c.key);
      if (!(await rewarmFor(run, c, round))) continue;
    }
    await roundSamples(run, c, round, firstRound, count);
  }
}

/**
 * The measured rounds of one group's cases (run.cases indices `members`), numbered from `firstRound`: each round
 * takes plan.samplesPerRound samples of each case, the cases in a rotating order with a pair's two cases side by side
 * (measure.ts roundUnits, unitRound). A case measured in several processes (forks) takes its group's round r in
 * process r mod forks: a graded case and the solution's copy of it have the same forks, so fork i of one meets fork i
 * of the other in the same rounds (drift still cancels within a round).
 */
async function measureRounds(run: SamplingRun, members: number[], firstRound: number): Promise<void> {
  const memberCases = members.map((i) => run.cases[i] as JudgedCase);
  for (let round = 0; round < run.plan.rounds; round++) {
    for (const unit of roundUnits(memberCases.map((c) => c.pair), round)) {
      await unitRound(run, unit.map((k) => memberCases[k] as JudgedCase), round, firstRound);
    }
  }
}

/**
 * Measures `cases` through `channel` by `plan`, checking every output with `outputs` (judge-outputs.ts); a case that
 * fails is dropped, the others go on. In order: the round trip calibrated; then, group after group (a full garbage
 * collection between groups), the warm-up, each case's calls per sample, and the measured rounds; then the work after
 * each answer charged and the notes written.
 */
export async function judgeSamples(cases: JudgedCase[], plan: SamplingPlan, route: JudgeChannel | JudgeRoute, outputs: OutputJudge, hooks: JudgeHooks = {}): Promise<JudgedSamples> {
  const { channels, of, names = [] } = route instanceof JudgeChannel ? { channels: [route], of: () => route, names: [] } : route;
  const { roundTrips, tripBoundMs } = await calibrate({ cases, of, channels });
  const run: SamplingRun = {
    cases,
    plan,
    outputs,
    hooks,
    channels,
    of,
    taken: new Map(cases.map((c) => [c.key, { callMs: [], judgeMs: [], afterMs: [], sampleRounds: [], sampleProcesses: [], calls: 1 }])),
    failed: new Map(),
    disagreements: new Map(),
    chosen: new Map(),
    warm: new Map(cases.map((c) => [c.key, { ms: [], outputBytes: 0 }])),
    large: { outputs: 0, whole: 0, bytes: 0, fetchMs: 0, checkMs: 0 },
    roundTripMs: roundTrips[0] as number,
    tripBoundMs,
    progress: { done: 0, total: cases.length * (plan.rounds + (plan.warmupSamples > 0 ? 1 : 0)) },
  };
  for (const [g, members] of measureGroups(cases.map((c) => c.group)).entries()) {
    if (g > 0) for (const channel of channels) await channel.ask({ type: 'between', collectGarbage: true, resetObservations: [] }, betweenWatch(run, channel));
    const memberCases = members.map((i) => cases[i] as JudgedCase);
    await warmUp(run, memberCases);
    await chooseCalls(run, memberCases);
    const live = memberCases.map((c) => c.key).filter((key) => !run.failed.has(key));
    const liveCases = memberCases.filter((c) => live.includes(c.key));
    for (const channel of channels) await channel.ask({ type: 'between', collectGarbage: false, resetObservations: liveCases.filter((c) => hasCase(run, c, channel)).map((c) => c.key) }, betweenWatch(run, channel));
    await measureRounds(run, members, g * plan.rounds);
  }
  hooks.onProgress?.(run.progress.done, run.progress.total, '', 'measure');
  for (const key of run.failed.keys()) run.taken.delete(key);

  const { samples, charged } = chargeAfterAnswer(cases, run.taken);
  // Each sample's process, for a case measured in several (the results' sampleProcesses); absent: one process.
  for (const c of cases) {
    const s = samples.get(c.key);
    if (s && forksOf(c) > 1) s.sampleProcesses = run.taken.get(c.key)!.sampleProcesses;
  }
  const notes = clockNotes(cases, run.taken, run.chosen, charged, run.roundTripMs, run.disagreements, plan);
  if (run.large.outputs > 0) notes.push(largeOutputNote(run.large));
  if (roundTrips.length > 1) {
    const graded = Math.max(1, ...cases.map(forksOf));
    notes.push(
      `A graded run's own processes had round trips per sample of: ${otherTrips(roundTrips, names)}; the learner's, ${formatFixed(run.roundTripMs, 3)} ms, is the harness overhead recorded. ` +
        `The graded cases ran in ${graded > 1 ? `${graded} fresh processes a side (forks: round r in fork r mod ${graded}, fork i of the learner's graded cases beside fork i of the solution's copies)` : "a process of their own (the solution's copies' mirror)"}, so their speedups over the baseline, measured in the learner's process, compare two processes; a run without --grade measures them in one.`,
    );
  }
  return { samples, failed: run.failed, roundTripMs: run.roundTripMs, notes };
}
