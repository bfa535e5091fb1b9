/**
 * Measuring in one process, with tinybench's clock in the same process as the code it times: lab tests use it
 * (testing.ts measureCases) to measure a case quickly. A lab run does not: its samples are timed from the supervisor's
 * process (judge-sampler.ts, with this module's roundOrder and measureGroups), so that learner code never shares a
 * process with the clock that records them. Only cases that passed the check arrive here.
 * - a warm-up round per case first (JIT tiers, pool threads, connections), its samples discarded;
 * - then rounds that interleave the cases in a rotating order, so slow drift (frequency scaling, a neighbour on a
 *   shared node) hits every case alike instead of whichever ran last; each sample keeps its round, so the statistics
 *   can pair the cases round by round;
 * - cases in different measure groups are measured group after group, with a full garbage collection between
 *   groups (see CaseDefinition.measureGroup);
 * - every sample's output, warm-up included, is compared with its expected output right after the sample, outside the
 *   timed region: a case that is wrong on any sample (a race, state kept between calls) fails, with the sample named;
 * - a case that throws or rejects while it is measured fails alone: its samples are dropped and the others go on.
 * (The harness's own cost per sample, a lab run's round trip, is the judge's calibration: judge-sampler.ts.)
 * Samples are taken one tinybench run per sample, so they stay in the order taken (tinybench sorts the samples of a
 * run); the Bench set-up between samples is outside the timed region.
 */
import { Bench } from 'tinybench';
import type { CaseInstance, Comparison, SamplingPlan } from '../lab-definition.ts';
import type { RawObservation } from '@parallel-course/core';
import { sampleMismatchText } from './check.ts';
import { errorText } from '../errors.ts';
import { collectGarbage } from './heap.ts';
import type { Activity } from './run-protocol.ts';

export interface MeasureTarget<Input, Output> {
  /** The case's key (core's caseKey). */
  key: string;
  label: string;
  instance: CaseInstance<Input, Output>;
  input: Input;
  /** A fresh input per sample (LabInputs.measureAt), by the case's sample count so far (warm-up included). */
  inputAt?(sample: number): Input;
  /** Compares one sample's output with the expected output for the input it ran on. */
  check(output: Output, input: Input): Comparison;
  /** The longest one sample may take before the supervisor ends the run, in ms (stated when it does). */
  sampleLimitMs: number;
  /** Cases of one group are interleaved; groups are measured in turn (undefined is the default group). */
  group?: string;
}

export interface MeasuredCase {
  label: string;
  /** Time per sample in ms, in the order taken. */
  samplesMs: number[];
  /** The round (0-based) each sample was taken in, numbered across the run: group g's rounds follow group g-1's. */
  sampleRounds: number[];
  observations: Record<string, RawObservation>;
  /** True when the case failed while it was measured (its samples are then not to be used). */
  failed: boolean;
}

export interface MeasureProgress {
  done: number;
  total: number;
  label: string;
  phase: 'calibrate' | 'warm-up' | 'measure';
}

export interface MeasureHooks {
  onProgress?(progress: MeasureProgress): void;
  /** Before a warm-up or a round of `target`, which will take `samples` samples. */
  beforeCall?(target: number, activity: Activity, samples: number): void;
  afterCall?(): void;
  onRound?(target: number, round: number, samplesMs: number[]): void;
  /** `sample` is the 0-based sample index within the stage (warm-up or measure) where it failed, when known. */
  onCaseFailed?(target: number, stage: 'warm-up' | 'measure', reason: string, sample: number | null): void;
}

