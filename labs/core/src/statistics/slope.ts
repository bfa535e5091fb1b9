/**
 * A straight line through points, and a percentile-bootstrap interval of its slope where each point is the median of
 * its own samples: task-granularity's per-task overhead (the slope of wall time against task count). Moved here from
 * the lab (issue 41: every statistic in the core), with the same arithmetic, so committed runs recompute as before.
 */
import { median } from './descriptive.ts';
import { assertResampling, nextUniform } from './bootstrap.ts';
import { StatisticsInputError } from './errors.ts';

/**
 * Least-squares line y = intercept + slope * x.
 * @throws StatisticsInputError with fewer than two (x, y) pairs, unequal counts, or no two distinct x values.
 */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } {
  if (xs.length !== ys.length || xs.length < 2) throw new StatisticsInputError('linearFit needs two or more (x, y) pairs of equal count');
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    sxx += ((xs[i] as number) - mx) ** 2;
  }
  if (sxx === 0) throw new StatisticsInputError('linearFit needs two distinct x values');
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/**
 * The 95 % percentile-bootstrap interval of the slope of the line through (x, median of that point's samples): each
 * point's samples are resampled on their own (with replacement, as many as it has), the line is fitted through the
 * resampled medians, and the 2.5 % and 97.5 % order statistics of the `resamples` slopes (nearest rank on
 * (resamples - 1) * q) are the interval. Deterministic for an `rng` from `createRng(seed)`.
 * @throws StatisticsInputError when a point has fewer than two samples, or on a bad rng or resample count.
 */
export function bootstrapSlopeCi(points: readonly { x: number; samples: readonly number[] }[], rng: () => number, resamples: number): [number, number] {
  assertResampling('bootstrapSlopeCi', rng, resamples);
  for (const p of points) {
    if (p.samples.length < 2) throw new StatisticsInputError(`bootstrapSlopeCi needs two or more samples at each point (x = ${p.x} has ${p.samples.length})`);
  }
  const xs = points.map((p) => p.x);
  const slopes = new Float64Array(resamples);
  const draw: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const ys = points.map((p) => {
      draw.length = 0;
      for (let i = 0; i < p.samples.length; i++) draw.push(p.samples[Math.floor(nextUniform('bootstrapSlopeCi', rng) * p.samples.length)] as number);
      return median(draw);
    });
    slopes[r] = linearFit(xs, ys).slope;
  }
  slopes.sort();
  const at = (q: number) => slopes[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))] as number;
  return [at(0.025), at(0.975)];
}
