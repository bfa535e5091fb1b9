/**
 * The resolver behind the site's <Measured> (issue 20): each selector on a known run, formatting (significant digits,
 * unit scaling, intervals), and errors that name the selector and what the run has.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { buildAnalysisValues, formatSignificant, parseAnalysisValues, parseResultsJson } from '@parallel-course/core';
import { formatMeasured, MeasuredSelectorError, parseCaseSelector, resolveMeasured, scaleUnit, type Resolved } from '../src/analyse/measured.ts';

const results = parseResultsJson(readFileSync(new URL('./fixtures/results-event-loop.json', import.meta.url), 'utf8'));
const values = buildAnalysisValues(results, {
  values: {
    perTaskOverheadUs: { value: 52.74, unit: 'µs', ci95: [49.1, 57.33], what: 'per-task cost of the pool' },
    bandwidth: { value: 12.345, unit: 'GB/s', what: 'triad bandwidth' },
    share: { value: 45.25, unit: '%', ci95: null, what: 'a share' },
  },
  tables: {},
});

const num = (value: number, unit: string, ci95: [number, number] | null = null): Resolved => ({ kind: 'number', value, unit, ci95, what: '' });

test('headline: the headline speedup with its interval, as the spec shows it', () => {
  const r = resolveMeasured(results, values, { at: 'headline' });
  assert.deepEqual(r, { kind: 'number', value: 1.7728, unit: 'x', ci95: [1.7209, 1.8384], what: 'headline speedup of pool (workers=2) over inline' });
  assert.equal(formatMeasured(r), '1.77× [1.72, 1.84]');
  assert.equal(formatMeasured(r, { interval: false }), '1.77×');
  assert.equal(formatMeasured(r, { digits: 2 }), '1.8× [1.7, 1.8]');
});

test('baseline and median: times with their intervals, in the unit that fits or the one asked for', () => {
  assert.equal(formatMeasured(resolveMeasured(results, values, { at: 'baseline' })), '41.0 ms [40.7, 41.5]');
  const pool = resolveMeasured(results, values, { at: 'median', case: 'pool workers=2' });
  assert.equal(formatMeasured(pool), '23.1 ms [22.6, 23.7]');
  assert.equal(formatMeasured(pool, { unit: 'µs' }), '23100 µs [22600, 23700]');
  assert.equal(formatMeasured(pool, { unit: 's', interval: false }), '0.0231 s');
  assert.equal(formatMeasured(resolveMeasured(results, values, { at: 'median', case: 'inline' })), '41.0 ms [40.7, 41.5]');
});

test('speedup: a case of results.speedups; params match as text and in any order', () => {
  const r = resolveMeasured(results, values, { at: 'speedup', case: 'pool  workers=4' });
  const entry = results.speedups.find((s) => s.variant === 'pool' && s.params['workers'] === 4)!;
  assert.equal(r.kind === 'number' && r.value, entry.speedup);
  assert.deepEqual(r.kind === 'number' && r.ci95, entry.ci95);
});

test('value: a key of values.json, with its own unit', () => {
  assert.equal(formatMeasured(resolveMeasured(results, values, { at: 'value', name: 'perTaskOverheadUs' })), '52.7 µs [49.1, 57.3]');
  assert.equal(formatMeasured(resolveMeasured(results, values, { at: 'value', name: 'bandwidth' })), '12.3 GB/s');
  assert.equal(formatMeasured(resolveMeasured(results, values, { at: 'value', name: 'share' })), '45.3%');
});

test('machine: the CPU model, P, Node and the date in words', () => {
  const r = resolveMeasured(results, values, { at: 'machine' });
  assert.equal(formatMeasured(r), 'AMD EPYC 7763 64-Core Processor, P = 2, Node v24.21.0, 2026-05-04');
  // A P forced above the CPUs the job could use is not passed off as that many CPUs.
  const forced = { ...results, cpus: { ...results.cpus, p: 8, available: 2, forced: true } };
  assert.equal(formatMeasured(resolveMeasured(forced, values, { at: 'machine' })), 'AMD EPYC 7763 64-Core Processor, P = 8, forced on 2 CPUs, Node v24.21.0, 2026-05-04');
  // Forced to what it had anyway: nothing to say.
  assert.equal(formatMeasured(resolveMeasured({ ...results, cpus: { ...results.cpus, forced: true } }, values, { at: 'machine' })), formatMeasured(r));
});

test('a selector that does not resolve names itself and what the run has', () => {
  assert.throws(() => resolveMeasured(results, values, { at: 'median', case: 'pool workers=9' }), (error: Error) => {
    assert.ok(error instanceof MeasuredSelectorError);
    assert.match(error.message, /run="event-loop" at="median" case="pool workers=9"/);
    assert.match(error.message, /"pool workers=1", "pool workers=2", "pool workers=3", "pool workers=4"/);
    return true;
  });
  assert.throws(() => resolveMeasured(results, values, { at: 'median', case: 'pool' }), /matches 4 measured cases.*give every param/);
  assert.throws(() => resolveMeasured(results, values, { at: 'value', name: 'nope' }), /no value "nope".*it has: perTaskOverheadUs, bandwidth, share/);
  assert.throws(() => resolveMeasured(results, null, { at: 'value', name: 'x' }), /has no analysis\/values\.json/);
  assert.throws(() => resolveMeasured(results, values, { at: 'median' }), /needs case=/);
  assert.throws(() => resolveMeasured(results, values, { at: 'fastest' }), /unknown at="fastest"; use one of headline, baseline, median, speedup, value, machine/);
  assert.throws(() => resolveMeasured({ ...results, headline: null }, values, { at: 'headline' }), /no headline speedup/);
  assert.throws(() => formatMeasured(num(3, 'GB/s'), { unit: 'ms' }), /unit="ms" cannot show a value in GB\/s/);
  assert.throws(() => parseCaseSelector('workers=2'), /must start with the variant/);
  assert.throws(() => parseCaseSelector('pool workers'), /'workers' is not <param>=<value>/);
});

test('formatting: 3 significant digits with trailing zeros, times and sizes scaled to fit', () => {
  assert.equal(formatSignificant(41), '41.0');
  assert.equal(formatSignificant(0.0021), '0.00210');
  assert.equal(formatSignificant(9.996), '10.0');
  assert.equal(formatSignificant(12345), '12300');
  assert.equal(formatSignificant(0), '0');
  assert.equal(formatMeasured(num(0.0021, 'ms')), '2.10 µs');
  assert.equal(formatMeasured(num(0.0000021, 'ms')), '2.10 ns');
  assert.equal(formatMeasured(num(1500, 'ms', [1400, 1600])), '1.50 s [1.40, 1.60]');
  assert.equal(formatMeasured(num(52.7, 'us')), '52.7 µs');
  assert.equal(formatMeasured(num(73.4 * 1024 * 1024, 'B')), '73.4 MiB');
  assert.equal(formatMeasured(num(2048, 'MiB')), '2.00 GiB');
  assert.equal(formatMeasured(num(7, '')), '7', 'a count stays a whole number');
  assert.equal(formatMeasured(num(512, '', [480, 530])), '512 [480, 530]');
  assert.equal(formatMeasured(num(7.5, '')), '7.50');
  assert.equal(formatMeasured(num(41, 'ms')), '41.0 ms', 'a time keeps its significant digits');
  assert.equal(formatMeasured(num(0.99973, 'ms')), '1.00 ms', 'rounding that reaches 1000 moves to the next unit');
  assert.equal(formatMeasured(num(0.9994, 'ms')), '999 µs');
  assert.deepEqual(scaleUnit(0, 'ms'), { factor: 1, unit: 'ms' });
});

test('values.json schema: camelCase keys, finite values, ordered intervals, rows as wide as the columns', () => {
  const base = { schemaVersion: 1, lab: 'x', startedAt: '2026-01-01T00:00:00.000Z', values: {}, tables: {} };
  assert.doesNotThrow(() => parseAnalysisValues(base));
  assert.throws(() => parseAnalysisValues({ ...base, values: { 'Bad-key': { value: 1, unit: '', what: 'x' } } }), /camelCase/);
  assert.throws(() => parseAnalysisValues({ ...base, values: { a: { value: Number.POSITIVE_INFINITY, unit: '', what: 'x' } } }), /values\.a\.value/);
  assert.throws(() => parseAnalysisValues({ ...base, values: { a: { value: 1, unit: '', ci95: [2, 1], what: 'x' } } }), /interval low/);
  assert.throws(() => parseAnalysisValues({ ...base, values: { a: { value: 1, unit: '' } } }), /values\.a\.what/);
  assert.throws(() => parseAnalysisValues({ ...base, tables: { t: { caption: 'c', columns: ['a', 'b'], rows: [['only one']] } } }), /tables\.t\.rows\.0: has 1 cells but the table has 2 columns/);
});