/** Times one call of `fn` with tinybench; throws what `fn` threw. */
async function timeOne(label: string, fn: () => Promise<unknown>, afterSample?: () => Promise<void> | void): Promise<number> {
  const bench = new Bench({ iterations: 1, time: 0, warmup: false, retainSamples: true, throws: true });
  bench.add(label, fn, { async: true, ...(afterSample ? { afterEach: async () => afterSample() } : {}) });
  const [task] = await bench.run();
  const result = task?.result;
  if (!result || result.state !== 'completed' || !result.latency.samples?.length) {
    const error = result && 'error' in result ? result.error : undefined;
    throw error ?? new Error(`measuring ${label} failed`);
  }
  return result.latency.samples[0] as number;
}

/** A sample whose output differs from its expected output. */
export class WrongSampleError extends Error {
  readonly sample: number;
  constructor(sample: number, stage: 'warm-up' | 'measured', comparison: Comparison) {
    super(sampleMismatchText(stage, sample, comparison));
    this.name = 'WrongSampleError';
    this.sample = sample;
  }
}

/** Samples taken of each target so far (warm-up included): the index of its next fresh input. */
const taken = new WeakMap<object, number>();

/** Takes `count` samples of `target`, checking each output; returns their times in the order taken. */
async function takeSamples<Input, Output>(target: MeasureTarget<Input, Output>, count: number, stage: 'warm-up' | 'measured', firstIndex: number): Promise<number[]> {
  const times: number[] = [];
  const afterSample = target.instance.afterSample?.bind(target.instance);
  for (let s = 0; s < count; s++) {
    let output: Output | undefined;
    const index = taken.get(target) ?? 0;
    taken.set(target, index + 1);
    // Made before the clock starts: a fresh input costs the sample nothing.
    const input = target.inputAt ? target.inputAt(index) : target.input;
    await target.instance.beforeSample?.(input);
    times.push(
      await timeOne(target.label, async () => {
        output = await target.instance.run(input);
      }, afterSample),
    );
    const comparison = target.check(output as Output, input);
    if (!comparison.equal) throw new WrongSampleError(firstIndex + s, stage, comparison);
  }
  return times;
}

/** The order of cases in round `round`: rotated by one each round. */
export function roundOrder(caseCount: number, round: number): number[] {
  return Array.from({ length: caseCount }, (_, i) => (i + round) % caseCount);
}

/**
 * The judge's order of a round (judge-sampler.ts): the cases of one pair (a graded case and the solution's copy of it,
 * `pairs` equal) form one unit, where the first of them stands, and the units rotate by one each round (roundOrder).
 * Why: rotating the cases one by one left the pair apart in every round, each after a case of its own (task-granularity:
 * the learner's pool after a two-worker pool, the solution's after a small hand-off), seconds apart, and the solution
 * graded against itself read 0.96 over twelve quiet runs with three intervals of twelve excluding 1 (issue 42).
 */
export function roundUnits(pairs: (string | undefined)[], round: number): number[][] {
  const units: number[][] = [];
  const unitOf = new Map<string, number[]>();
  for (const [i, pair] of pairs.entries()) {
    const unit = pair === undefined ? undefined : unitOf.get(pair);
    if (unit) {
      unit.push(i);
      continue;
    }
    const fresh = [i];
    units.push(fresh);
    if (pair !== undefined) unitOf.set(pair, fresh);
  }
  return roundOrder(units.length, round).map((u) => units[u] as number[]);
}

/**
 * The sides of a pair's samples in one round, ABBA: with 2 samples a round 0 1 1 0, with 3 0 1 1 0 0 1; side 0 first in
 * even rounds, side 1 in odd ones (1 0 0 1). Each side's samples of a round then sit at the same mean time (drift
 * within the round cancels, where taking one side's samples before the other's left it in the ratio), and each side
 * follows the case before the pair in half the rounds.
 */
export function pairSampleOrder(samplesPerRound: number, round: number): (0 | 1)[] {
  const first: 0 | 1 = round % 2 === 0 ? 0 : 1;
  const second: 0 | 1 = first === 0 ? 1 : 0;
  return Array.from({ length: samplesPerRound }, (_, j) => (j % 2 === 0 ? [first, second] : [second, first])).flat();
}

