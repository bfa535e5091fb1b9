/**
 * The judge's half of the measure stage, in the supervisor's process (which never loads learner code): it decides
 * which case runs when, draws each sample's fresh input and reveals it only when it asks for that sample, and times
 * every sample with its own clock, from sending 'sample' to receiving the runner's 'sampled' (sample-server.ts).
 * - the round trip of that protocol is calibrated first with an empty task (the harness overhead per sample);
 * - a warm-up per case, its samples discarded (their outputs still checked), then rounds that interleave the cases
 *   in a rotating order (measure.ts roundOrder), group after group with a full garbage collection between groups;
 * - from its own times of the warm-up the judge sets each case's calls per sample (callsPerSample): a fast case's
 *   sample is several calls back to back, each on its own input, timed as one and recorded per call (the sample's
 *   time / its calls), so the round trip is under 1% of the sample, as JMH's and Criterion.rs's iterations per
 *   sample; every call's output is checked. Where the cap kept a sample shorter, the lab process's own time of it,
 *   held within the round trip's bound of the judge's (recordedCallMs), is recorded instead, and a note says so;
 * - the runner answers the moment the call returns and sends the output right after; the judge checks it in this
 *   process (judge-outputs.ts: whole, or at positions it draws once the answer is in, 'show', then often whole,
 *   fetched block by block, whole-output.ts), times its crossing,
 *   and charges to the sample whatever that took beyond the same step of a trusted case on the same inputs
 *   (chargeAfterAnswer): work left for after the answer (a lazy output its serialization reads) is timed. Putting
 *   the output inside the window instead would put its transfer into every sample (docs/architecture.md);
 * - any answer the judge did not ask for, a second answer, an answer to another request, is refused (JudgeChannel);
 *   the caller fails the run's case for it.
 * Input: the cases that passed their check (their keys, groups and limits), the sampling plan. Output: the samples of
 * each case (per call) in the order taken with their rounds and calls per sample, the cases that failed, the
 * calibrated round trip.
 */
import { serialize } from 'node:v8';
import { formatBytes, formatFixed, formatSeconds, formatShare, median as coreMedian, quantile, sorted } from '@parallel-course/core';
import type { Comparison, SamplingPlan } from '../lab-definition.ts';
import { sampleMismatchText } from './check.ts';
import { measureGroups, roundOrder } from './measure.ts';
import type { Activity, JudgeRequest, RunnerMessage } from './run-protocol.ts';
import type { JudgedInput, OutputJudge } from './judge-outputs.ts';
import { drawWholeCheck, fetchWhole, WHOLE_CHECK_BYTES, type OutputBlock } from './whole-output.ts';
import { OUTPUT_BYTES_BOUND } from './sample-server.ts';

export { freshDraw } from './judge-outputs.ts';

type Answer = Extract<RunnerMessage, { type: 'prepared' | 'sampled' | 'output' | 'shown' | 'ok' }>;
/** The answers each request waits for, in order. */
const ANSWERS = { prepare: ['prepared'], sample: ['sampled', 'output'], show: ['shown'], between: ['ok'], finish: [], probed: [] } as const;
/** A request's answers, each stamped with the supervisor's clock on arrival. */
export interface Answered {
  answers: Answer[];
  sentAt: number;
  receivedAt: number[];
}
type Request = JudgeRequest extends infer R ? (R extends { seq: number } ? Omit<R, 'seq'> : never) : never;
/** What a request waits for, with the limit its activity has (the supervisor ends the runner past it). */
export interface Watch {
  activity: Activity;
  limitMs: number;
  why: string;
}

/**
 * A measured sample may take this many times as long as the same call took in the check (its first, cold call on
 * the measured input), and never less than MIN_SAMPLE_LIMIT_MS: generous for a warm call, short for a hang.
 */
export const SAMPLE_LIMIT_FACTOR = 20;
export const MIN_SAMPLE_LIMIT_MS = 10_000;

/** The limit for one sample of a case whose check call on the measured input took `checkMs`. */
export function sampleLimitMs(checkMs: number | null): number {
  return Math.max(MIN_SAMPLE_LIMIT_MS, Math.ceil(SAMPLE_LIMIT_FACTOR * (checkMs ?? MIN_SAMPLE_LIMIT_MS)));
}

/**
 * The limit of a sample of `calls` calls of a case whose one-call limit is `oneCallLimitMs` and whose check call took
 * `checkMs`: the one-call limit, plus SAMPLE_LIMIT_FACTOR x the check time for each further call (or a tenth of a
 * second each where the check time is unknown). Reference: a 0.05 ms check, 1,000 calls: 10 s + 999 x 1 ms = 11 s.
 */
export function multiCallLimitMs(oneCallLimitMs: number, checkMs: number | null, calls: number): number {
  const perCallMs = checkMs === null ? 100 : SAMPLE_LIMIT_FACTOR * checkMs;
  return Math.ceil(oneCallLimitMs + Math.max(0, calls - 1) * perCallMs);
}

