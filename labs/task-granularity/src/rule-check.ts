/**
 * The rule of thumb and its check, as pure functions: the per-task overhead o (the slope of wall time against task
 * count, with a bootstrap interval), the smallest good task length 9·W·o it predicts, the knee of a measured
 * efficiency curve (where it first reaches 90% of its best), and whether the prediction lands within a factor of 2 of
 * that knee.
 *
 * Why 9·W·o: n tasks of length t on W workers, each adding o of wall time, take about n·t/W + n·o, so the efficiency
 * left after the overhead is t / (t + W·o); it is at least 0.9 when t >= 9·W·o.
 */
import { bootstrapSlopeCi, createRng, linearFit } from '@parallel-course/core';

/** The share of the curve's best efficiency that counts as "good": the rule's 10% overhead. */
export const KNEE_FRACTION = 0.9;
/** The rule agrees with the curve when its prediction is within this factor of the measured knee, either way. */
export const AGREEMENT_FACTOR = 2;
/** Resamples of the bootstrap interval of the slope. */
const SLOPE_RESAMPLES = 2000;

/** One size of the overhead-bound side: its task count, median time (ms) and, for the interval, its samples (ms). */
export interface OverheadPoint {
  tasks: number;
  medianMs: number;
  samplesMs?: readonly number[];
}

export interface OverheadFit {
  /** Wall-time µs each extra task adds: the slope of the medians against the task count. */
  perTaskUs: number;
  /**
   * 95% percentile-bootstrap interval of that slope, in µs: each size's samples resampled on their own and the line
   * fitted through the resampled medians; null when a size has fewer than 2 samples.
   */
  ci95: [number, number] | null;
}

/**
 * The per-task overhead from two or more sizes with distinct task counts; null with fewer. Deterministic for a seed
 * (SLOPE_RESAMPLES resamples).
 */
export function fitOverhead(points: readonly OverheadPoint[], seed = 1): OverheadFit | null {
  if (new Set(points.map((p) => p.tasks)).size < 2) return null;
  const xs = points.map((p) => p.tasks);
  const perTaskUs = linearFit(xs, points.map((p) => p.medianMs)).slope * 1000;
  if (!points.every((p) => p.samplesMs && p.samplesMs.length >= 2)) return { perTaskUs, ci95: null };
  const [low, high] = bootstrapSlopeCi(points.map((p) => ({ x: p.tasks, samples: p.samplesMs as readonly number[] })), createRng(seed), SLOPE_RESAMPLES);
  return { perTaskUs, ci95: [low * 1000, high * 1000] };
}

/** The smallest task length (µs) with at most 10% overhead on `workers` workers: 9·W·o; null when o is not positive. */
export function ruleMinTaskUs(workers: number, perTaskUs: number | null): number | null {
  return perTaskUs === null || !(perTaskUs > 0) ? null : 9 * workers * perTaskUs;
}

/** One point of a measured curve: the work per task (µs on one core) and the efficiency there. */
export interface CurvePoint {
  taskUs: number;
  efficiency: number | null;
}

export interface Knee {
  /** The curve's best efficiency. */
  best: number;
  /** KNEE_FRACTION x best. */
  threshold: number;
  /**
   * The task length (µs) where the efficiency first reaches the threshold, coming from short tasks: interpolated
   * linearly in log(task length) between the last size below it and the first at or above it.
   */
  taskUs: number;
  /** The measured sizes around it (µs): [below, at or above]; `below` is null when the shortest size already reached it. */
  between: [number | null, number];
}

/** The knee of a curve: where its efficiency first reaches `fraction` of its best; null without two efficiencies. */
export function findKnee(curve: readonly CurvePoint[], fraction = KNEE_FRACTION): Knee | null {
  const points = curve.filter((p): p is { taskUs: number; efficiency: number } => p.efficiency !== null && p.taskUs > 0).sort((a, b) => a.taskUs - b.taskUs);
  if (points.length < 2) return null;
  const best = Math.max(...points.map((p) => p.efficiency));
  const threshold = fraction * best;
  const i = points.findIndex((p) => p.efficiency >= threshold);
  const at = points[i] as { taskUs: number; efficiency: number };
  if (i === 0) return { best, threshold, taskUs: at.taskUs, between: [null, at.taskUs] };
  const below = points[i - 1] as { taskUs: number; efficiency: number };
  if (at.efficiency === threshold) return { best, threshold, taskUs: at.taskUs, between: [below.taskUs, at.taskUs] };
  const share = (threshold - below.efficiency) / (at.efficiency - below.efficiency);
  const taskUs = Math.exp(Math.log(below.taskUs) + share * (Math.log(at.taskUs) - Math.log(below.taskUs)));
  return { best, threshold, taskUs, between: [below.taskUs, at.taskUs] };
}

/**
 * How the rule's prediction compares with the measured knee:
 * - 'agrees': within a factor of 2 either way;
 * - 'too-cautious': it asks for tasks more than 2x longer than the curve needed;
 * - 'too-optimistic': the curve needed tasks more than 2x longer than it asks for;
 * - 'undetermined': no prediction (o not measurable), no knee, or a knee below the shortest size that the prediction
 *   does not exceed by more than 2x (the curve cannot say how far below).
 */
export type RuleVerdict = 'agrees' | 'too-cautious' | 'too-optimistic' | 'undetermined';

export function ruleVerdict(predictedUs: number | null, knee: Knee | null, factor = AGREEMENT_FACTOR): RuleVerdict {
  if (predictedUs === null || knee === null) return 'undetermined';
  const ratio = predictedUs / knee.taskUs;
  if (knee.between[0] === null) return ratio > factor ? 'too-cautious' : 'undetermined';
  if (ratio > factor) return 'too-cautious';
  if (ratio < 1 / factor) return 'too-optimistic';
  return 'agrees';
}

/** The verdict in words, for analysis.md and the rule-check table. */
export function verdictText(verdict: RuleVerdict): string {
  switch (verdict) {
    case 'agrees':
      return `the rule holds: within a factor of ${AGREEMENT_FACTOR} of the measured knee`;
    case 'too-cautious':
      return `the rule is too cautious here: the curve reached ${KNEE_FRACTION * 100}% of its best with tasks over ${AGREEMENT_FACTOR}x shorter`;
    case 'too-optimistic':
      return `the rule is too optimistic here: the curve needed tasks over ${AGREEMENT_FACTOR}x longer`;
    case 'undetermined':
      return 'not checked: no positive per-task overhead, no knee, or a knee below the shortest task measured';
  }
}
