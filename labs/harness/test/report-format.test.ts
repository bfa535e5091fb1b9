import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jitter } from '../src/report/charts.ts';
import { thinSamples } from '../src/report/select.ts';
import { renderTextTable, wrapText } from '../src/text-table.ts';
import { amdahlSpeedup, caseLabel, formatSignificant, formatSpeedup, formatThroughput, formatTime, formatTimeWithInterval, sameParams, terminalText } from '@parallel-course/core';

describe('report number formatting', () => {
  it('rounds to three significant digits', () => {
    assert.equal(formatSignificant(40.9955), '41.0');
    assert.equal(formatSignificant(0.0012345), '0.00123');
    assert.equal(formatSignificant(1234.5), '1230');
    assert.equal(formatSignificant(0), '0');
  });

  it('picks the time unit that reads best', () => {
    assert.equal(formatTime(40.9955), '41.0 ms');
    // 0.0021 ms = 2.1 µs
    assert.equal(formatTime(0.0021), '2.10 µs');
    // 5e-7 ms = 0.5 ns
    assert.equal(formatTime(5e-7), '0.500 ns');
    assert.equal(formatTime(1500), '1.50 s');
    assert.equal(formatTimeWithInterval(0.25, [0.2, 0.3]), '250 µs [200, 300]');
  });

  it('computes throughput at the median: amount / (median ms / 1000)', () => {
    // 40 requests / 0.041 s = 975.6 requests/s
    assert.equal(formatThroughput({ amount: 40, unit: 'requests' }, 41), '976 requests/s');
    // 1e6 elements / 0.002 s = 5e8 elements/s = 500 M
    assert.equal(formatThroughput({ amount: 1e6, unit: 'elements' }, 2), '500 M elements/s');
    // 8 / 0.001 s = 8000/s: below the 10k threshold, printed without a prefix
    assert.equal(formatThroughput({ amount: 8, unit: 'ops' }, 1), '8000 ops/s');
  });

  it('formats a speedup with its interval', () => {
    assert.equal(formatSpeedup({ speedup: 1.7728, ci95: [1.7209, 1.8384] }), '1.77x [1.72, 1.84]');
  });

  it('names cases by variant and parameters', () => {
    assert.equal(caseLabel({ variant: 'inline', params: {} }), 'inline');
    assert.equal(caseLabel({ variant: 'pool', params: { workers: 2, size: 'large' } }), 'pool (size=large, workers=2)');
    assert.equal(sameParams({ a: 1, b: 'x' }, { b: 'x', a: 1 }), true);
    assert.equal(sameParams({ a: 1 }, { a: 2 }), false);
    assert.equal(sameParams({ a: 1 }, { a: 1, b: 2 }), false);
  });
});

describe('chart helpers', () => {
  it('Amdahl speedup is 1 / (f + (1 - f) / p)', () => {
    // f = 0.1, p = 4: 1 / (0.1 + 0.225) = 3.0769...
    assert.ok(Math.abs(amdahlSpeedup(0.1, 4) - 1 / 0.325) < 1e-12);
    assert.equal(amdahlSpeedup(0, 8), 8);
    assert.equal(amdahlSpeedup(1, 8), 1);
  });

  it('jitter is deterministic and stays inside its width', () => {
    const values = Array.from({ length: 500 }, (_, i) => jitter(i, 0.5));
    assert.deepEqual(values, Array.from({ length: 500 }, (_, i) => jitter(i, 0.5)));
    assert.ok(values.every((v) => v >= -0.25 && v < 0.25));
    // A Weyl sequence fills the interval: both halves get points.
    assert.ok(values.some((v) => v < -0.2) && values.some((v) => v > 0.2));
  });

  it('thins long sample lists to evenly spaced ranks, keeping min and max', () => {
    const samples = Array.from({ length: 10_001 }, (_, i) => (i * 7919) % 10_001);
    const thin = thinSamples(samples, 101);
    assert.equal(thin.length, 101);
    assert.equal(thin[0], 0);
    assert.equal(thin[100], 10_000);
    // Ranks 0, 100, 200...: the sorted values are 0..10000, so every 100th.
    assert.equal(thin[50], 5000);
    assert.deepEqual(thinSamples([3, 1, 2], 101), [3, 1, 2]);
  });
});

describe('terminal text tables', () => {
  it('replaces control characters so a results file cannot drive the terminal', () => {
    assert.equal(terminalText('a\u001b[31mb\nc\u202ed'), 'ab?c?d');
  });

  it('keeps every line within the width by shortening the flexible column', () => {
    const lines = renderTextTable(['case', 'reason'], [['x', 'word '.repeat(60)]], { maxWidth: 40 });
    assert.ok(lines.every((l) => [...l].length <= 40), lines.join('\n'));
    assert.ok(lines[1]?.endsWith('…'));
  });

  it('wraps with a hanging indent and splits words longer than a line', () => {
    assert.deepEqual(wrapText('aaa bbb ccc', 9, '- '), ['- aaa bbb', '  ccc']);
    assert.deepEqual(wrapText('abcdefghijkl', 10, ''), ['abcdefghij', 'kl']);
  });
});