/** The longest the runner may take to answer a request between samples (calibration, garbage collection), in ms. */
export const BETWEEN_LIMIT_MS = 30_000;
/** The empty samples that calibrate the round trip. */
export const CALIBRATION_SAMPLES = 51;
/** The round trip should stay under this share of the baseline's median sample (issue 42); a note says when not. */
export const MAX_ROUND_TRIP_SHARE = 0.01;
/** A sample's runner time may differ from the judge's by the round trip plus this share of the sample, plus 1 ms. */
export const CLOCK_TOLERANCE = 0.1;
/** A sample is at least this many round trips long where the caps allow: the round trip is then under MAX_ROUND_TRIP_SHARE of it. */
export const MIN_SAMPLE_TRIPS = Math.round(1 / MAX_ROUND_TRIP_SHARE);
/**
 * The sample length calls per sample aim for, in round trips: MIN_SAMPLE_TRIPS and 10% headroom, since the probes,
 * taken right after the warm-up, may read a call slower than the rounds do (a quick native-kernel run had 4 of 34
 * cases' median samples at 87-99 round trips when it aimed at 100).
 */
export const TARGET_SAMPLE_TRIPS = MIN_SAMPLE_TRIPS + MIN_SAMPLE_TRIPS / 10;
/** The most calls one sample makes (a 1 µs call's sample is then 1 ms: the round trip's 10%, and a note says so). */
export const MAX_CALLS_PER_SAMPLE = 1000;
/**
 * The most memory one sample's own inputs and outputs may hold (a fresh input per call, each output until it is sent),
 * in bytes: in the runner, and again in the judge's copy. 64 MiB: native-kernel's n = 128 product (640 kB a call) gets
 * up to 104 calls.
 */
export const MAX_SAMPLE_BYTES = 64 * 2 ** 20;

/** Discarded samples that set a case's calls per sample, of the count its warm-up suggests (judgeSamples). */
export const PROBE_SAMPLES = 3;
/** A case whose warm-up suggests a sample at least this many round trips long keeps that count without probes. */
export const PROBE_BELOW_TRIPS = 3 * MIN_SAMPLE_TRIPS;

/**
 * A graded case and the solution's copy of it run the larger of their two calls per sample (equal work) while that
 * keeps each one's sample within PAIR_SLOWDOWN x its pair's, or within PAIR_SAMPLE_TRIPS round trips (44 ms at a 0.1 ms
 * round trip), whichever is longer; beyond both, a side runs as many calls as fit, never fewer than its own count
 * (pairedCalls). So a side runs fewer calls than its pair only where its calls read over 10x slower than its pair's: a
 * grade ratio under 0.1, far below every target (0.8, 0.9). Why equal work is not needed there: the grade compares
 * times per call, and each side's own count already keeps the round trip under 1% of its sample; what equal work adds
 * is the same sample shape on both sides (as many inputs made before the window, as much garbage within it), kept
 * wherever a ratio could be near a target. 10x and not less: under a load of 11 on 2 vCPUs the warm-up read the same
 * code over 4x slower in one process than in the other (native-kernel's blocked n = 512), which would have split a
 * pair that should share its count. Without any bound a learner 3000x slower than a 2 us solution ran the solution's
 * 1,000 calls, 6 s a sample (forgery.test's graded cases went from 1-2 s to 25-70 s in CI, and to 24-230 s on a
 * loaded 2-vCPU machine).
 */
export const PAIR_SLOWDOWN = 10;
export const PAIR_SAMPLE_TRIPS = 4 * TARGET_SAMPLE_TRIPS;

/** A case's calls per sample, and what kept it from reaching MIN_SAMPLE_TRIPS round trips, if anything. */
export interface CallsPerSample {
  calls: number;
  /** 'cap': MAX_CALLS_PER_SAMPLE, 'memory': MAX_SAMPLE_BYTES, 'lab': the lab's oneCallPerSample or an output checked by positions; null: none. */
  shortBy: 'cap' | 'memory' | 'lab' | null;
}

/**
 * The calls per sample of a case whose one call takes about `callMs` (the judge's time of a warm-up sample less the
 * round trip), each holding `bytesPerCall` of input and output (null: one call a sample, the lab says so): the
 * smallest count whose sample lasts TARGET_SAMPLE_TRIPS round trips, within MAX_CALLS_PER_SAMPLE and MAX_SAMPLE_BYTES.
 * Reference: a 0.05 ms call with a 0.1 ms round trip gets ceil(110 x 0.1 / 0.05) = 220 calls.
 */
