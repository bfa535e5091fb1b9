/** samplesToResolve (statistics/resolve.ts) against hand-computed values. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { samplesToResolve } from '../src/statistics/resolve.ts';

test('an interval that excludes 1 is resolved, on either side', () => {
  assert.deepEqual(samplesToResolve(1.8, [1.6, 1.97], 30), { resolved: true });
  assert.deepEqual(samplesToResolve(0.5, [0.45, 0.55], 8), { resolved: true });
});

test('an interval around 1: the samples it needs, from the log half-width over the log effect, squared', () => {
  // Reference: the event-loop quick run under load, 1.13x [0.974, 1.76] from 8 samples.
  // half-width = (ln 1.76 - ln 0.974) / 2 = (0.565314 + 0.026344) / 2 = 0.295829; effect = ln 1.13 = 0.122218;
  // n' = 8 x (0.295829 / 0.122218)^2 = 8 x 5.8588 = 46.87 -> 47, so 39 more.
  assert.deepEqual(samplesToResolve(1.13, [0.974, 1.76], 8), { resolved: false, moreSamples: 39 });
  // A slower case reads the same way: 0.9x [0.8, 1.05] from 10: hw = (ln 1.05 - ln 0.8)/2 = 0.135971, effect 0.105361,
  // n' = 10 x 1.6655 = 16.65 -> 17, so 7 more.
  assert.deepEqual(samplesToResolve(0.9, [0.8, 1.05], 10), { resolved: false, moreSamples: 7 });
  // At least one more, even when the estimate lands on n.
  assert.deepEqual(samplesToResolve(1.2, [0.999, 1.44], 100), { resolved: false, moreSamples: 1 });
});

test('no estimate for a ratio of 1, and bad input is refused by name', () => {
  assert.deepEqual(samplesToResolve(1, [0.9, 1.1], 8), { resolved: false, moreSamples: null });
  assert.throws(() => samplesToResolve(0, [0.9, 1.1], 8), /samplesToResolve needs a ratio > 0/);
  assert.throws(() => samplesToResolve(1.1, [1.2, 1.1], 8), /an interval 0 < lo <= hi/);
  assert.throws(() => samplesToResolve(1.1, [0.9, 1.2], 0), /a whole n >= 1/);
});
