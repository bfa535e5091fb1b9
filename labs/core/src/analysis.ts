/**
 * Stage 3, statistics: turns measured samples into the summaries, speedups and scaling fits of results.json (the
 * grade of a `--grade` run is computed above this, in grade.ts, from the same inputs and intervals).
 * Everything here is a pure function of the samples, their round indices, the seed and the lab's declarations, so an
 * instructor's validator can recompute every number from the raw samples in the file.
 *
 * Intervals: a case's median gets the distribution-free order-statistic interval (no random numbers); a speedup gets
 * the paired two-stage bootstrap over rounds when the baseline was measured in the same rounds of the same group, else
 * the independent percentile bootstrap, each from createRng(seedFor(seed, 'speedup:<variant>:<params>')); an
 * efficiency over a one-worker case gets its own from seedFor(seed, 'efficiency:<variant>:<params>').
 */
import type { AmdahlFit, CaseResult, Observation, Params, SampleUnit, SpeedupEntry } from './results-schema.ts';
import { paramsKey, paramsSeedText, sameCase } from './case-identity.ts';
import { findBaseline, findOneWorkerCase, workerParam } from './case-baselines.ts';
import {
  amdahlFit,
  bootstrapRatioCi,
  createRng,
  efficiency,
  karpFlatt,
  median,
  NOISY_ROBUST_CV,
  quantile,
  roundBootstrapRatioCi,
  roundSet,
  sameRoundSet,
  sorted,
  speedup,
  summarize,
} from './statistics.ts';

/** The `noisy` threshold on the robust coefficient of variation (1.4826 * MAD / median): 0.1 = 10 %. */
export { NOISY_ROBUST_CV };

/** Extra observations a case records while it is measured, e.g. latency of a cheap endpoint under load. */
export interface RawObservation {
  unit: string;
  description: string;
  samples: number[];
}

export interface AnalysisInput {
  variant: string;
  params: Params;
  /** The case's worker count (CaseDefinition.workers): efficiency, Karp-Flatt and the Amdahl fit use it. */
  workers?: number;
  /** Time per sample in ms, in the order taken. */
  samplesMs: number[];
  /**
   * The round (0-based) each sample was taken in, one per sample. With it, a speedup over a baseline measured in the
   * same rounds of the same group gets the paired interval (`pairing: 'rounds'`); without it (older callers), every
   * interval resamples the two cases independently.
   */
  sampleRounds?: number[];
  /**
   * The process (0-based) each sample was taken in, one per sample (a graded run's forks: CaseResult.sampleProcesses).
   * Absent: one process. The grade's interval resamples pairs of processes when both sides carry at least 2 (grade.ts).
   */
  sampleProcesses?: number[];
  /** Calls per measured sample, each sample's time divided by it in samplesMs (CaseResult.callsPerSample); absent: one. */
  callsPerSample?: number;
  /**
   * The case's measure group (CaseDefinition.measureGroup; undefined is the default group). Rounds are numbered per
   * group, so round r of one group has nothing to do with round r of another: cases are paired only within a group.
   */
  measureGroup?: string;
  workPerSample: { amount: number; unit: string };
  /** What one sample is (LabDefinition.sampleItems); absent: the sample itself, once. */
  sample?: SampleUnit;
  observations: Record<string, RawObservation>;
}

/** The sample unit of a case that declares none: one sample is one sample. */
export const ONE_SAMPLE: SampleUnit = { item: 'sample', itemsPerSample: 1 };

export interface AnalysisOptions {
  baseline: string;
  headline: { variant: string; params: Params };
  seed: number;
  resamples: number;
  availableParallelism: number;
}

export interface Analysis {
  cases: CaseResult[];
  speedups: SpeedupEntry[];
  amdahl: AmdahlFit[];
  headline: SpeedupEntry | null;
}

/** p50, p99 and max of an observation's samples; nulls when it has none. */
export function summarizeObservation(raw: RawObservation): Observation {
  const xs = sorted(raw.samples);
  return {
    unit: raw.unit,
    description: raw.description,
    samples: raw.samples,
    p50: xs.length ? quantile(xs, 0.5) : null,
    p99: xs.length ? quantile(xs, 0.99) : null,
    max: xs.length ? (xs[xs.length - 1] as number) : null,
  };
}

