/** The results schema: a real file round-trips, and malformed files are rejected with the path of each problem. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isSolutionCopy, parseResults, parseResultsJson, ResultsFileError, SCHEMA_VERSION, solutionCopyParams, upgradeResults, validateSubmission } from '@parallel-course/core';

const fixture = readFileSync(new URL('../../harness/test/fixtures/results-event-loop.json', import.meta.url), 'utf8');

test('a results file survives a JSON round trip unchanged', () => {
  const results = parseResultsJson(fixture, 'fixture');
  assert.deepEqual(parseResultsJson(JSON.stringify(results), 'again'), results);
});

function rejects(mutate: (data: Record<string, unknown>) => void, problem: RegExp): void {
  const data = JSON.parse(fixture) as Record<string, unknown>;
  mutate(data);
  assert.throws(
    () => parseResults(data, 'submission.json'),
    (error: unknown) => error instanceof ResultsFileError && /^submission\.json is not a valid results file/.test(error.message) && error.problems.some((p) => problem.test(p)),
  );
}

test('malformed results files are rejected, naming the problem', () => {
  assert.throws(() => parseResultsJson('{"schemaVersion": 1,', 'broken.json'), /broken\.json is not a valid results file:\n {2}- not JSON/);
  rejects((d) => delete d.environment, /^environment: /);
  rejects((d) => (d.schemaVersion = SCHEMA_VERSION + 1), /schemaVersion is 6, this tool reads version 5: re-run the lab with this version of the course, or update the course/);
  rejects((d) => (d.schemaVersion = 1), /^recorded with an older harness \(schema version 1; this one reads version 5\): .* Rerun the lab/);
  rejects((d) => delete (((d.cases as Record<string, unknown>[])[0] as Record<string, unknown>).sampleRounds), /^cases\.0\.sampleRounds: /);
  rejects((d) => delete ((d.correctness as Record<string, unknown>[])[0] as Record<string, unknown>).failedAt, /^correctness\.0\.failedAt: /);
  rejects((d) => (d.lab = '../../etc'), /^lab: /);
  rejects((d) => ((d.correctness as unknown[]).length = 0), /^correctness: /);
  rejects((d) => (((d.speedups as Record<string, unknown>[])[0] as Record<string, unknown>).ci95 = [2, 1]), /^speedups\.0\.ci95: interval low must be <= high/);
  rejects((d) => (((d.cases as Record<string, unknown>[])[0] as Record<string, unknown>).samplesMs = ['1']), /^cases\.0\.samplesMs\.0: /);
  rejects((d) => (((d.cases as Record<string, unknown>[])[0] as Record<string, unknown>).samplesMs = [-1]), /^cases\.0\.samplesMs\.0: must be >= 0/);
});

test('a file that is not an object at all is rejected', () => {
  assert.throws(() => parseResults(null, 'x'), ResultsFileError);
  assert.throws(() => parseResults([1, 2], 'x'), ResultsFileError);
});

test('a version 2 file loads through the upgrade steps: baseline, baseline cases, efficiency bases, one quota', () => {
  const v2 = JSON.parse(fixture) as Record<string, unknown>;
  assert.equal(v2['schemaVersion'], 2, 'the fixture is a version 2 file');
  const results = parseResults(v2, 'fixture');
  assert.equal(results.schemaVersion, SCHEMA_VERSION);
  assert.equal(results.baseline, 'inline');
  assert.deepEqual(results.sweeps, [], 'without the declarations of the lab, no sweeps are guessed');
  assert.ok(results.cases.every((c) => c.sample.item === 'sample' && c.sample.itemsPerSample === 1));
  assert.ok(results.speedups.every((s) => s.baseline === 'inline' && Object.keys(s.baselineParams).length === 0));
  const two = results.speedups.find((s) => s.variant === 'pool' && s.params['workers'] === 2)!;
  // This fixture's efficiencies were over the baseline (efficiencyBasis 'baseline'): the upgrade names that case.
  assert.deepEqual(two.efficiencyOver, { variant: 'inline', params: {} });
  assert.ok(Math.abs(two.efficiencySpeedup! - two.efficiency! * 2) < 1e-12);
  assert.equal('cgroupCpuQuota' in results.environment, false);
});

test('the upgrade takes the declarations of the lab: its sweeps and what one sample is', () => {
  const results = parseResults(JSON.parse(fixture), 'fixture', {
    sweeps: [{ param: 'workers', variants: ['pool'], over: 'baseline', title: 'by workers' }],
    sampleItems: (c) => ({ item: 'request', itemsPerSample: c.workPerSample.amount }),
  });
  assert.equal(results.sweeps[0]?.param, 'workers');
  assert.deepEqual(results.cases[0]?.sample, { item: 'request', itemsPerSample: results.cases[0]?.workPerSample.amount });
});

/** A committed reference run's results.json text (version 3 while this test was written; any version upgrades). */
function referenceRunText(lab: string): string {
  const dir = new URL(`../../../reference/${lab}/`, import.meta.url);
  const run = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()[0]!;
  return readFileSync(new URL(`${run}/results.json`, dir), 'utf8');
}

const fingerprint = { folder: 'solutions/event-loop', sha256: 'ab'.repeat(32), files: 7 };

