/**
 * The results viewer's pure parts for the course runs (site/src/lib/viewer-runs.ts, run-comparison.ts), and the
 * browser-safety of the core's comparison they use (labs/core/src/compare-runs.ts: no node: module anywhere in
 * its imports, or the viewer's bundle could not load it), and that the viewer's page script reaches no harness module
 * (what it shares with the harness, such as machineText, is the core's). The runs are the harness's committed fixture, its numbers
 * recomputed from its samples (the fixture is older than the current statistics), then changed case by case.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkResults, machineText, parseResultsJson, recompute, type Results } from '@parallel-course/core';
import { compareWithReference, comparisonRows, likeWithLike, sideBySideRows, unlikeWork, verdictCounts } from '../src/lib/run-comparison.ts';
import { recorded } from '../src/lib/results-view.ts';
import { otherRunFile } from '../src/lib/results-file.ts';
import { courseRunLabel, placeLearnerRun, viewerRunFiles, withoutSamples, yourRunLabel } from '../src/lib/viewer-runs.ts';

const FIXTURE = fileURLToPath(new URL('../../labs/harness/test/fixtures/results-event-loop.json', import.meta.url));
const COMPARE_RUNS = fileURLToPath(new URL('../../labs/core/src/compare-runs.ts', import.meta.url));
const VIEWER = fileURLToPath(new URL('../src/scripts/results-viewer.ts', import.meta.url));

function fixture(): Results {
  const raw = parseResultsJson(readFileSync(FIXTURE, 'utf8'), 'results-event-loop.json');
  return { ...raw, ...recompute(raw) };
}

/** `run` with case `index`'s samples times `factor`, every number recomputed (a run the validator accepts). */
function scaled(run: Results, index: number, factor: number): Results {
  const copy = structuredClone(run);
  copy.cases[index]!.samplesMs = copy.cases[index]!.samplesMs.map((x) => x * factor);
  return { ...copy, ...recompute(copy) };
}

/**
 * The modules `entry` reaches through its value imports (static and dynamic; `import type` is erased before the code
 * runs, so it does not count), following relative paths and the core's public entry; `bad(spec, file)` fails on one.
 */
function reachable(entry: string, bad: (spec: string, file: string) => string | null): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specs = [
      ...[...text.matchAll(/^(import|export)\s+(type\s)?[^;]*?from\s+'([^']+)'/gm)].filter((m) => m[2] === undefined).map((m) => m[3]!),
      ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm), ...text.matchAll(/(?<!typeof )\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
    ];
    for (const spec of specs) {
      const problem = bad(spec, file);
      assert.equal(problem, null, problem ?? '');
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      // The core is a workspace package: follow its public entry too.
      if (spec === '@parallel-course/core') visit(fileURLToPath(new URL('../../labs/core/src/index.ts', import.meta.url)));
    }
  };
  visit(entry);
  return seen;
}

const nodeModule = (spec: string, file: string): string | null =>
  spec.startsWith('node:') || ['fs', 'os', 'path', 'child_process'].includes(spec) ? `${file} imports ${spec}` : null;

test('the core comparison imports no node: module, directly or through its imports', () => {
  const seen = reachable(COMPARE_RUNS, nodeModule);
  assert.ok(seen.size > 3, `followed only ${seen.size} files`);
});

