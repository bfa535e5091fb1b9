/**
 * writeAnalysis always writes analysis/values.json (issue 20): the lab's values and tables validated by one schema,
 * empty records when the lab gives none, tied to the run by lab and startedAt; an invalid value writes nothing.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { writeAnalysis } from '../src/analyse/lab-analysis.ts';
import { parseAnalysisValuesJson } from '@parallel-course/core';
import { valuesContradictions } from '../src/tools/recompute-values.ts';
import { checkRunFolder } from '../src/tools/run-folders.ts';
import { tempDir } from './support/temp-dir.ts';

const FIXTURE = new URL('./fixtures/results-event-loop.json', import.meta.url);

test('writeAnalysis writes values.json: empty records when the lab gives none, read from the run folder', (t) => {
  const run = tempDir(t, 'course-values-');
  copyFileSync(FIXTURE, path.join(run, 'results.json'));
  const written = writeAnalysis(run, { text: 'text', files: [] });
  const values = parseAnalysisValuesJson(readFileSync(path.join(written.dir, 'values.json'), 'utf8'));
  assert.deepEqual(values, { schemaVersion: 1, lab: 'event-loop', startedAt: '2026-05-04T09:12:03.412Z', values: {}, tables: {} });
  assert.ok(written.files.includes(path.join(written.dir, 'values.json')));
});

test("writeAnalysis writes the lab's values and tables; the site's reader finds the newest", (t) => {
  const run = tempDir(t, 'course-values-');
  copyFileSync(FIXTURE, path.join(run, 'results.json'));
  writeAnalysis(run, { text: 'first', files: [] });
  const analysis = {
    text: 'second',
    files: [],
    values: { perTaskOverheadUs: { value: 52.7, unit: 'µs', ci95: [49, 57] as [number, number], what: 'per-task cost' } },
    tables: { cases: { caption: 'c', columns: ['case', 'time'], rows: [['pool', { value: 1, unit: 'ms', what: 'median' }]] } },
  };
  const second = writeAnalysis(run, analysis, { lab: 'event-loop', startedAt: '2026-05-04T09:12:03.412Z' });
  assert.equal(path.basename(second.dir), 'analysis-2');
  const checked = checkRunFolder(run, { requireValues: true });
  assert.equal(checked.values?.values['perTaskOverheadUs']?.value, 52.7);
  assert.equal(checked.values?.tables['cases']?.rows.length, 1);
});

test('an invalid value or a values.json of another run is refused', (t) => {
  const run = tempDir(t, 'course-values-');
  copyFileSync(FIXTURE, path.join(run, 'results.json'));
  assert.throws(
    () => writeAnalysis(run, { text: 'x', files: [], values: { 'per-task': { value: 1, unit: 'ms', what: 'x' } } }),
    /values\.per-task: .*camelCase/,
  );
  assert.ok(!existsSync(path.join(run, 'analysis')), 'nothing written');
  assert.throws(() => writeAnalysis(run, { text: 'x', files: [{ name: 'values.json', contents: '{}' }] }), /may not write 'values\.json'/);
  writeAnalysis(run, { text: 'x', files: [] }, { lab: 'event-loop', startedAt: '2020-01-01T00:00:00.000Z' });
  const checked = checkRunFolder(run);
  assert.equal(checked.values, null);
  assert.match(checked.problems.join('\n'), /belongs to the event-loop run of 2020-01-01T00:00:00\.000Z, not to this event-loop run of 2026-05-04/);
});

test('valuesContradictions: a changed number, unit, interval or table cell is one; a value or table only one side has is not', () => {
  const base = {
    schemaVersion: 1 as const,
    lab: 'event-loop',
    startedAt: '2026-05-04T09:12:03.412Z',
    values: {
      a: { value: 1.5, unit: 'ms', ci95: [1.4, 1.6] as [number, number], what: 'a' },
      b: { value: 2, unit: 'x', what: 'b' },
    },
    tables: { t: { caption: 'c', columns: ['case', 'time'], rows: [['pool', { value: 1, unit: 'ms', what: 'median' }]] } },
  };
  const copy = () => structuredClone(base);
  assert.deepEqual(valuesContradictions(base, copy()), []);
  // rounding noise far below any printed digit is the same number
  const noisy = copy();
  noisy.values.a.value = 1.5 * (1 + 1e-12);
  assert.deepEqual(valuesContradictions(base, noisy), []);
  const planted = copy();
  planted.values.b.value = 987654321;
  assert.deepEqual(valuesContradictions(planted, base), ['value "b" is 987654321 x, the analysis gives 2 x']);
  const unit = copy();
  unit.values.a.unit = 'µs';
  assert.equal(valuesContradictions(unit, base).length, 1);
  const interval = copy();
  interval.values.a.ci95 = [1.0, 1.6];
  assert.match(valuesContradictions(interval, base)[0]!, /value "a" is 1\.5 ms \[1, 1\.6\], the analysis gives 1\.5 ms \[1\.4, 1\.6\]/);
  const cell = copy();
  (cell.tables.t.rows[0]![1] as { value: number }).value = 0.5;
  assert.deepEqual(valuesContradictions(cell, base), ['table "t" row 1 differs from the analysis']);
  const label = copy();
  label.tables.t.rows[0]![0] = 'inline';
  assert.equal(valuesContradictions(label, base).length, 1);
  // an older or newer analysis: values and tables only one side has, or a table of another shape
  const older = copy();
  delete (older.values as Record<string, unknown>)['b'];
  older.tables.t.columns = ['case', 'time', 'extra'];
  older.tables.t.rows = [['pool', { value: 9, unit: 'ms', what: 'median' }, 'x']];
  assert.deepEqual(valuesContradictions(older, base), []);
  assert.deepEqual(valuesContradictions(base, older), []);
});
