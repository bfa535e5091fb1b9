/** Comparators on hand-made outputs: where they differ first, and the largest errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exactStrings, withinTolerance } from '../src/comparators.ts';

test('exactStrings: equal lists pass; the first differing element is named', () => {
  const exact = exactStrings();
  assert.equal(exact.compare(['a', 'b'], ['a', 'b']).equal, true);
  assert.deepEqual(exact.compare(['a', 'b', 'c'], ['a', 'x', 'y']).firstMismatch, { index: 1, expected: '"b"', actual: '"x"' });
  assert.deepEqual(exact.compare(['a'], ['a', 'b']).firstMismatch, { index: 'length', expected: '1', actual: '2' });
});

test('withinTolerance: |a - e| <= abs + rel*|e|, with the largest absolute and relative errors', () => {
  const close = withinTolerance({ abs: 1e-6, rel: 1e-3 });
  // Reference: errors 0.001 (rel 0.001 of 1, allowed 1e-6 + 1e-3) and 0.5 (rel 0.25 of 2, not allowed).
  const result = close.compare([1, 2, 3], [1.001, 2.5, 3]);
  assert.equal(result.equal, false);
  assert.deepEqual(result.firstMismatch, { index: 1, expected: '2', actual: '2.5' });
  assert.ok(Math.abs((result.maxAbsError ?? 0) - 0.5) < 1e-12);
  assert.ok(Math.abs((result.maxRelError ?? 0) - 0.25) < 1e-12);
  assert.equal(close.compare([1, 2], [1.0009, 2]).equal, true);
  assert.equal(close.compare([1], [Number.NaN]).equal, false);
  assert.throws(() => withinTolerance({ abs: -1, rel: 0 }), /tolerances must be non-negative/);
});

test('a mismatch excerpt of two long strings shows their first difference, so the two never read the same', () => {
  const head = 'account 1000\n' + 'a'.repeat(200);
  const compared = exactStrings().compare([`${head}X-expected`], [`${head}Y-actual`]);
  const m = compared.firstMismatch!;
  assert.equal(m.index, 0);
  assert.notEqual(m.expected, m.actual);
  assert.match(m.expected, /X-expected/);
  assert.match(m.actual, /Y-actual/);
  assert.ok(m.expected.startsWith('…'), 'the cut is marked');
  assert.ok(m.expected.length <= 90);
});
