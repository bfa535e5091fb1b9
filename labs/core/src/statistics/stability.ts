/**
 * The stability rule of inference benchmarking tools (Triton's perf_analyzer, MLPerf's loadgen in spirit): measure in
 * windows, and call a throughput stable when `windows` consecutive windows each lie within `tolerance` (10%) of
 * their own mean. Pure functions over a case's samples, so results.json is enough to recompute the verdict
 * (gpu-batching's analysis uses them).
 */
import { StatisticsInputError } from './errors.ts';

export interface StabilityOptions {
  /** Consecutive windows that must agree (3, as perf_analyzer uses). */
  windows: number;
  /** Allowed deviation of each window from the mean of the run of windows, as a fraction (0.1 = 10%). */
  tolerance: number;
}

export const DEFAULT_STABILITY: StabilityOptions = { windows: 3, tolerance: 0.1 };

/**
 * Throughput of each window of `samplesPerWindow` consecutive samples, in work units per second: the window's work
 * (samples x workPerSample) divided by its summed time. A last, incomplete window is dropped.
 */
export function windowThroughputs(samplesMs: readonly number[], samplesPerWindow: number, workPerSample: number): number[] {
  if (!Number.isInteger(samplesPerWindow) || samplesPerWindow < 1) throw new StatisticsInputError(`windowThroughputs: samplesPerWindow must be a positive integer, got ${samplesPerWindow}`);
  const out: number[] = [];
  for (let start = 0; start + samplesPerWindow <= samplesMs.length; start += samplesPerWindow) {
    let ms = 0;
    for (let i = start; i < start + samplesPerWindow; i++) ms += samplesMs[i] as number;
    out.push((samplesPerWindow * workPerSample) / (ms / 1000));
  }
  return out;
}

/** True when every value lies within `tolerance` of the values' mean (a fraction: 0.1 = 10 %). */
export function withinToleranceOfMean(values: readonly number[], tolerance: number): boolean {
  if (values.length === 0) return false;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.every((v) => Math.abs(v - mean) <= tolerance * mean);
}

/**
 * Index of the first window that ends a stable run (the earliest point where one could stop measuring), or null
 * when no run of `windows` consecutive windows is stable.
 */
export function firstStableWindow(throughputs: readonly number[], options: StabilityOptions = DEFAULT_STABILITY): number | null {
  for (let end = options.windows - 1; end < throughputs.length; end++) {
    if (withinToleranceOfMean(throughputs.slice(end - options.windows + 1, end + 1), options.tolerance)) return end;
  }
  return null;
}
