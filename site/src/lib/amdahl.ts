/**
 * Speedup laws for the Amdahl and Gustafson explorer. Pure functions, unit-tested in test/amdahl.test.ts.
 *
 * f is the serial fraction (0..1) of the work measured on one worker; p is the number of workers (>= 1).
 * Amdahl (fixed problem size):      S(p) = 1 / (f + (1 - f) / p)   -> approaches 1/f as p grows.
 * Gustafson (problem grows with p): S(p) = p - f (p - 1)            -> grows without bound, slope (1 - f).
 */

function checkArgs(f: number, p: number): void {
  if (!Number.isFinite(f) || f < 0 || f > 1) throw new RangeError(`serial fraction must be in [0, 1], got ${f}`);
  if (!Number.isFinite(p) || p < 1) throw new RangeError(`workers must be >= 1, got ${p}`);
}

/** Amdahl's law: the speedup of a fixed workload whose serial fraction is f, on p workers. */
export function amdahlSpeedup(f: number, p: number): number {
  checkArgs(f, p);
  return 1 / (f + (1 - f) / p);
}

/** Gustafson's law: the scaled speedup when the parallel part grows with p and the serial time stays fixed. */
export function gustafsonSpeedup(f: number, p: number): number {
  checkArgs(f, p);
  return p - f * (p - 1);
}

/** The upper limit of Amdahl's speedup as p grows without bound: 1/f (Infinity when f = 0). */
export function amdahlLimit(f: number): number {
  checkArgs(f, 1);
  return f === 0 ? Infinity : 1 / f;
}

export interface CurvePoint {
  workers: number;
  amdahl: number;
  gustafson: number;
  ideal: number;
}

/** The laws evaluated at workers 1..maxWorkers (integers), for the chart and its data table. */
export function speedupCurves(f: number, maxWorkers: number): CurvePoint[] {
  checkArgs(f, maxWorkers);
  const points: CurvePoint[] = [];
  for (let p = 1; p <= Math.floor(maxWorkers); p++) {
    points.push({ workers: p, amdahl: amdahlSpeedup(f, p), gustafson: gustafsonSpeedup(f, p), ideal: p });
  }
  return points;
}
