/** The formatters that moved into core/format.ts from the labs' and the harness's local copies (issue 41). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBracketInterval, formatBytes, formatCount, formatDownloadSize, formatDuration, formatFixed, formatFixedInterval, formatGiB, formatMicroseconds, formatOrNA, formatScientific, formatSeconds, formatShare } from '../src/format.ts';

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

test('formatFixed: exactly the given decimals, rounding half away as toFixed does on exact halves, no "-0.00", n/a when missing', () => {
  // Reference: 0.8 -> "0.80"; 1234.56 with 0 decimals -> "1235"; 0.125 is exact in binary, so it rounds up to "0.13";
  // -0.001 rounds to zero and prints "0.00"; 2.5 with 0 decimals -> "3".
  assert.deepEqual([formatFixed(0.8, 2), formatFixed(1234.56, 0), formatFixed(0.125, 2), formatFixed(-0.001, 2), formatFixed(2.5, 0), formatFixed(-1.25, 1)], ['0.80', '1235', '0.13', '0.00', '3', '-1.3']);
  assert.deepEqual([formatFixed(Number.NaN, 2), formatFixed(Number.POSITIVE_INFINITY, 1), formatFixed(null, 2), formatFixed(undefined, 2)], ['n/a', 'n/a', 'n/a', 'n/a']);
  assert.equal(formatFixedInterval([0.8149, 0.95], 2), '[0.81, 0.95]');
});

test('formatDownloadSize: decimal MB with one decimal from 1 MB, whole kB below, at least 1 kB', () => {
  assert.deepEqual([2_400_000, 1_000_000, 999_499, 12_345, 10].map(formatDownloadSize), ['2.4 MB', '1.0 MB', '999 kB', '12 kB', '1 kB']);
});

test('formatSeconds: whole seconds without decimals, else one decimal', () => {
  assert.deepEqual([5000, 500, 3250, 12_345, 0].map(formatSeconds), ['5 s', '0.5 s', '3.3 s', '12.3 s', '0 s']);
});

test('formatScientific and formatCount: exponent notation with three significant digits, counts with commas', () => {
  assert.deepEqual([1.2345e-12, 0, 5e8, -0.000123456].map((v) => formatScientific(v)), ['1.23e-12', '0.00e+0', '5.00e+8', '-1.23e-4']);
  assert.equal(formatScientific(5e8, 1), '5e+8');
  assert.deepEqual([1_000_000, 999, 1234567.8].map(formatCount), ['1,000,000', '999', '1,234,567.8']);
});

test('formatGiB: one decimal of a GiB whatever the size (the sandbox limits and notes)', () => {
  assert.deepEqual([4.25 * 2 ** 30, 8.5 * 2 ** 30, 12 * 2 ** 30].map(formatGiB), ['4.3 GiB', '8.5 GiB', '12.0 GiB']);
});
