/**
 * Stage 3, statistics: turns measured samples into the summaries, speedups and scaling fits of results.json.
 * Everything here is a pure function of the samples, the seed and the lab's declarations, so an instructor's
 * validator can recompute every number from the raw samples in the file.
 */
import type { Params } from './results-schema.ts';
import type { AmdahlFit, CaseResult, Observation, SpeedupEntry } from './results-schema.ts';
import type { RawObservation } from './lab-definition.ts';
import { paramsKey } from './lab-definition.ts';
import {
  amdahlFit,
  bootstrapRatioCi,
  createRng,
  efficiency,
  karpFlatt,
  median,
  quantile,
  sorted,
  speedup,
  summarize,
} from './statistics.ts';

/** Coefficient of variation above which a case is flagged noisy (10%, as many benchmarking guides suggest). */
export const NOISY_CV = 0.1;

export interface AnalysisInput {
  variant: string;
  params: Params;
  workers?: number;
  samplesMs: number[];
  /** The round each sample was taken in (measure.ts); without it every sample counts as its own round. */
  sampleRounds?: number[];
  workPerSample: { amount: number; unit: string };
  observations: Record<string, RawObservation>;
}

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

/**
 * The baseline case a variant case is compared with: a baseline case whose every param the variant case shares
 * (so `inline {}` serves every case, and `ts {size: 4096}` serves `native {size: 4096, threads: 2}`).
 * With several candidates the one sharing the most params wins.
 */
export function findBaseline<T extends { variant: string; params: Params }>(cases: T[], baseline: string, target: T): T | null {
  let best: T | null = null;
  let bestShared = -1;
  for (const candidate of cases) {
    if (candidate.variant !== baseline) continue;
    const keys = Object.keys(candidate.params);
    if (!keys.every((k) => target.params[k] === candidate.params[k])) continue;
    if (keys.length > bestShared) {
      best = candidate;
      bestShared = keys.length;
    }
  }
  return best;
}

/**
 * The same variant's case on one worker, whose params differ from `target`'s only in the worker-count param
 * (the key whose value is 1 there and `target.workers` here, e.g. `workers` or `threads`); the target itself when
 * it has one worker; null if there is none.
 */
export function findOneWorkerCase<T extends { variant: string; params: Params; workers?: number }>(cases: T[], target: T): T | null {
  if (target.workers === undefined) return null;
  if (target.workers === 1) return target; // the reference itself: its efficiency is 1 by definition
  for (const candidate of cases) {
    if (candidate.variant !== target.variant || candidate.workers !== 1) continue;
    const keys = new Set([...Object.keys(candidate.params), ...Object.keys(target.params)]);
    const differing = [...keys].filter((k) => candidate.params[k] !== target.params[k]);
    if (differing.length === 1 && candidate.params[differing[0]!] === 1 && target.params[differing[0]!] === target.workers) return candidate;
  }
  return null;
}

/** Derives the bootstrap seed of one comparison from the run's seed and the case's identity, so it is reproducible. */
function seedFor(seed: number, key: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function analyze(inputs: AnalysisInput[], options: AnalysisOptions): Analysis {
  const cases: CaseResult[] = inputs.map((input) => ({
    variant: input.variant,
    params: input.params,
    ...(input.workers !== undefined ? { workers: input.workers } : {}),
    samplesMs: input.samplesMs,
    sampleRounds: input.sampleRounds ?? input.samplesMs.map((_, i) => i),
    workPerSample: input.workPerSample,
    summary: summarize(input.samplesMs, {
      rng: createRng(seedFor(options.seed, `summary:${input.variant}:${paramsKey(input.params)}`)),
      resamples: options.resamples,
      noisyCv: NOISY_CV,
    }),
    observations: Object.fromEntries(Object.entries(input.observations).map(([k, v]) => [k, summarizeObservation(v)])),
    oversubscribed: input.workers !== undefined && input.workers > options.availableParallelism,
  }));

  const speedups: SpeedupEntry[] = [];
  for (const [i, input] of inputs.entries()) {
    if (input.variant === options.baseline) continue;
    const base = findBaseline(inputs, options.baseline, input);
    if (!base) continue;
    const baselineMedianMs = median(base.samplesMs);
    const variantMedianMs = median(input.samplesMs);
    const s = speedup(baselineMedianMs, variantMedianMs);
    const entry: SpeedupEntry = {
      variant: input.variant,
      baseline: options.baseline,
      params: input.params,
      speedup: s,
      ci95: bootstrapRatioCi(
        base.samplesMs,
        input.samplesMs,
        createRng(seedFor(options.seed, `speedup:${input.variant}:${paramsKey(input.params)}`)),
        options.resamples,
      ),
      baselineMedianMs,
      variantMedianMs,
      oversubscribed: (cases[i] as CaseResult).oversubscribed,
    };
    if (input.workers !== undefined) {
      // Parallel efficiency compares the variant with itself on one worker where that case was measured (a
      // 2-thread addon against the 1-thread addon, not against a slower TypeScript baseline); otherwise with the baseline.
      const one = findOneWorkerCase(inputs, input);
      const scaling = one ? speedup(median(one.samplesMs), variantMedianMs) : s;
      entry.efficiency = efficiency(scaling, input.workers);
      entry.efficiencyBasis = one ? 'one-worker' : 'baseline';
      const kf = karpFlatt(scaling, input.workers);
      if (kf !== null) entry.karpFlatt = kf;
    }
    speedups.push(entry);
  }

  // One Amdahl fit per variant and setting of its other params, over the worker counts swept there: a fit needs
  // at least two worker counts. It uses only points with no more workers than CPUs: beyond that, time-slicing,
  // not the serial fraction, limits the speedup, and those points would bias the fit.
  const amdahl: AmdahlFit[] = [];
  const groups = new Map<string, { variant: string; params: Params; points: { workers: number; speedup: number }[] }>();
  for (const input of inputs) {
    if (input.workers === undefined) continue;
    const entry = speedups.find((s) => s.variant === input.variant && paramsKey(s.params) === paramsKey(input.params));
    if (!entry || input.workers > options.availableParallelism) continue;
    const others = Object.fromEntries(Object.entries(input.params).filter(([k]) => k !== 'workers'));
    const key = `${input.variant}|${paramsKey(others)}`;
    const group = groups.get(key) ?? { variant: input.variant, params: others, points: [] };
    // The speedup the efficiency is based on (over one worker where measured), so fit and efficiency agree.
    group.points.push({ workers: input.workers, speedup: (entry.efficiency as number) * input.workers });
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    if (new Set(group.points.map((p) => p.workers)).size < 2) continue;
    const fit = amdahlFit(group.points);
    if (fit) amdahl.push({ variant: group.variant, param: 'workers', params: group.params, ...fit });
  }

  const headlineKey = paramsKey(options.headline.params);
  const headline =
    speedups.find((s) => s.variant === options.headline.variant && paramsKey(s.params) === headlineKey) ?? null;
  return { cases, speedups, amdahl, headline };
}
