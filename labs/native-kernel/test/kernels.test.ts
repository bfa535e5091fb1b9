import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeInput, matmulFlop, MAX_REPEATS, repeatsFor, toRows } from '../src/matrices.ts';
import { matmulNaive, matmulTyped } from '../src/ts-kernels.ts';
import { matmulComparator, productTolerance, UNIT_ROUNDOFF } from '../src/tolerance.ts';

test('matmulNaive: [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]] (by hand: 1*5+2*7 = 19, ...)', () => {
  assert.deepEqual(matmulNaive([[1, 2], [3, 4]], [[5, 6], [7, 8]], 2), [[19, 22], [43, 50]]);
});

test('matmulTyped: the same product, row-major, overwriting whatever c held', () => {
  const c = new Float64Array([9, 9, 9, 9]);
  matmulTyped(new Float64Array([1, 2, 3, 4]), new Float64Array([5, 6, 7, 8]), c, 2);
  assert.deepEqual([...c], [19, 22, 43, 50]);
});

test('matmulTyped: a 3x3 non-symmetric product (by hand: row 0 = 1*[1,0,2] + 2*[0,1,0] + 0*[3,0,1] = [1,2,2])', () => {
  const a = new Float64Array([1, 2, 0, 0, 1, 1, 2, 0, 1]);
  const b = new Float64Array([1, 0, 2, 0, 1, 0, 3, 0, 1]);
  const c = new Float64Array(9);
  matmulTyped(a, b, c, 3);
  assert.deepEqual([...c], [1, 2, 2, 3, 1, 1, 5, 0, 5]);
});

/** makeInput(5, 7).a[0..2], computed with the lab's own mulberry32 before it took the core's createRng. */
const FIRST_ENTRIES = [-0.1858561374247074, 0.7570957983843982, 0.15181442629545927];

test('makeInput is seeded by seed and n (the core\'s createRng, mulberry32, as the matrices always were)', () => {
  // The first entries of makeInput(5, 7).a as the lab's own mulberry32 made them before it took the core's: unchanged.
  assert.deepEqual([...makeInput(5, 7).a.subarray(0, 3)], FIRST_ENTRIES);
  assert.deepEqual(makeInput(5, 7).a, makeInput(5, 7).a);
  assert.notDeepEqual(makeInput(5, 7).a, makeInput(5, 8).a);
  const input = makeInput(3, 1);
  assert.deepEqual(input.aRows, toRows(input.a, 3));
  assert.ok([...input.a, ...input.b].every((x) => x >= -1 && x < 1));
});

test('repeatsFor: ceil(4e6 / (2 n^3)), at least 1, at most MAX_REPEATS', () => {
  assert.equal(matmulFlop(16), 8192);
  assert.equal(repeatsFor(16), 489); // 4e6 / 8192 = 488.28 -> 489
  assert.equal(repeatsFor(128), 1); // 4e6 / 4194304 < 1
  assert.equal(repeatsFor(2), MAX_REPEATS); // 4e6 / 16 = 250000, capped
  assert.throws(() => makeInput(0, 1), /n must be a positive integer, got 0/);
});

test('productTolerance(n) = 2 n^2 u / (1 - n u): 256 -> 1.4552e-11', () => {
  const u = UNIT_ROUNDOFF;
  assert.equal(productTolerance(1), (2 * u) / (1 - u));
  assert.ok(Math.abs(productTolerance(256) - 1.4552e-11) < 1e-15);
});

test('the comparator accepts rounding-sized differences and rejects larger ones, reporting the errors', () => {
  const cmp = matmulComparator(256);
  const expected = new Float64Array([1, -2, 3]);
  const close = new Float64Array([1 + 1e-12, -2, 3]);
  const far = new Float64Array([1, -2, 3 + 1e-9]);
  assert.equal(cmp.compare(expected, close).equal, true);
  const bad = cmp.compare(expected, far);
  assert.equal(bad.equal, false);
  assert.equal(bad.firstMismatch?.index, 2);
  assert.ok(Math.abs((bad.maxAbsError as number) - 1e-9) < 1e-15);
  assert.match(cmp.description, /Higham/);
});
