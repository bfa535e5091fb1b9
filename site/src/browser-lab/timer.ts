/**
 * The browser's clock, measured: browsers coarsen performance.now() (about 0.1 ms in Chromium without cross-origin
 * isolation, 5 us with it, more with anti-fingerprinting settings), so the runner measures the smallest step at the
 * start of every run and sizes each sample so that step is under 1 % of it.
 */

/** The smallest step of performance.now() seen over `steps` changes of its value, in ms (busy-waits, under ~50 ms). */
export function measureTimerResolution(steps = 50): number {
  let smallest = Number.POSITIVE_INFINITY;
  const deadline = performance.now() + 50;
  for (let i = 0; i < steps; i++) {
    const start = performance.now();
    let next = start;
    while (next === start) next = performance.now();
    smallest = Math.min(smallest, next - start);
    if (next > deadline) break;
  }
  return smallest;
}

/** The resolution is under this fraction of every sample (1 %). */
export const RESOLUTION_SHARE = 0.01;

/** The time a sample must reach so the timer's step is under 1 % of it, never under `floorMs`. */
export function sampleTargetMs(resolutionMs: number, floorMs = 2): number {
  return Math.max(resolutionMs / RESOLUTION_SHARE, floorMs);
}

/** How many repetitions make one sample reach `targetMs`, from the time of one repetition (at least 1). */
export function repetitionsFor(oneRepMs: number, targetMs: number, maxReps = 1_000_000): number {
  if (!(oneRepMs > 0)) return maxReps;
  return Math.min(maxReps, Math.max(1, Math.ceil(targetMs / oneRepMs)));
}