test('a version 3 graded file loads through the next step: its referenceSolution is the solutionFingerprint', () => {
  const v3 = { ...(parseResultsJson(referenceRunText('event-loop'), 'reference') as Record<string, unknown>), schemaVersion: 3, referenceSolution: fingerprint };
  const results = parseResults(v3, 'v3.json');
  assert.equal(results.schemaVersion, SCHEMA_VERSION);
  assert.deepEqual(results.solutionFingerprint, fingerprint);
  assert.equal('referenceSolution' in results, false);
  assert.equal(v3.referenceSolution, fingerprint, 'the input is not changed');
  // A solutionFingerprint in a version 3 file meant nothing there; it does not become the fingerprint.
  const forged = parseResults({ ...v3, referenceSolution: undefined, solutionFingerprint: fingerprint }, 'v3.json');
  assert.equal(forged.solutionFingerprint, undefined);
  // The committed version 2 fixture goes through both steps.
  assert.equal(upgradeResults(JSON.parse(fixture) as Record<string, unknown>)['schemaVersion'], SCHEMA_VERSION);
});

test('the current version validates solutionFingerprint and drops the old name', () => {
  const current = parseResultsJson(referenceRunText('event-loop'), 'reference') as Record<string, unknown>;
  assert.deepEqual(parseResults({ ...current, solutionFingerprint: fingerprint }, 'x').solutionFingerprint, fingerprint);
  rejects((d) => Object.assign(d, current, { solutionFingerprint: { ...fingerprint, sha256: 'not hex' } }), /^solutionFingerprint\.sha256: /);
  assert.equal('referenceSolution' in parseResults({ ...current, referenceSolution: fingerprint }, 'x'), false);
});

test("a graded file written before the solution's copies were impl: 'solution' still reads, grades and validates", () => {
  // A real --grade run of the harness's faulty fixture lab at 9e6c77e (schema 4), its solution's copy `impl: 'reference'`.
  const text = readFileSync(new URL('../../harness/test/fixtures/results-graded-v4.json', import.meta.url), 'utf8');
  const results = parseResultsJson(text, 'results-graded-v4.json');
  assert.equal(JSON.parse(text).schemaVersion, 4, 'the fixture is a version 4 file');
  assert.equal(results.schemaVersion, SCHEMA_VERSION);
  assert.ok(results.cases.some((c) => c.variant === 'learner' && c.params['impl'] === 'reference'), 'the file keeps the params it recorded');
  const entry = results.grade!.entries[0]!;
  assert.deepEqual([entry.variant, entry.params, entry.passed, entry.reason], ['learner', {}, true, null]);
  // validate recomputes the grade: a reader that found no solution's copy would say "the solution's case was not measured".
  assert.deepEqual(validateSubmission(text, 'results-graded-v4.json').problems, []);
  assert.equal(isSolutionCopy({ impl: 'reference' }), true);
  assert.deepEqual(solutionCopyParams({ size: 1 }), { size: 1, impl: 'solution' });
  assert.equal(isSolutionCopy(solutionCopyParams({})), true);
  assert.equal(isSolutionCopy({ impl: 'exercise' }), false);
});

/** A case of the committed version 4 graded fixture, as parsed JSON to edit. */
function gradedFixture(): { data: Record<string, unknown>; cases: Record<string, unknown>[] } {
  const data = JSON.parse(readFileSync(new URL('../../harness/test/fixtures/results-graded-v4.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  return { data, cases: data['cases'] as Record<string, unknown>[] };
}

test("a case's sampleProcesses: one process index per sample, kept as written; absent means one process", () => {
  const { data, cases } = gradedFixture();
  const first = cases[0]!;
  const n = (first['samplesMs'] as number[]).length;
  // A version 4 file has no processes: it loads (through the 4 -> 5 step) without the field.
  assert.equal(parseResults(structuredClone(data), 'v4.json').cases[0]!.sampleProcesses, undefined);
  // Processes 0, 1, 0, 1, ...: kept as written (version 5, the harness's forks write it).
  first['sampleProcesses'] = Array.from({ length: n }, (_, i) => i % 2);
  const v5: Record<string, unknown> = { ...structuredClone(data), schemaVersion: SCHEMA_VERSION };
  assert.deepEqual(parseResults(v5, 'v5.json').cases[0]!.sampleProcesses, Array.from({ length: n }, (_, i) => i % 2));
  assert.deepEqual(parseResultsJson(JSON.stringify(parseResults(v5, 'v5.json')), 'again').cases[0]!.sampleProcesses, first['sampleProcesses']);
  const refused = (processes: unknown, problem: RegExp) => {
    const copy = structuredClone(v5);
    (copy.cases as Record<string, unknown>[])[0]!['sampleProcesses'] = processes;
    assert.throws(() => parseResults(copy, 'edited.json'), (e: unknown) => e instanceof ResultsFileError && e.problems.some((p) => problem.test(p)), String(problem));
  };
  refused(Array.from({ length: n - 1 }, () => 0), /^cases\.0\.sampleProcesses: sampleProcesses must have one process index per sample \(the same length as samplesMs\)/);
  refused([...Array.from({ length: n - 1 }, () => 0), -1], /^cases\.0\.sampleProcesses\.\d+: /);
  refused([...Array.from({ length: n - 1 }, () => 0), 1.5], /^cases\.0\.sampleProcesses\.\d+: /);
  refused([...Array.from({ length: n - 1 }, () => 0), 1000], /^cases\.0\.sampleProcesses\.\d+: /);
  refused('0', /^cases\.0\.sampleProcesses: /);
});
