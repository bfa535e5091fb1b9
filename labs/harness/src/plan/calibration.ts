/**
 * Timing a lab's unit of work for its calibration (LabDefinition.planning.calibrate): a few tens of milliseconds of
 * the real loop on this machine, so a plan divides work by this machine's rate, not by a constant from another one;
 * and what a case's estimate does with it (a rate by name, work spread over workers). Loads nothing: the labs' API
 * (src/index.ts) takes these from here, not from plan.ts, which reads the judge's sampling limits.
 */
import type { Calibration } from '../lab-definition.ts';

/** How long a calibration measures by default, in ms: long enough for a stable rate, short enough to go unnoticed. */
const CALIBRATION_MS = 60;

/**
 * ms per call of `fn`: one untimed call (to compile it), then calls in batches until `minMs` have passed; the
 * fastest batch's time per call, since anything else running on the machine only ever adds time.
 */
export function timePerCall(fn: () => unknown, minMs = CALIBRATION_MS): number {
  fn();
  const started = performance.now();
  let best = Infinity;
  let batch = 1;
  while (performance.now() - started < minMs) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    const perCall = (performance.now() - t0) / batch;
    best = Math.min(best, perCall);
    // Batches of at least a millisecond, so the clock's resolution does not count.
    if (perCall * batch < 1) batch *= 2;
  }
  return best;
}

/** A rate from a calibration; a missing one is a bug in the lab's `planning`, named as such. */
export function rateOf(calibration: Calibration, name: string): number {
  const rate = calibration[name];
  if (rate === undefined || !Number.isFinite(rate) || rate <= 0) {
    throw new RangeError(`the calibration has no positive rate '${name}' (it has: ${Object.keys(calibration).join(', ') || 'none'}); the lab's planning.calibrate must measure it`);
  }
  return rate;
}

/**
 * The time of work that takes `serialMs` on one core, spread over `workers`: workers beyond the P CPUs add no rate
 * (they time-slice), so the divisor is min(workers, P).
 */
export function parallelMs(serialMs: number, workers: number, p: number): number {
  return serialMs / Math.max(1, Math.min(workers, p));
}
