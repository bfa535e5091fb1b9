/**
 * The slope's line fit and its bootstrap interval (statistics/slope.ts): known values, and by simulation that the
 * interval covers the true slope about as often as it claims.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootstrapSlopeCi, createRng, linearFit, StatisticsInputError } from '../src/index.ts';

test('linearFit: a line through hand-picked points', () => {
  assert.deepEqual(linearFit([1, 2, 3], [5, 7, 9]), { slope: 2, intercept: 3 }); // y = 3 + 2x exactly
  const fit = linearFit([0, 1, 2, 3], [1, 2, 2, 3]); // slope = sxy / sxx = 3 / 5, intercept = 2 - 0.6 * 1.5
  assert.ok(Math.abs(fit.slope - 0.6) < 1e-12 && Math.abs(fit.intercept - 1.1) < 1e-12);
  assert.throws(() => linearFit([1, 1], [2, 3]), /two distinct x values/);
  assert.throws(() => linearFit([1], [2]), StatisticsInputError);
});

test('bootstrapSlopeCi: points without noise give the slope itself; a seed gives the same interval', () => {
  const exact = [1, 2, 4].map((x) => ({ x, samples: [3 + 2 * x, 3 + 2 * x, 3 + 2 * x] }));
  assert.deepEqual(bootstrapSlopeCi(exact, createRng(1), 200), [2, 2]);
  const noisy = [10, 20, 40].map((x, i) => ({ x, samples: [x * 0.5 + 1, x * 0.5 + 2 + i, x * 0.5 - 1, x * 0.5 + 3] }));
  const a = bootstrapSlopeCi(noisy, createRng(7), 500);
  assert.deepEqual(bootstrapSlopeCi(noisy, createRng(7), 500), a);
  assert.ok(a[0] <= 0.5 + 0.2 && a[1] >= 0.5 - 0.2 && a[0] < a[1], `[${a}]`);
  assert.throws(() => bootstrapSlopeCi([{ x: 1, samples: [1] }, { x: 2, samples: [2, 3] }], createRng(1), 10), /two or more samples at each point \(x = 1 has 1\)/);
  assert.throws(() => bootstrapSlopeCi(exact, createRng(1), 0), StatisticsInputError);
});

test('bootstrapSlopeCi covers the true slope in about 95% of simulated runs (3 task counts, 15 samples each)', () => {
  // Wall time = 2 ms + 0.03 ms per task + noise (uniform, +-0.5 ms), the shape of task-granularity's overhead sizes.
  const noise = createRng(2026);
  const runs = 300;
  let covered = 0;
  for (let run = 0; run < runs; run++) {
    const points = [64, 256, 1024].map((tasks) => ({ x: tasks, samples: Array.from({ length: 15 }, () => 2 + 0.03 * tasks + (noise() - 0.5)) }));
    const [low, high] = bootstrapSlopeCi(points, createRng(run + 1), 400);
    if (low <= 0.03 && 0.03 <= high) covered++;
  }
  // Percentile intervals of medians of 15 samples run a little narrow; 0.88 to 0.99 is what 95% means here.
  assert.ok(covered / runs >= 0.88 && covered / runs <= 0.99, `covered ${covered} of ${runs}`);
});
