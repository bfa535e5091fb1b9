/** The one number formatter: one significant-digit rule, on known values (9.996 is the case that used to print three ways). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatInterval, formatLoadAverage, formatPercent, formatRatio, formatSignificant, formatSpeedup, formatThroughput, formatTime, formatTimeWithInterval } from '@parallel-course/core';

test('formatSignificant rounds to three significant digits, keeps trailing zeros, carries before reading the magnitude', () => {
  assert.equal(formatSignificant(9.996), '10.0');
  assert.equal(formatSignificant(40.9955), '41.0');
  assert.equal(formatSignificant(0.0021), '0.00210');
  assert.equal(formatSignificant(1234.5), '1230');
  assert.equal(formatSignificant(0.99951), '1.00');
  assert.equal(formatSignificant(-2.345), '-2.35');
  assert.equal(formatSignificant(0), '0');
  assert.equal(formatSignificant(1.5, 2), '1.5');
  assert.equal(formatSignificant(Number.NaN), 'NaN');
});

test('times pick the unit after rounding, ratios and intervals use the same rule', () => {
  assert.equal(formatTime(41.3), '41.3 ms');
  assert.equal(formatTime(0.0021), '2.10 µs');
  assert.equal(formatTime(0.0009997), '1.00 µs');
  assert.equal(formatTime(0.9997), '1.00 ms');
  assert.equal(formatTime(1500), '1.50 s');
  assert.equal(formatTimeWithInterval(41, [40.71, 41.52]), '41.0 ms [40.7, 41.5]');
  assert.equal(formatRatio(9.996), '10.0x');
  assert.equal(formatRatio(1.7728), '1.77x');
  assert.equal(formatSpeedup({ speedup: 1.7728, ci95: [1.7212, 1.8449] }), '1.77x [1.72, 1.84]');
  assert.equal(formatInterval([0.9996, 12.34]), '1.00–12.3');
  assert.equal(formatPercent(0.8864), '89%');
  assert.equal(formatThroughput({ amount: 40, unit: 'requests' }, 41), '976 requests/s');
  assert.equal(formatThroughput({ amount: 20000, unit: 'calls' }, 0.8), '25.0 M calls/s');
});

test('formatLoadAverage: the three load averages with two decimals each, as /proc/loadavg states them', () => {
  assert.equal(formatLoadAverage([0.32, 0.4, 11.5]), '0.32 / 0.40 / 11.50');
  assert.equal(formatLoadAverage([0.005, 2, 0]), '0.01 / 2.00 / 0.00');
});
