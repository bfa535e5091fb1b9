/**
 * Timing a lab's unit of work for its calibration (LabDefinition.planning.calibrate): a few tens of milliseconds of
 * the real loop on this machine, so a plan divides work by this machine's rate, not by a constant from another one.
 */

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