/** Derives the bootstrap seed of one comparison from the run's seed and the case's identity, so it is reproducible. */
function seedFor(seed: number, key: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

type Pairing = SpeedupEntry['pairing'];

/** What a ratio's interval reads of a case: its samples, their rounds and its measure group. */
type RoundedSamples = Pick<AnalysisInput, 'samplesMs' | 'sampleRounds' | 'measureGroup'>;

/**
 * How two cases' interval is resampled: by round when both carry round indices, were measured in the same group and
 * in the same set of at least two rounds (each round then holds both cases' samples taken back to back), else
 * independently. One common round has nothing to pair: the paired method would resample within it, which is the
 * independent method, so that case is 'independent' too (and a file written without rounds, recorded as round 0,
 * recomputes the same).
 */
export function pairingOf(a: RoundedSamples, b: RoundedSamples): Pairing {
  if (a.sampleRounds === undefined || b.sampleRounds === undefined) return 'independent';
  if (a.measureGroup !== b.measureGroup) return 'independent';
  return sameRoundSet(a.sampleRounds, b.sampleRounds) && roundSet(a.sampleRounds).length >= 2 ? 'rounds' : 'independent';
}

/**
 * The 95 % interval of median(numerator) / median(denominator) and how it was resampled: the paired two-stage bootstrap
 * over rounds where `pairingOf` allows it (statistics/rounds.ts), else the independent percentile bootstrap
 * (statistics/bootstrap.ts); either from a fresh createRng(seed).
 */
function ratioInterval(numerator: RoundedSamples, denominator: RoundedSamples, seed: number, resamples: number): { ci95: [number, number]; pairing: Pairing } {
  const pairing = pairingOf(numerator, denominator);
  const rng = createRng(seed);
  const ci95 =
    pairing === 'rounds'
      ? roundBootstrapRatioCi(numerator.samplesMs, numerator.sampleRounds as number[], denominator.samplesMs, denominator.sampleRounds as number[], rng, resamples)
      : bootstrapRatioCi(numerator.samplesMs, denominator.samplesMs, rng, resamples);
  return { ci95, pairing };
}

/**
 * The interval of median(numerator) / median(denominator) for two cases of a finished run, resampled exactly as the run's
 * speedups were (pairing, seed derivation, resamples), for a lab's analysis that compares two cases the lab did not
 * declare as variant and baseline. `key` names the comparison, so each interval has its own reproducible seed. The
 * samples may be rescaled by a constant first (e.g. per product), which rescales the interval the same way.
 */
export function caseRatioInterval(
  results: { seed: number; bootstrapResamples: number },
  numerator: RoundedSamples,
  denominator: RoundedSamples,
  key: string,
): { ci95: [number, number]; pairing: Pairing } {
  return ratioInterval(numerator, denominator, seedFor(results.seed, key), results.bootstrapResamples);
}

/** `params` without `key` (all of them when key is null). */
function without(params: Params, key: string | null): Params {
  return Object.fromEntries(Object.entries(params).filter(([k]) => k !== key));
}

export function analyze(inputs: AnalysisInput[], options: AnalysisOptions): Analysis {
  const cases: CaseResult[] = inputs.map((input) => ({
    variant: input.variant,
    params: input.params,
    ...(input.workers !== undefined ? { workers: input.workers } : {}),
    samplesMs: input.samplesMs,
    // Without round indices (an older caller) the samples are recorded as one round: nothing to pair, see pairingOf.
    sampleRounds: input.sampleRounds ?? input.samplesMs.map(() => 0),
    ...(input.sampleProcesses !== undefined ? { sampleProcesses: input.sampleProcesses } : {}),
    ...(input.callsPerSample !== undefined ? { callsPerSample: input.callsPerSample } : {}),
    workPerSample: input.workPerSample,
    sample: input.sample ?? ONE_SAMPLE,
    summary: summarize(input.samplesMs, { noisyRobustCv: NOISY_ROBUST_CV }),
    observations: Object.fromEntries(Object.entries(input.observations).map(([k, v]) => [k, summarizeObservation(v)])),
    oversubscribed: input.workers !== undefined && input.workers > options.availableParallelism,
  }));

  // Speedups over the baseline, each with its interval; efficiency and Karp-Flatt where the case declares workers.
  const speedups: SpeedupEntry[] = [];
  const entryOf = new Map<AnalysisInput, SpeedupEntry>();
  for (const [i, input] of inputs.entries()) {
    if (input.variant === options.baseline) continue;
    const base = findBaseline(inputs, options.baseline, input);
    if (!base) continue;
    const baselineMedianMs = median(base.samplesMs);
    const variantMedianMs = median(input.samplesMs);
    const s = speedup(baselineMedianMs, variantMedianMs);
    // The seed text is frozen (case-identity.ts paramsSeedText): committed runs recompute only with it.
    const caseKey = `${input.variant}:${paramsSeedText(input.params)}`;
    const interval = ratioInterval(base, input, seedFor(options.seed, `speedup:${caseKey}`), options.resamples);
    const entry: SpeedupEntry = {
      variant: input.variant,
      baseline: options.baseline,
      baselineParams: base.params,
      params: input.params,
      speedup: s,
      ci95: interval.ci95,
      pairing: interval.pairing,
      baselineMedianMs,
      variantMedianMs,
      oversubscribed: (cases[i] as CaseResult).oversubscribed,
    };
    if (input.workers !== undefined) {
      // Parallel efficiency compares the variant with itself on one worker where that case was measured (a
      // 2-thread addon against the 1-thread addon, not against a slower TypeScript baseline); otherwise with the
      // baseline. Its interval is that speedup's interval over workers: computed here, once, for every lab.
      const workers = input.workers;
      const one = findOneWorkerCase(inputs, input);
      let scaling = s;
      let scalingCi: { ci95: [number, number]; pairing: Pairing } = interval;
      if (one === input) {
        scaling = 1; // the one-worker case against itself: exactly 1, no resampling
        scalingCi = { ci95: [1, 1], pairing: 'rounds' };
      } else if (one) {
        scaling = speedup(median(one.samplesMs), variantMedianMs);
        scalingCi = ratioInterval(one, input, seedFor(options.seed, `efficiency:${caseKey}`), options.resamples);
      }
      entry.workers = workers;
      entry.efficiency = efficiency(scaling, workers);
      entry.efficiencyCi95 = [scalingCi.ci95[0] / workers, scalingCi.ci95[1] / workers];
      entry.efficiencyBasis = one ? 'one-worker' : 'baseline';
      const over = one ?? base;
      entry.efficiencyOver = { variant: over.variant, params: over.params };
      entry.efficiencySpeedup = scaling;
      entry.efficiencyPairing = scalingCi.pairing;
      const kf = karpFlatt(scaling, workers);
      if (kf !== null) entry.karpFlatt = kf;
    }
    speedups.push(entry);
    entryOf.set(input, entry);
  }

  // One Amdahl fit per variant and setting of its other params (all but the one carrying the worker count, e.g.
  // `threads`), over the worker counts swept there: a fit needs at least two worker counts. It uses only points with
  // no more workers than CPUs: beyond that, time-slicing, not the serial fraction, limits the speedup, and those
  // points would bias the fit.
  const amdahl: AmdahlFit[] = [];
  const groups = new Map<string, { variant: string; param: string | null; params: Params; points: { workers: number; speedup: number }[] }>();
  for (const input of inputs) {
    const entry = entryOf.get(input);
    if (input.workers === undefined || !entry || input.workers > options.availableParallelism) continue;
    const param = workerParam(inputs, input.variant);
    const others = without(input.params, param);
    const key = JSON.stringify([input.variant, paramsKey(others)]);
    const group = groups.get(key) ?? { variant: input.variant, param, params: others, points: [] };
    // The speedup the efficiency is based on (over one worker where measured), so fit and efficiency agree.
    group.points.push({ workers: input.workers, speedup: (entry.efficiency as number) * input.workers });
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    if (new Set(group.points.map((p) => p.workers)).size < 2) continue;
    const fit = amdahlFit(group.points);
    if (fit) amdahl.push({ variant: group.variant, param: group.param ?? 'workers', params: group.params, ...fit });
  }

  const headline = speedups.find((s) => sameCase(s, options.headline)) ?? null;
  return { cases, speedups, amdahl, headline };
}