/** Indices of the targets by measure group, groups in order of first appearance. */
export function measureGroups(groups: (string | undefined)[]): number[][] {
  const byGroup = new Map<string, number[]>();
  for (const [i, group] of groups.entries()) {
    const key = group ?? '';
    const members = byGroup.get(key) ?? [];
    members.push(i);
    byGroup.set(key, members);
  }
  return [...byGroup.values()];
}

export async function measureCases<Input, Output>(
  targets: MeasureTarget<Input, Output>[],
  plan: SamplingPlan,
  hooks: MeasureHooks = {},
): Promise<MeasuredCase[]> {
  const total = targets.length * (plan.rounds + (plan.warmupSamples > 0 ? 1 : 0));
  let done = 0;
  const samples: number[][] = targets.map(() => []);
  const rounds: number[][] = targets.map(() => []);
  const failed = targets.map(() => false);

  const fail = (i: number, stage: 'warm-up' | 'measure', error: unknown) => {
    failed[i] = true;
    samples[i] = [];
    rounds[i] = [];
    const sample = error instanceof WrongSampleError ? error.sample : null;
    const reason = error instanceof WrongSampleError ? error.message : `threw while it was measured (${stage}): ${errorText(error)}`;
    hooks.onCaseFailed?.(i, stage, reason, sample);
  };

  const groups = measureGroups(targets.map((t) => t.group));
  for (const [g, members] of groups.entries()) {
    if (g > 0) collectGarbage();
    // Rounds are numbered across the whole run, so a round index names one stretch of time: cases of different
    // groups never share one, and the statistics pair only cases that were measured side by side.
    const firstRound = g * plan.rounds;
    // Warm-up just before the group's rounds: JIT tiers, pool threads and caches are warm when its samples start.
    if (plan.warmupSamples > 0) {
      for (const i of members) {
        const target = targets[i] as MeasureTarget<Input, Output>;
        hooks.onProgress?.({ done, total, label: target.label, phase: 'warm-up' });
        hooks.beforeCall?.(i, { stage: 'warm-up', caseKey: target.key }, plan.warmupSamples);
        try {
          await takeSamples(target, plan.warmupSamples, 'warm-up', 0);
        } catch (error) {
          fail(i, 'warm-up', error);
        }
        hooks.afterCall?.();
        done++;
      }
    }
    for (const i of members) if (!failed[i]) targets[i]?.instance.resetObservations?.();

    for (let round = 0; round < plan.rounds; round++) {
      for (const k of roundOrder(members.length, round)) {
        const i = members[k] as number;
        const target = targets[i] as MeasureTarget<Input, Output>;
        done++;
        if (failed[i]) continue;
        hooks.onProgress?.({ done: done - 1, total, label: target.label, phase: 'measure' });
        hooks.beforeCall?.(i, { stage: 'measure', caseKey: target.key, round: firstRound + round }, plan.samplesPerRound);
        try {
          const taken = await takeSamples(target, plan.samplesPerRound, 'measured', (samples[i] as number[]).length);
          (samples[i] as number[]).push(...taken);
          (rounds[i] as number[]).push(...taken.map(() => firstRound + round));
          hooks.onRound?.(i, firstRound + round, taken);
        } catch (error) {
          fail(i, 'measure', error);
        }
        hooks.afterCall?.();
      }
    }
  }
  hooks.onProgress?.({ done, total, label: '', phase: 'measure' });

  const measured: MeasuredCase[] = [];
  for (const [i, target] of targets.entries()) {
    let observations: Record<string, RawObservation> = {};
    if (!failed[i]) {
      try {
        observations = (await target.instance.collectObservations?.()) ?? {};
      } catch (error) {
        fail(i, 'measure', error);
      }
    }
    measured.push({ label: target.label, samplesMs: samples[i] as number[], sampleRounds: rounds[i] as number[], observations, failed: failed[i] as boolean });
  }
  return measured;
}