export function callsPerSample(callMs: number, roundTripMs: number, bytesPerCall: number | null): CallsPerSample {
  const floorMs = roundTripMs / (TARGET_SAMPLE_TRIPS * MAX_CALLS_PER_SAMPLE);
  // (Less a hair: 110 x 0.1 / 0.05 is 220.00000000000003 in doubles.)
  const needed = Math.ceil((TARGET_SAMPLE_TRIPS * roundTripMs) / Math.max(callMs, floorMs, Number.MIN_VALUE) - 1e-9);
  if (!(needed > 1)) return { calls: 1, shortBy: null };
  if (bytesPerCall === null) return { calls: 1, shortBy: 'lab' };
  const byMemory = bytesPerCall > 0 ? Math.max(1, Math.floor(MAX_SAMPLE_BYTES / bytesPerCall)) : Number.POSITIVE_INFINITY;
  const calls = Math.min(needed, MAX_CALLS_PER_SAMPLE, byMemory);
  return { calls, shortBy: calls === needed ? null : calls === byMemory && byMemory < MAX_CALLS_PER_SAMPLE ? 'memory' : 'cap' };
}

/**
 * The calls per sample of one case of a graded pair whose own count is `own` (callsPerSample, its call about `callMs`)
 * and whose pair's count and call time are `mate`: the larger count (equal work), held to what keeps its sample within
 * PAIR_SLOWDOWN x its pair's or PAIR_SAMPLE_TRIPS round trips, never under its own count; a count its memory or its lab
 * holds stays. Reference: own 1 call of 25 ms, the pair's 220 of 0.05 ms (an 11 ms sample), a 0.1 ms round trip: the
 * longer of 10 x 11 ms and 440 x 0.1 ms is 110 ms, so floor(110 / 25) = 4 calls (where 220 made a sample 5.5 s).
 */
export function pairedCalls(own: CallsPerSample, callMs: number, mate: { calls: number; callMs: number }, roundTripMs: number): CallsPerSample {
  if (mate.calls <= own.calls || own.shortBy === 'memory' || own.shortBy === 'lab') return own;
  const longestMs = Math.max(PAIR_SAMPLE_TRIPS * roundTripMs, PAIR_SLOWDOWN * mate.calls * mate.callMs);
  // (Plus a hair, as callsPerSample's less one: 440 x 0.1 / 0.08 is 549.9999999999999 in doubles.)
  const fits = Math.floor(longestMs / Math.max(callMs, Number.MIN_VALUE) + 1e-9);
  const calls = Math.max(own.calls, Math.min(mate.calls, fits));
  return calls === own.calls ? own : { calls, shortBy: null };
}

/** A refused message: the judge did not ask for it (or not for it now). */
export class RefusedAnswer extends Error {
  /** The case the judge was asking about when it arrived, if it was asking. */
  readonly caseKey: string | null;
  constructor(message: string, caseKey: string | null) {
    super(message);
    this.name = 'RefusedAnswer';
    this.caseKey = caseKey;
  }
}

/**
 * The request-answer channel to one runner: one request in flight at a time, each answered once, by an answer of its
 * own type and number. `deliver` gets every answer-type message the runner sends, stamped on arrival.
 */
export class JudgeChannel {
  #seq = 0;
  #pending: { seq: number; type: Request['type']; caseKey: string | null; resolve(a: Answered): void; sentAt: number; answers: Answer[]; receivedAt: number[] } | null = null;
  #send: (request: JudgeRequest) => void;
  #watch: (watch: Watch | null) => void;
  #closed: Error | null = null;
  #reject: ((error: Error) => void) | null = null;

  /** `send` posts a request; `watch` starts (or, with null, stops) the supervisor's timer for the call in flight. */
  constructor(send: (request: JudgeRequest) => void, watch: (watch: Watch | null) => void) {
    this.#send = send;
    this.#watch = watch;
  }

  /** The supervisor's clock when the request in flight was sent (ms), or null. */
  get inFlightSince(): number | null {
    return this.#pending?.sentAt ?? null;
  }

  /** The case the request in flight is about, if one is. */
  get pendingCase(): string | null {
    return this.#pending?.caseKey ?? null;
  }

  /** Sends a request and resolves with its answers, stamped with the supervisor's clock at send and at each arrival. */
  ask(request: Request, watch: Watch | null): Promise<Answered> {
    if (this.#closed) return Promise.reject(this.#closed);
    // One request in flight at a time (a forged 'check-output' could otherwise start a second 'show' over the first).
    if (this.#pending) return Promise.reject(new RefusedAnswer(`a request ('${request.type}') while '${this.#pending.type}' #${this.#pending.seq} waits for its answer`, this.#pending.caseKey));
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#reject = reject;
      this.#watch(watch);
      const caseKey = 'caseKey' in request ? request.caseKey : null;
      // The clock reading is the last thing before the message leaves, the first thing when an answer arrives.
      this.#pending = { seq, type: request.type, caseKey, resolve, sentAt: performance.now(), answers: [], receivedAt: [] };
      this.#send({ ...request, seq } as JudgeRequest);
    });
  }

  /** Sends a request that has no answer of its own ('finish'). */
  tell(request: Request): void {
    this.#send({ ...request, seq: ++this.#seq } as JudgeRequest);
  }

