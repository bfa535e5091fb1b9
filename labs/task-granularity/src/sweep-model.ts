/**
 * What the lab's analysis derives from a run, as data: one chunk-size sweep per variant and worker count, each point
 * with its times, speedup, efficiency and the split of that efficiency. analysis.ts computes it; analysis-tables.ts and
 * split-chart.ts present it (they import this file, never analysis.ts, so the analysis has no circle).
 */
import type { Knee, RuleVerdict } from './rule-check.ts';

export interface ChunkPoint {
  chunk: number;
  tasks: number;
  /** Work per task in µs on one core: chunk x the serial ns per point. */
  taskUs: number;
  medianMs: number;
  medianCi95: [number, number] | null;
  samplesMs: number[];
  /** Over the sweep's serial baseline (same points), with its interval (paired by round where the harness could). */
  speedup: number | null;
  speedupCi95: [number, number] | null;
  /** speedup / W, always against the serial loop (the split below multiplies to it). */
  efficiency: number | null;
  efficiencyCi95: [number, number] | null;
  /** Median share of the workers' time spent computing (0..1); null for a run made before the lab recorded it. */
  utilisation: number | null;
  /** Serial ns per point / the workers' median ns per point: below 1, the cores ran the code slower than serial did. */
  speedRatio: number | null;
}

/** One chunk-size sweep: a variant (pool or process) on W workers over `points` points. */
export interface Sweep {
  variant: string;
  workers: number;
  points: number;
  serialMedianMs: number;
  serialCi95: [number, number] | null;
  /** ns of work per point on one core: serial median / points. */
  nsPerPoint: number;
  curve: ChunkPoint[];
  best: ChunkPoint;
  worst: ChunkPoint;
  /** Wall-time µs each extra task adds with W workers; null with fewer than two overhead-bound sizes. */
  overheadPerTaskUs: number | null;
  overheadCi95: [number, number] | null;
  /** The rule: tasks of at least 9·W·o µs; null when o is not positive (noise swamped it: re-run on a quieter machine). */
  minTaskUs: number | null;
  knee: Knee | null;
  verdict: RuleVerdict;
  /** More workers than CPUs the job may use (--cpus forced more): time-slicing, not the rule's model, shapes the curve. */
  oversubscribed: boolean;
}

export interface Granularity {
  /** P of the run. */
  p: number;
  sweeps: Sweep[];
}

/** The sweep of `variant` on `workers` workers, if the run has one. */
export function sweepOf(g: Granularity, variant: string, workers: number): Sweep | undefined {
  return g.sweeps.find((s) => s.variant === variant && s.workers === workers);
}
