/** The worker-count sweep follows P: every count to 4, powers of two, P, and 2P when asked. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortWorkerSweep, workerSweep } from '../src/plan/sweep.ts';

test('worker sweeps for P = 1, 2, 3, 4, 16, 64, 96 and 128', () => {
  assert.deepEqual(workerSweep(1), [1]);
  assert.deepEqual(workerSweep(2), [1, 2]);
  assert.deepEqual(workerSweep(3), [1, 2, 3]);
  assert.deepEqual(workerSweep(4, { oversubscribe: true }), [1, 2, 3, 4, 8]);
  assert.deepEqual(workerSweep(16), [1, 2, 3, 4, 8, 16]);
  assert.deepEqual(workerSweep(64, { oversubscribe: true }), [1, 2, 3, 4, 8, 16, 32, 64, 128]);
  assert.deepEqual(workerSweep(96), [1, 2, 3, 4, 8, 16, 32, 64, 96]);
  assert.deepEqual(workerSweep(128), [1, 2, 3, 4, 8, 16, 32, 64, 128]);
});

test('a cap keeps P the last point below it, and drops 2P above it', () => {
  assert.deepEqual(workerSweep(16, { max: 8 }), [1, 2, 3, 4, 8]);
  assert.deepEqual(workerSweep(6, { max: 8, oversubscribe: true }), [1, 2, 3, 4, 6]);
  assert.throws(() => workerSweep(0), /workerSweep: P must be a positive integer, got 0/);
});

test('the short sweep: W = 1, 2 and P, each once, ascending; a P that is not a positive integer is refused', () => {
  assert.deepEqual(shortWorkerSweep(1), [1]);
  assert.deepEqual(shortWorkerSweep(2), [1, 2]);
  assert.deepEqual(shortWorkerSweep(3), [1, 2, 3]);
  assert.deepEqual(shortWorkerSweep(128), [1, 2, 128]);
  assert.throws(() => shortWorkerSweep(0), { message: 'shortWorkerSweep: P must be a positive integer, got 0' });
  assert.throws(() => shortWorkerSweep(2.5), RangeError);
});