test('the results viewer (the page script and what it loads later) imports no harness module and no node: module', () => {
  const harness = (spec: string, file: string): string | null =>
    nodeModule(spec, file) ?? (spec.startsWith('@parallel-course/harness') || /\/labs\/harness\//.test(resolve(dirname(file), spec)) ? `${file} imports ${spec}: the viewer runs in the browser; move what it needs into the core` : null);
  const seen = reachable(VIEWER, harness);
  assert.ok([...seen].some((f) => f.endsWith('lib/viewer-runs.ts')) && [...seen].some((f) => f.endsWith('lib/run-comparison.ts')), 'the viewer\'s modules were followed, the lazy ones too');
  // The reader fails on what it must: a harness import, a relative path into the harness, a node: module.
  assert.notEqual(harness('@parallel-course/harness/site.ts', VIEWER), null);
  assert.notEqual(harness('../../../labs/harness/src/analyse/measured.ts', VIEWER), null);
  assert.notEqual(harness('node:fs', VIEWER), null);
});

test('a case with twice the time is "slower" at ratio 0.500x; unchanged cases are within noise at 1.00x, the baseline is the machine', () => {
  const reference = fixture();
  const i = reference.cases.findIndex((c) => c.variant !== reference.speedups[0]!.baseline);
  const mine = scaled(reference, i, 2);
  const outcome = compareWithReference(reference, mine);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
  const rows = comparisonRows(reference, mine, outcome.comparison);
  assert.equal(rows.length, reference.cases.length);
  const slow = rows[i]!;
  assert.equal(slow.verdict, 'slower');
  assert.equal(slow.verdictWords, 'slower');
  assert.equal(slow.ratio, '0.500x');
  // Medians with their intervals, each in its own unit: the learner's median is twice the reference's.
  const number = (text: string): number => Number(text.split(' ')[0]);
  assert.match(slow.reference, /^[\d.]+ (ns|µs|ms|s) \[[\d.]+, [\d.]+\]$/);
  assert.ok(Math.abs(number(slow.yours) / number(slow.reference) - 2) < 0.01, `${slow.yours} against ${slow.reference}`);
  const baselines = rows.filter((row) => row.verdict === 'machine');
  assert.ok(baselines.length >= 1 && baselines.every((row) => row.ratio === '1.00x'), 'the baseline rows show the machine, unchanged');
  for (const [j, row] of rows.entries()) if (j !== i && row.verdict !== 'machine') assert.deepEqual([row.verdict, row.ratio], ['within-noise', '1.00x'], row.case);
  assert.equal(verdictCounts(rows), `1 slower, ${rows.length - 1 - baselines.length} within noise`);
  // The fixture's failed case is named as the reference's and the learner's, not "earlier" and "current".
  assert.ok(outcome.comparison.caveats.some((c) => /^the reference run: broken did not pass its check/.test(c)), outcome.comparison.caveats.join('\n'));
  assert.ok(outcome.comparison.caveats.some((c) => /^your run: broken did not pass its check/.test(c)));
});

test('cases only one run has are listed with "-" on the other side', () => {
  const reference = fixture();
  const mine = structuredClone(reference);
  const dropped = mine.cases.pop()!;
  const outcome = compareWithReference(reference, { ...mine, ...recompute(mine) });
  assert.ok(outcome.ok);
  const rows = comparisonRows(reference, mine, outcome.comparison);
  const last = rows.at(-1)!;
  assert.equal(last.verdict, 'only-in-earlier-run');
  assert.equal(last.verdictWords, 'only in the reference');
  assert.deepEqual([last.yours, last.ratio, last.ratioCi], ['-', '-', '-']);
  assert.match(last.case, new RegExp(`^${dropped.variant}`));
});

test('a run whose numbers do not recompute is refused with the harness\'s reason, naming whose run it is', () => {
  const reference = fixture();
  const edited = structuredClone(reference);
  edited.speedups[0]!.speedup = 99;
  const outcome = compareWithReference(reference, edited);
  assert.equal(outcome.ok, false);
  assert.match(outcome.ok ? '' : outcome.reason, /^your run \(.*\) cannot be compared: its numbers do not recompute from its samples .*speedups\[0\]\.speedup is 99/);
  const refused = compareWithReference(edited, reference);
  assert.match(refused.ok ? '' : refused.reason, /^the reference run \(/);
  // The viewer passes the findings it got when the file was opened: the learner's run is not recomputed again, and the
  // findings decide (the course run is still checked here).
  const problems = checkResults(edited);
  assert.equal(compareWithReference(reference, edited, problems).ok, false);
  assert.equal(compareWithReference(reference, edited, []).ok, true, 'findings of [] are taken as given, not recomputed');
  assert.equal(compareWithReference(edited, reference, []).ok, false, 'the course run is checked whatever the learner\'s findings');
});

test('course runs are labelled with their kind and machine; a lab that fell back says so', () => {
  const results = fixture();
  const machine = machineText(results);
  assert.equal(machine, `${results.environment.cpuModel}, P = ${results.cpus.p}, Node ${results.environment.node}, ${results.startedAt.slice(0, 10)}`);
  assert.equal(courseRunLabel({ source: 'reference', fellBack: false, results }), `reference run: ${machine}${results.quick ? ' (a --quick run)' : ''}`);
  assert.match(courseRunLabel({ source: 'course-runs', fellBack: false, results }), /^instructor's run: /);
  assert.match(courseRunLabel({ source: 'reference', fellBack: true, results }), /^reference run: .*\(this course's runs have none of this lab, so this is the reference's\)$/);
  assert.match(yourRunLabel(results, 'mine.json'), /^your run \(mine\.json\): /);
});

test('a learner\'s run goes to its lab: switched with a note, or alone when the course has no run of it', () => {
  assert.deepEqual(placeLearnerRun(['event-loop', 'native-kernel'], 'event-loop', 'event-loop'), { lab: 'event-loop', hasReference: true, note: null });
  assert.deepEqual(placeLearnerRun(['event-loop', 'native-kernel'], 'event-loop', 'native-kernel'), {
    lab: 'native-kernel',
    hasReference: true,
    note: 'Your file is a run of the native-kernel lab, not event-loop: switched to the native-kernel lab\'s run.',
  });
  assert.deepEqual(placeLearnerRun(['event-loop'], 'event-loop', 'sums'), {
    lab: 'sums',
    hasReference: false,
    note: 'Your file is a run of the sums lab, and this course has no run of it to compare with: it is shown alone.',
  });
  // A site built without any course run behaves as the viewer always did: the file, no note.
  assert.deepEqual(placeLearnerRun([], null, 'sums'), { lab: 'sums', hasReference: false, note: null });
});

test('the viewer\'s run files: a view without raw samples (same summaries), and the whole run for comparisons', () => {
  assert.deepEqual(viewerRunFiles('event-loop'), { view: 'event-loop.view.json', full: 'event-loop.json' });
  assert.throws(() => viewerRunFiles('../x'), /not a lab name/);
  const results = fixture();
  const view = withoutSamples(results);
  assert.ok(view.cases.every((c) => c.samplesMs.length === 0 && c.sampleRounds.length === 0 && Object.keys(c.observations).length === 0));
  assert.deepEqual(view.cases.map((c) => c.summary), results.cases.map((c) => c.summary), 'every summary the tables show is kept');
  assert.deepEqual(view.speedups, results.speedups);
  assert.ok(results.cases.some((c) => c.samplesMs.length > 0), 'the original keeps its samples');
  assert.ok(JSON.stringify(view).length < JSON.stringify(results).length, 'the view is smaller');
});

test('a --quick run against a full one is compared on the cases both measured, with the reason first', () => {
  const full = { ...fixture(), quick: false };
  const quickCopy = structuredClone(full);
  quickCopy.quick = true;
  const baseline = quickCopy.speedups[0]!.baseline;
  const dropped = quickCopy.cases.findIndex((c) => c.variant !== baseline);
  quickCopy.cases.splice(dropped, 1);
  const quick = { ...quickCopy, ...recompute(quickCopy) };
  const outcome = compareWithReference(full, quick);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
  if (!outcome.ok) return;
  const rows = comparisonRows(full, quick, outcome.comparison);
  assert.ok(rows.some((r) => r.verdict === 'only-in-earlier-run'), 'the full run has a case the quick one lacks');
  const alike = likeWithLike(full, quick, rows);
  assert.equal(alike.rows.length, full.cases.length - 1);
  assert.ok(alike.rows.every((r) => r.verdict !== 'only-in-earlier-run' && r.verdict !== 'only-in-this-run'));
  assert.match(alike.reason ?? '', /^Your run is a --quick run and the course's run a full one: .* only the \d+ cases both runs measured are compared \(1 case only one of them has is left out\)\./);
  assert.doesNotMatch(verdictCounts(alike.rows), /only in/);
  // The learner's own quick run can drop --quick: the advice names the real command.
  assert.match(alike.reason ?? '', /For a full comparison, run the lab without --quick: npm run lab -- event-loop\.$/);
  // The course's run is the quick one: nothing the learner runs changes it, so no advice.
  assert.doesNotMatch(likeWithLike(quick, full, rows).reason ?? '', /without --quick/);
  const same = likeWithLike(full, full, rows);
  assert.equal(same.reason, null, 'runs alike: nothing left out');
  assert.equal(same.rows.length, rows.length);
});

/** The reference run as the in-page lab writes a file: runtime browser, no CPU model, hostname, V8 or libuv. */
function inPage(run: Results): Results {
  const copy = structuredClone(run);
  copy.runtime = 'browser';
  copy.quick = true;
  copy.title = 'Event loop, in the browser: inline, chunked and a Web Worker pool';
  copy.environment = { ...copy.environment, node: 'none: in-page lab in Chrome 156', v8: '', uv: '', arch: '', osRelease: '', cpuModel: '', hostname: '' };
  return copy;
}

test('an in-page event-loop file against the Node reference gets no verdict: side by side, with the reason (issue 44)', () => {
  const node = fixture();
  const page = inPage(node);
  const why = unlikeWork(node, page) ?? '';
  assert.match(why, /^your file is an in-page run \(the episode's lab, in a browser\) \("Event loop, in the browser: .*"\) and the course's run is a Node run \(npm run lab\)/);
  assert.match(why, /a ratio of their times would say nothing about your code/);
  assert.doesNotMatch(why, /--quick/, 'no advice that cannot help');
  // Side by side: every case of either run, a median and the work of a sample each, no ratio and no verdict.
  const rows = sideBySideRows(node, page);
  assert.equal(rows.length, node.cases.length);
  assert.ok(rows.every((r) => r.length === 3 && / for \d+ requests$/.test(r[1]!)));
  assert.equal(unlikeWork(node, node), null);
  assert.match(unlikeWork(node, { ...node, lab: 'native-kernel' }) ?? '', /different work/);
});

test('a case whose work per sample differs (another burst) gets no verdict, and the count says so', () => {
  const node = fixture();
  const other = structuredClone(node);
  const i = other.cases.findIndex((c) => c.variant !== node.baseline);
  other.cases[i]!.workPerSample = { ...other.cases[i]!.workPerSample, amount: other.cases[i]!.workPerSample.amount + 8 };
  const outcome = compareWithReference(node, other);
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const rows = comparisonRows(node, other, outcome.comparison);
  const row = rows.find((r) => r.verdict === 'different-work');
  assert.ok(row, 'the case with another burst has no verdict');
  assert.equal(row.ratio, '-');
  assert.match(row.verdictWords, /^no verdict: \d+ requests against \d+ requests per sample$/);
  assert.match(verdictCounts(rows), /1 with different work per sample \(no verdict\)/);
});

test('run details never show blanks: "not recorded"', () => {
  assert.equal(recorded(''), 'not recorded');
  assert.equal(recorded('  '), 'not recorded');
  assert.equal(recorded(null), 'not recorded');
  assert.equal(recorded('AMD EPYC'), 'AMD EPYC');
  const node = fixture();
  const outcome = compareWithReference(node, inPage(node));
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const machines = outcome.comparison.caveats.find((c) => c.startsWith('the runs were on different machines')) ?? '';
  assert.match(machines, / vs machine not recorded\)/);
  assert.doesNotMatch(machines, /vs , /);
});

test('picking analysis/values.json or prediction.json says what the file is and to pick results.json', () => {
  const dir = fileURLToPath(new URL('../../reference/event-loop/', import.meta.url));
  const run = readdirSync(dir)[0]!;
  const values = readFileSync(resolve(dir, run, 'analysis', 'values.json'), 'utf8');
  const said = otherRunFile(values, 'values.json') ?? '';
  assert.match(said, /^this is the lab's analysis values \(analysis\/values\.json/);
  assert.match(said, /pick results\.json in the run folder instead: results\/<lab>\/<time>\/results\.json, one folder up from values\.json$/);
  assert.doesNotMatch(said, /older harness|rerun/i);
  const prediction = JSON.stringify({ speedup: 1.8, why: '2 CPUs', recordedAt: '2026-01-01T00:00:00.000Z' });
  assert.match(otherRunFile(prediction, 'prediction.json') ?? '', /^this is your prediction \(prediction\.json/);
  assert.equal(otherRunFile(readFileSync(FIXTURE, 'utf8'), 'results.json'), null, 'a results file is left to the schema');
  assert.equal(otherRunFile('not json', 'x.json'), null);
});