  /** An answer-type message from the runner; throws RefusedAnswer when it is not the answer awaited now. */
  deliver(message: Answer, receivedAt: number): void {
    const pending = this.#pending;
    if (!pending) throw new RefusedAnswer(`an answer ('${message.type}') arrived that the harness did not ask for`, null);
    const awaited: string | undefined = ANSWERS[pending.type][pending.answers.length];
    if (message.seq !== pending.seq || awaited !== message.type) {
      throw new RefusedAnswer(`an answer ('${message.type}' #${message.seq}) arrived where the harness waited for '${awaited}' #${pending.seq}`, pending.caseKey);
    }
    pending.answers.push(message);
    pending.receivedAt.push(receivedAt);
    if (pending.answers.length < ANSWERS[pending.type].length) return;
    this.#pending = null;
    this.#watch(null);
    pending.resolve({ answers: pending.answers, sentAt: pending.sentAt, receivedAt: pending.receivedAt });
  }

  /** Ends the channel: the request in flight, and any later one, rejects with `error`. */
  close(error: Error): void {
    this.#closed ??= error;
    this.#pending = null;
    this.#reject?.(error);
  }
}

/** One case the judge measures. */
export interface JudgedCase {
  key: string;
  label: string;
  group?: string;
  /** The longest one sample may take before the supervisor ends the runner, in ms. */
  sampleLimitMs: number;
  /** The lab's baseline variant. */
  baseline: boolean;
  /** Its check call's time on the measured input (the runner's), in ms: the calls per sample's guide without a warm-up. */
  checkMs?: number | null;
  /** Cases with the same pair get the same calls per sample where it costs little (a graded case and the solution's copy: equal work, pairedCalls). */
  pair?: string;
  /** Code the learner did not write (the baseline, the solution's copy in a graded run): its checks set what a check costs. */
  trusted: boolean;
  /** Cases with the same key run on the same inputs (CaseInfo.inputKey). */
  inputKey: string;
  /**
   * One discarded sample before each of its rounds (a graded case and the solution's copy of it, alike): their two
   * processes idle while the learner's runs every other case, and neither may start a round colder than it ran.
   */
  rewarm?: boolean;
}

export interface JudgedSamples {
  /** Per case, each measured sample's time per call (ms), its round, and the calls each sample made. */
  samples: Map<string, { samplesMs: number[]; sampleRounds: number[]; callsPerSample: number }>;
  failed: Map<string, { reason: string; stage: 'warm-up' | 'measure'; sample: number | null }>;
  /** The median round trip of an empty sample, in ms: the harness overhead per sample. */
  roundTripMs: number;
  notes: string[];
}

export interface JudgeHooks {
  onProgress?(done: number, total: number, label: string, phase: 'warm-up' | 'measure'): void;
  /** Around each case's samples of a round (the supervisor reads the CPU other processes used meanwhile). */
  beforeRound?(round: number, caseKey: string): void;
  afterRound?(round: number, caseKey: string): void;
}

/** The channels to the runner processes of a run, and which one has each case. */
export interface JudgeRoute {
  /** Every channel, the one whose round trip is the run's harness overhead first. */
  channels: JudgeChannel[];
  /** Each channel's runner, for the notes ('learner', 'graded', 'solution'); absent: unnamed. */
  names?: string[];
  of(caseKey: string): JudgeChannel;
}

