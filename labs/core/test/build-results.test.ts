/**
 * buildResults: the one way both producers (the harness's run-lab.ts and the page's browser-lab/runner.ts) make a
 * results object. Rebuilt from a committed reference run's own record and samples, it is that run to the field,
 * in the schema's field order, and it passes the schema and the validator's recomputation.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { analysisInputsOf, analyzeRun, buildResults, checkResults, parseResultsJson, resultsSchema, SCHEMA_VERSION, type Results, type RunRecord } from '@parallel-course/core';

function referenceRun(lab: string): Results {
  const dir = new URL(`../../../reference/${lab}/`, import.meta.url);
  const run = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()[0]!;
  return parseResultsJson(readFileSync(new URL(`${run}/results.json`, dir), 'utf8'), `reference/${lab}`);
}

test('buildResults rebuilds a reference run from its record and samples, field for field and in schema order', () => {
  const original = referenceRun('event-loop');
  const { schemaVersion: _version, cases: _c, speedups: _s, amdahl: _a, headline, grade: _g, ...record } = original;
  const analysis = analyzeRun(analysisInputsOf(original), {
    baseline: original.baseline,
    headline: { variant: headline!.variant, params: headline!.params },
    seed: original.seed,
    resamples: original.bootstrapResamples,
    availableParallelism: original.cpus.available,
    grading: null,
  });
  const rebuilt = buildResults(record satisfies RunRecord, analysis);
  assert.deepEqual(rebuilt, original);
  const schemaOrder = Object.keys(resultsSchema.shape).filter((k) => k in rebuilt);
  assert.deepEqual(Object.keys(rebuilt), schemaOrder, 'fields in the order the schema lists them');
  assert.deepEqual(checkResults(rebuilt), [], 'the validator recomputes every number of it');
});

test('buildResults leaves out the optional fields a producer does not record, and keeps the ones it does', () => {
  const original = referenceRun('event-loop');
  const { schemaVersion: _v, cases, speedups, amdahl, headline, grade, runtime: _r, solutionFingerprint: _f, ...record } = original;
  const plain = buildResults(record, { cases, speedups, amdahl, headline, grade });
  assert.equal('runtime' in plain, false);
  assert.equal('solutionFingerprint' in plain, false);
  const browser = buildResults({ ...record, runtime: 'browser' }, { cases, speedups, amdahl, headline, grade });
  assert.equal(browser.runtime, 'browser');
  assert.equal(browser.schemaVersion, SCHEMA_VERSION);
  resultsSchema.parse(browser);
});
