/** The formatters that moved into core/format.ts from the labs' and the harness's local copies (issue 41). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBracketInterval, formatBytes, formatDuration, formatMicroseconds, formatOrNA, formatShare } from '../src/format.ts';

test('formatOrNA: three significant digits, or n/a for a missing or non-finite value', () => {
  assert.deepEqual([1.23456, null, undefined, Number.NaN, Number.POSITIVE_INFINITY].map((v) => formatOrNA(v)), ['1.23', 'n/a', 'n/a', 'n/a', 'n/a']);
  assert.equal(formatOrNA(0.98765, 2), '0.99');
});

test('formatBracketInterval: a ratio interval the one way, three significant digits', () => {
  assert.equal(formatBracketInterval([0.95, 1.0512]), '[0.950, 1.05]');
  assert.equal(formatBracketInterval([9.996, 12.34]), '[10.0, 12.3]');
});

test('formatShare: a part of a whole as a percentage, "-" for an empty whole', () => {
  assert.deepEqual([formatShare(1, 8), formatShare(2, 3, 0), formatShare(5, 0)], ['12.5%', '67%', '-']);
});

test('formatBytes: binary units, one decimal below 10 of the unit', () => {
  assert.deepEqual([1536 * 1024 ** 2, 300 * 1024 ** 2, 1025, 64 * 1024 ** 2, 512].map(formatBytes), ['1.5 GiB', '300 MiB', '1.0 KiB', '64 MiB', '512 B']);
});

test('formatDuration and formatMicroseconds', () => {
  assert.deepEqual([400, 42_000, 130_400, 3_930_000].map(formatDuration), ['0 s', '42 s', '2 min 10 s', '1 h 6 min']);
  assert.deepEqual([52.71, 1050, 0.48, null].map(formatMicroseconds), ['52.7 µs', '1.05 ms', '480 ns', 'n/a']);
});