/** Why an output differs from the expected one, for the case's failed entry. */
function mismatchText(comparison: Comparison, stage: 'warm-up' | 'measure', index: number, call = ''): string {
  return sampleMismatchText(stage === 'warm-up' ? 'warm-up' : 'measured', index, comparison, call);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The core's median, NaN for no values (a case with no samples left). */
function median(values: number[]): number {
  return values.length === 0 ? Number.NaN : coreMedian(values);
}

/** How the notes name a graded run's runners (run-protocol.ts RunnerSide). */
const RUNNER_NAMES: Record<string, string> = { learner: "the learner's process", graded: "the learner's graded cases' process", solution: "the solution's process" };

/** The most the round trip may take off a sample (ms), however wide a calibration reads: a cap on what it can hide. */
export const MAX_TRIP_BOUND_MS = 0.5;

/**
 * The 90th percentile of a calibration's round trips (the core's R-7 `quantile`), capped at MAX_TRIP_BOUND_MS and
 * never negative: the bound recordedCallMs uses; 0 for no round trips. At the calibration's 51 round trips it is
 * exactly the 46th smallest ((51 - 1) x 0.9 = 45, no interpolation), the order statistic the judge took before.
 */
export function upperTrip(trips: readonly number[]): number {
  const p90 = trips.length === 0 ? 0 : quantile(sorted(trips), 0.9);
  return Math.min(MAX_TRIP_BOUND_MS, Math.max(0, p90));
}

/**
 * The time a sample records: the lab process's own time of the call, held between the judge's time less the round
 * trip's bound and the judge's time. The judge's time alone carries the round trip (about 0.03-0.1 ms), which would
 * shrink every speedup between sub-millisecond samples toward 1 (a 0.07 ms BLAS call read 0.17 ms); the lab process's
 * time alone could be forged. Held between the two, an honest lab process records its own time, and a forged one
 * takes off at most the bound (the round trip's 90th percentile, at most MAX_TRIP_BOUND_MS).
 */
export function recordedCallMs(judgeMs: number, runnerMs: number, tripBoundMs: number): number {
  if (!Number.isFinite(runnerMs)) return judgeMs;
  return Math.min(judgeMs, Math.max(runnerMs, judgeMs - tripBoundMs));
}

/**
 * What one judgeSamples run keeps while it measures, shared by its parts (calibrate, takeSample, chooseCalls, warmUp,
 * measureRounds). Times in ms.
 */
interface SamplingRun {
  cases: JudgedCase[];
  plan: SamplingPlan;
  outputs: OutputJudge;
  hooks: JudgeHooks;
  channels: JudgeChannel[];
  /** The channel of the process that runs a case. */
  of(caseKey: string): JudgeChannel;
  /**
   * Per case, each measured sample's time per call as recorded, the judge's time of the whole sample, and what came
   * after the answer (from 'sampled' to 'output', plus the 'show' round trips of large outputs) per call, in ms.
   */
  taken: Map<string, { callMs: number[]; judgeMs: number[]; afterMs: number[]; sampleRounds: number[]; calls: number }>;
  failed: JudgedSamples['failed'];
  /** Per case, how many samples the runner's own clock disagreed with the judge's on. */
  disagreements: Map<string, number>;
  /** Each case's calls per sample, set once its warm-up is over (1 until then). */
  chosen: Map<string, CallsPerSample>;
  /** Outputs over the bound checked at positions, those of them also checked whole, the bytes fetched, the times in ms. */
  large: { outputs: number; whole: number; bytes: number; fetchMs: number; checkMs: number };
  /** Per case, the judge's times of its warm-up samples (one call each) and the largest output one sent, in bytes. */
  warm: Map<string, { ms: number[]; outputBytes: number | null }>;
  /** The run's round trip (the first channel's median empty sample), and the bound recordedCallMs holds a sample to. */
  roundTripMs: number;
  tripBoundMs: number;
  /** Cases' rounds reported to onProgress so far, of `total`. */
  progress: { done: number; total: number };
}

/** The watch of a request between samples: bounded too, since learner code may block the runner's main thread at any time. */
function betweenWatch(run: Pick<SamplingRun, 'cases' | 'of'>, channel: JudgeChannel): Watch {
  return {
    activity: { stage: 'between', caseKey: run.cases.find((c) => run.of(c.key) === channel)?.key ?? '' },
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

/** A call's output checked: its comparison, the time its positions' 'show' took, and its whole check when drawn. */
type CallChecked = { comparison: Comparison; showMs: number; whole?: () => Promise<Comparison> } | { threw: string };

/**
 * Checks one call's output in this process: whole, or at positions drawn now that the answer is in; where drawn too
 * (whole-output.ts drawWholeCheck), `whole` fetches it block by block and checks it whole, to be run once every call's
 * positions are read (the fetch takes seconds). The positions' 'show' is timed (showMs, charged beyond a trusted
 * case's); the whole fetch is not (the judge's choice, not the sample's work).
 */
async function checkCallOutput(run: SamplingRun, c: JudgedCase, sample: JudgedInput, output: unknown, call: number, watch: Watch): Promise<CallChecked> {
  const sent = output as { kind?: unknown; value?: unknown; length?: unknown; error?: unknown } | null;
  if (sent?.kind === 'threw') return { threw: String(sent.error).slice(0, 2000) };
  if (sent?.kind === 'whole') return { comparison: run.outputs.check(c.key, sample, sent.value), showMs: 0 };
  if (sent?.kind !== 'large' || typeof sent.length !== 'number') return { threw: 'its output arrived in no form the protocol has' };
  const positions = run.outputs.positions(c.key, sample, sent.length);
  if (!Array.isArray(positions)) return { comparison: positions, showMs: 0 };
  const show = async (ask: { positions: number[]; block?: OutputBlock }) => {
    const shown = await run.of(c.key).ask({ type: 'show', caseKey: c.key, call, ...ask }, watch);
    const values = shown.answers[0]?.type === 'shown' ? shown.answers[0].values : null;
    return { values: ArrayBuffer.isView(values) || Array.isArray(values) ? (values as ArrayLike<number>) : [], ms: (shown.receivedAt[0] as number) - shown.sentAt };
  };
  const atPositions = await show({ positions });
  const comparison = run.outputs.checkAt(c.key, sample, positions, atPositions.values);
  run.large.outputs++;
  if (!comparison.equal || !drawWholeCheck(sent.length)) return { comparison, showMs: atPositions.ms };
  const length = sent.length;
  const whole = async (): Promise<Comparison> => {
    const t0 = performance.now();
    const copy = await fetchWhole(length, async (block) => (await show({ positions: [], block })).values);
    const t1 = performance.now();
    const wholeComparison = run.outputs.check(c.key, sample, copy);
    run.large.whole++;
    run.large.bytes += copy.byteLength;
    run.large.fetchMs += t1 - t0;
    run.large.checkMs += performance.now() - t1;
    return wholeComparison;
  };
  return { comparison, showMs: atPositions.ms, whole };
}

/**
 * Checks every call's output of one sample (`sent`, one per input): null and the case failed where one is wrong, or
 * threw; else the time the 'show' requests of large outputs took, in ms.
 */
async function checkSampleOutputs(run: SamplingRun, c: JudgedCase, inputs: JudgedInput[], sent: unknown[], stage: 'warm-up' | 'measure', index: number, watch: Watch): Promise<number | null> {
  const calls = inputs.length;
  let showMs = 0;
  const wholeChecks: { where: string; whole: () => Promise<Comparison> }[] = [];
  /** The comparison (or what threw) of one check; false once it failed the case. */
  const passes = async (where: string, check: () => Promise<CallChecked>): Promise<CallChecked | false> => {
    let checked: CallChecked;
    try {
      checked = await check();
    } catch (error) {
      // The lab's check threw on what the runner sent (an output of the wrong type, say): a wrong output.
      const comparison = { equal: false, firstMismatch: null, maxAbsError: null, maxRelError: null };
      run.failed.set(c.key, { reason: `${mismatchText(comparison, stage, index, where)}: its check threw on it (${errorText(error)})`, stage, sample: index });
      return false;
    }
    if ('threw' in checked) {
      run.failed.set(c.key, { reason: `threw while it was measured (${stage}): ${checked.threw}`, stage, sample: index });
      return false;
    }
    if (!checked.comparison.equal) {
      run.failed.set(c.key, { reason: mismatchText(checked.comparison, stage, index, where), stage, sample: index });
      return false;
    }
    return checked;
  };
  for (const [j, input] of inputs.entries()) {
    const where = calls > 1 ? `, call #${j} of ${calls},` : '';
    const checked = await passes(where, () => checkCallOutput(run, c, input, sent[j], j, watch));
    if (checked === false || 'threw' in checked) return null;
    showMs += checked.showMs;
    if (checked.whole) wholeChecks.push({ where, whole: checked.whole });
  }
  // Every call's positions read first, at once after the answer; then the whole checks drawn, seconds each.
  for (const { where, whole } of wholeChecks) if ((await passes(where, async () => ({ comparison: await whole(), showMs: 0 }))) === false) return null;
  return showMs;
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
 * One sample of `c` of `calls` calls: their inputs made, then timed from this side as one, every call's output
 * checked here; null when the case failed.
 */
async function takeSample(run: SamplingRun, c: JudgedCase, activity: Activity, stage: 'warm-up' | 'measure', index: number, calls: number): Promise<{ judgeMs: number; callMs: number; afterMs: number } | null> {
  // The floor (MIN_SAMPLE_LIMIT_MS) counts once a sample, not once a call: 1,000 calls of a fast case would otherwise
  // let one that hangs on some input hold the run for hours.
  const limitMs = multiCallLimitMs(c.sampleLimitMs, c.checkMs ?? null, calls);
  const watch = {
    activity,
    limitMs,
    why: `one sample may take at most ${formatFixed(limitMs / 1000, 1)} s (${SAMPLE_LIMIT_FACTOR} x its check time, at least ${MIN_SAMPLE_LIMIT_MS / 1000} s${calls > 1 ? `, and ${SAMPLE_LIMIT_FACTOR} x its check time for each of its ${calls - 1} other calls` : ''})`,
  };
  const channel = run.of(c.key);
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
  const showMs = await checkSampleOutputs(run, c, inputs, sent, stage, index, watch);
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
    if (guess.shortBy === 'lab' || !(guess.calls * callMs + roundTripMs < PROBE_BELOW_TRIPS * roundTripMs)) {
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

/** The warm-up of one group's cases: plan.warmupSamples discarded samples of one call each, their judge times kept. */
async function warmUp(run: SamplingRun, members: JudgedCase[]): Promise<void> {
  if (run.plan.warmupSamples === 0) return;
  for (const c of members) {
    run.hooks.onProgress?.(run.progress.done++, run.progress.total, c.label, 'warm-up');
    for (let s = 0; s < run.plan.warmupSamples && !run.failed.has(c.key); s++) {
      const sample = await takeSample(run, c, { stage: 'warm-up', caseKey: c.key }, 'warm-up', s, 1);
      if (sample) run.warm.get(c.key)!.ms.push(sample.judgeMs);
    }
  }
}

/**
 * The measured rounds of one group's cases (run.cases indices `members`), numbered from `firstRound`: each round
 * takes plan.samplesPerRound samples of each case in a rotating order, after one discarded sample where the case
 * asks for it (rewarm).
 */
async function measureRounds(run: SamplingRun, members: number[], firstRound: number): Promise<void> {
  const { plan, hooks, failed, progress } = run;
  for (let round = 0; round < plan.rounds; round++) {
    for (const k of roundOrder(members.length, round)) {
      const c = run.cases[members[k] as number] as JudgedCase;
      progress.done++;
      if (failed.has(c.key)) continue;
      hooks.onProgress?.(progress.done - 1, progress.total, c.label, 'measure');
      const t = run.taken.get(c.key)!;
      const calls = run.chosen.get(c.key)?.calls ?? 1;
      t.calls = calls;
      if (c.rewarm && (await takeSample(run, c, { stage: 'warm-up', caseKey: c.key }, 'warm-up', plan.warmupSamples + round, calls)) === null) continue;
      hooks.beforeRound?.(firstRound + round, c.key);
      for (let j = 0; j < plan.samplesPerRound && !failed.has(c.key); j++) {
        const sample = await takeSample(run, c, { stage: 'measure', caseKey: c.key, round: firstRound + round }, 'measure', t.callMs.length, calls);
        if (sample === null) break;
        t.callMs.push(sample.callMs);
        t.judgeMs.push(sample.judgeMs);
        t.afterMs.push(sample.afterMs);
        t.sampleRounds.push(firstRound + round);
      }
      hooks.afterRound?.(firstRound + round, c.key);
    }
  }
}

/** The run's note on its outputs over the bound: how many were checked at positions, how many whole, at what cost. */
function largeOutputNote(large: SamplingRun['large']): string {
  return (
    `Outputs over ${OUTPUT_BYTES_BOUND / 2 ** 20} MiB were checked at positions drawn after each answer (${large.outputs}), and whole in ${large.whole} of them ` +
    `(each with probability ${WHOLE_CHECK_BYTES / 2 ** 20} MiB / its size, at most 1, drawn after its answer): ${formatBytes(large.bytes)} fetched in ${formatSeconds(large.fetchMs)} and checked in ${formatSeconds(large.checkMs)}, outside the timed window.`
  );
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
    taken: new Map(cases.map((c) => [c.key, { callMs: [], judgeMs: [], afterMs: [], sampleRounds: [], calls: 1 }])),
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
    for (const channel of channels) await channel.ask({ type: 'between', collectGarbage: false, resetObservations: live.filter((key) => of(key) === channel) }, betweenWatch(run, channel));
    await measureRounds(run, members, g * plan.rounds);
  }
  hooks.onProgress?.(run.progress.done, run.progress.total, '', 'measure');
  for (const key of run.failed.keys()) run.taken.delete(key);

  const { samples, charged } = chargeAfterAnswer(cases, run.taken);
  const notes = clockNotes(cases, run.taken, run.chosen, charged, run.roundTripMs, run.disagreements, plan);
  if (run.large.outputs > 0) notes.push(largeOutputNote(run.large));
  if (roundTrips.length > 1) {
    const others = roundTrips.slice(1).map((ms, i) => `${RUNNER_NAMES[names[i + 1] ?? ''] ?? 'another process'} ${formatFixed(ms, 3)} ms`);
    notes.push(`A graded run's own processes had round trips per sample of: ${others.join(', ')}; the learner's, ${formatFixed(run.roundTripMs, 3)} ms, is the harness overhead recorded.`);
  }
  return { samples, failed: run.failed, roundTripMs: run.roundTripMs, notes };
}

/**
 * What comes after a sample's answer (its output crossing, a 'show') may take this many times the same step of a
 * trusted case, plus CHARGE_SLACK_MS, before the rest is charged: it shares the CPUs with a multi-threaded call's
 * threads winding down, and a busy machine delays either.
 */
export const CHARGE_SLACK_FACTOR = 2;
export const CHARGE_SLACK_MS = 1;

/**
 * Each sample of a case whose code is not trusted is the judge's time of its call plus what came after its answer
 * (the output's crossing, and the 'show' of a large one) beyond the same step of a trusted case on the same inputs
 * (the lab's baseline, or the solution's copy in a graded run: an output of the same shape) and the slack, as the
 * judge timed both: work left for after the answer (a lazy output the runner's serialization reads) is charged to the
 * sample it belongs to. The solution's copy of a graded case (trusted, but one side of a pair) is charged by the same
 * rule against the same reference as the learner's case: the two sides of a graded pair are judged alike, so a busy
 * machine's slow crossings, which any honest code gets, move both (charging the learner's side alone moved the solution
 * graded against itself below 1). Any other trusted case's sample (the baseline), or one with no trusted case on its
 * inputs, is its call. Times are per call (`afterMs` too; `calls` per sample, 1 when absent): the slack of a sample of
 * several calls is shared by them.
 */
export function chargeAfterAnswer(
  cases: JudgedCase[],
  taken: Map<string, { callMs: number[]; afterMs: number[]; sampleRounds: number[]; calls?: number }>,
): { samples: JudgedSamples['samples']; charged: Map<string, number> } {
  const trustedAfter = new Map<string, number[]>();
  for (const c of cases) if (c.trusted && taken.has(c.key)) trustedAfter.set(c.inputKey, [...(trustedAfter.get(c.inputKey) ?? []), ...taken.get(c.key)!.afterMs]);
  const samples: JudgedSamples['samples'] = new Map();
  const charged = new Map<string, number>();
  for (const c of cases) {
    const t = taken.get(c.key);
    if (!t) continue;
    const calls = t.calls ?? 1;
    const peer = trustedAfter.get(c.inputKey);
    const base = (c.trusted && c.pair === undefined) || !peer ? null : median(peer);
    const extra = t.afterMs.map((after) => (base === null ? 0 : Math.max(0, after - (CHARGE_SLACK_FACTOR * base + CHARGE_SLACK_MS / calls))));
    if (base !== null) charged.set(c.key, median(extra));
    samples.set(c.key, { samplesMs: t.callMs.map((call, i) => call + (extra[i] as number)), sampleRounds: t.sampleRounds, callsPerSample: calls });
  }
  return { samples, charged };
}

/** What the judge's clock adds, for the run's notes: calls per sample, the round trip, work after the answer charged, the runner's clock disagreeing. */
function clockNotes(
  cases: JudgedCase[],
  taken: Map<string, { judgeMs: number[]; callMs: number[] }>,
  chosen: Map<string, CallsPerSample>,
  charged: Map<string, number>,
  roundTripMs: number,
  disagreements: Map<string, number>,
  plan: SamplingPlan,
): string[] {
  const notes: string[] = [];
  const several: string[] = [];
  const short: string[] = [];
  const costly: string[] = [];
  const off: string[] = [];
  const fewer: string[] = [];
  const why = { cap: `the cap of ${MAX_CALLS_PER_SAMPLE} calls`, memory: `the ${MAX_SAMPLE_BYTES / 2 ** 20} MiB its inputs may hold`, lab: 'the lab: one call a sample' } as const;
  for (const c of cases) {
    const t = taken.get(c.key);
    if (!t || t.callMs.length === 0) continue;
    const choice = chosen.get(c.key) ?? { calls: 1, shortBy: null };
    if (choice.calls > 1) several.push(`${c.label} ${choice.calls}`);
    const pairCalls = Math.max(0, ...cases.filter((m) => c.pair !== undefined && m.pair === c.pair && m.key !== c.key).map((m) => chosen.get(m.key)?.calls ?? 0));
    if (pairCalls > choice.calls) fewer.push(`${c.label} ${choice.calls} (its pair ${pairCalls})`);
    const sampleMs = median(t.judgeMs);
    if (roundTripMs > MAX_ROUND_TRIP_SHARE * sampleMs) {
      const reason = choice.shortBy ? `kept short by ${why[choice.shortBy]}` : 'its probes read its calls slower than its samples did: a busy machine';
      short.push(`${c.label} (${choice.calls} call${choice.calls > 1 ? 's' : ''}, ${formatShare(roundTripMs, sampleMs, 1)}: ${reason})`);
    }
    const extra = charged.get(c.key) ?? 0;
    if (extra > MAX_ROUND_TRIP_SHARE * median(t.callMs)) costly.push(`${c.label} +${formatFixed(extra, 3)} ms`);
    const n = disagreements.get(c.key) ?? 0;
    if (n > 0) off.push(`${c.label} ${n} of ${t.callMs.length + plan.warmupSamples}`);
  }
  if (several.length > 0) {
    notes.push(
      `Samples of several calls back to back, each on an input of its own, timed as one by the harness and recorded per call (the sample's time / its calls), ` +
        `so the harness's round trip (${formatFixed(roundTripMs, 3)} ms) stays under ${100 * MAX_ROUND_TRIP_SHARE}% of a sample; calls per sample: ${several.join(', ')}.`,
    );
  }
  if (fewer.length > 0) {
    notes.push(
      `A graded case and the solution's copy run the same calls per sample (equal work) while that keeps each sample within ${PAIR_SLOWDOWN}x its pair's or ${PAIR_SAMPLE_TRIPS} round trips (${formatFixed(PAIR_SAMPLE_TRIPS * roundTripMs, 1)} ms); ` +
        `a case over ${PAIR_SLOWDOWN}x slower than its pair ran fewer calls per sample than its pair, as many as fit (the grade compares times per call): ${fewer.join(', ')}.`,
    );
  }
  if (short.length > 0) {
    notes.push(
      `The harness's round trip per sample (${formatFixed(roundTripMs, 3)} ms, timed from the harness's process) is over ${100 * MAX_ROUND_TRIP_SHARE}% of the median sample of: ${short.join('; ')}. ` +
        `A sample a cap kept short records the lab process's own time of it, held within the round trip's 90th percentile of the harness's; the others, the harness's time, round trip included.`,
    );
  }
  if (costly.length > 0) {
    notes.push(
      `Outputs that took longer to arrive after the answer than ${CHARGE_SLACK_FACTOR} x a trusted case's on the same inputs plus ${CHARGE_SLACK_MS} ms, the rest charged to their samples ` +
        `(work after the answer, or a busy machine; median per call): ${costly.join(', ')}.`,
    );
  }
  if (off.length > 0) {
    notes.push(
      `The lab process's own time of a sample differed from the harness's (the one recorded) by more than the round trip plus ${100 * CLOCK_TOLERANCE}% plus 1 ms in: ${off.join(', ')} ` +
        `(a busy machine, or a clock tampered with in the lab process).`,
    );
  }
  return notes;
}
