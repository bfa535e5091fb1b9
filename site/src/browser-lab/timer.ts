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

/** Most repetitions in one sample: the cap for work too small for the clock to see at all. */
export const MAX_REPETITIONS = 1_000_000;

export interface Calibration {
  /** The sample's target (sampleTargetMs) and the clock's measured step (measureTimerResolution), in ms. */
  targetMs: number;
  resolutionMs: number;
  /** The clock: performance.now in the page, a fake one in the tests. */
  now?: () => number;
  maxReps?: number;
}

/**
 * How many repetitions make one sample of `run` reach the target. One repetition may take less than the clock's step
 * (a 1 MiB hand-off on a page that is not cross-origin isolated, whose clock moves in 0.1 ms steps, often reads 0), so
 * nothing is scaled up from a single repetition: the repetitions grow tenfold until a sample reads at least a tenth of
 * the target (then the step, under 1 % of the target, is under 10 % of the reading), and the best of three such samples,
 * less one step (a reading can be one step long), is scaled to the target; when the best of three is short again (the
 * first was a pause), the repetitions grow on. Slow work costs one call: a repetition that already reads the target
 * and a step more is the sample.
 */
export async function calibrateRepetitions(run: (reps: number) => Promise<unknown>, calibration: Calibration): Promise<number> {
  const { targetMs, resolutionMs, now = () => performance.now(), maxReps = MAX_REPETITIONS } = calibration;
  const timed = async (reps: number): Promise<number> => {
    const t0 = now();
    await run(reps);
    return now() - t0;
  };
  let reps = 1;
  for (;;) {
    const first = await timed(reps);
    if (first - resolutionMs >= targetMs) return reps;
    if (first >= targetMs / 10) {
      let best = first;
      for (let k = 0; k < 2; k++) best = Math.min(best, await timed(reps));
      // A pause (a collection, another process) can make one reading long: scale only from a best that is long too.
      if (best >= targetMs / 10 && best > resolutionMs) return Math.min(maxReps, Math.max(reps, Math.ceil((reps * targetMs) / (best - resolutionMs))));
    }
    if (reps >= maxReps) return maxReps;
    reps = Math.min(maxReps, reps * 10);
  }
}
