/**
 * Stage 2, measure: tinybench takes the samples. Only cases that passed the check arrive here.
 * - a warm-up round per case first (JIT tiers, pool threads, connections), its samples discarded;
 * - then rounds that interleave the cases in a rotating order, so slow drift (frequency scaling, a neighbour on a
 *   shared node) hits every case alike instead of whichever ran last;
 * - cases in different measure groups are measured group after group, with a full garbage collection between
 *   groups (see CaseDefinition.measureGroup);
 * - every output is kept in a sink and compared again afterwards, so the work cannot be optimised away and a case
 *   whose answer changes under load (a race) is caught;
 * - the harness's own cost per sample is calibrated with an empty task under the same settings.
 */
import { Bench } from 'tinybench';
import type { CaseInstance, RawObservation, SamplingPlan } from './lab-definition.ts';
import { collectGarbage } from './heap.ts';

export interface MeasureTarget<Input, Output> {
  label: string;
  instance: CaseInstance<Input, Output>;
  input: Input;
  /** Cases of one group are interleaved; groups are measured in turn (undefined is the default group). */
  group?: string;
}

export interface MeasuredCase<Output> {
  label: string;
  /** Time per sample in ms, in the order collected (sorted within each round by tinybench). */
  samplesMs: number[];
  observations: Record<string, RawObservation>;
  /** The output of the last measured sample: the sink that keeps the work observable. */
  lastOutput: Output;
}

export interface MeasureProgress {
  done: number;
  total: number;
  label: string;
  phase: 'calibrate' | 'warm-up' | 'measure';
}

async function sample(
  label: string,
  iterations: number,
  fn: () => Promise<unknown>,
  afterSample?: () => Promise<void> | void,
): Promise<number[]> {
  const bench = new Bench({ iterations, time: 0, warmup: false, retainSamples: true, throws: true });
  bench.add(label, fn, { async: true, ...(afterSample ? { afterEach: async () => afterSample() } : {}) });
  const [task] = await bench.run();
  const result = task?.result;
  if (!result || result.state !== 'completed' || !result.latency.samples) {
    const error = result && 'error' in result ? result.error : undefined;
    throw new Error(`measuring ${label} failed${error ? `: ${error.message}` : ''}`, { cause: error });
  }
  return [...result.latency.samples];
}

/** Median time in ms of an empty async sample: what the harness itself adds to every sample. */
export async function calibrateOverhead(iterations: number): Promise<number> {
  const samples = await sample('harness overhead', iterations, async () => undefined);
  samples.sort((a, b) => a - b);
  const mid = samples.length >> 1;
  return samples.length % 2 ? (samples[mid] as number) : ((samples[mid - 1] as number) + (samples[mid] as number)) / 2;
}

/** The order of cases in round `round`: rotated by one each round. */
export function roundOrder(caseCount: number, round: number): number[] {
  return Array.from({ length: caseCount }, (_, i) => (i + round) % caseCount);
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
  onProgress: (progress: MeasureProgress) => void = () => {},
): Promise<MeasuredCase<Output>[]> {
  const total = targets.length * (plan.rounds + (plan.warmupIterations > 0 ? 1 : 0));
  let done = 0;
  const sinks: Output[] = new Array(targets.length);
  const samples: number[][] = targets.map(() => []);

  const groups = measureGroups(targets.map((t) => t.group));
  for (const [g, members] of groups.entries()) {
    if (g > 0) collectGarbage();
    // Warm-up just before the group's rounds: JIT tiers, pool threads and caches are warm when its samples start.
    if (plan.warmupIterations > 0) {
      for (const i of members) {
        const target = targets[i] as MeasureTarget<Input, Output>;
        onProgress({ done, total, label: target.label, phase: 'warm-up' });
        await sample(target.label, plan.warmupIterations, async () => {
          sinks[i] = await target.instance.run(target.input);
        }, target.instance.afterSample?.bind(target.instance));
        done++;
      }
    }
    for (const i of members) targets[i]?.instance.resetObservations?.();

    for (let round = 0; round < plan.rounds; round++) {
      for (const k of roundOrder(members.length, round)) {
        const i = members[k] as number;
        const target = targets[i] as MeasureTarget<Input, Output>;
        onProgress({ done, total, label: target.label, phase: 'measure' });
        const roundSamples = await sample(target.label, plan.iterationsPerRound, async () => {
          sinks[i] = await target.instance.run(target.input);
        }, target.instance.afterSample?.bind(target.instance));
        (samples[i] as number[]).push(...roundSamples);
        done++;
      }
    }
  }
  onProgress({ done, total, label: '', phase: 'measure' });

  const measured: MeasuredCase<Output>[] = [];
  for (const [i, target] of targets.entries()) {
    measured.push({
      label: target.label,
      samplesMs: samples[i] as number[],
      observations: (await target.instance.collectObservations?.()) ?? {},
      lastOutput: sinks[i] as Output,
    });
  }
  return measured;
}
