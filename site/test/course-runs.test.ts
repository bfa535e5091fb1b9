/**
 * Which runs the site's numbers come from (src/lib/course-runs.ts, issue 20): the reference by default; with
 * COURSE_RUNS the newest valid run of each lab there, a lab missing there falling back to the reference with its
 * reason; a clear error for a folder that does not exist or holds no valid run; and <Measured> falling back, marked,
 * for a selector an instructor's run cannot resolve.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkResults, plausibilityFlags, recompute, type Results } from '@parallel-course/core';
import { findRunFolders } from '@parallel-course/harness/site.ts';
import { tempDir } from '../../labs/harness/test/support/temp-dir.ts';
import { CourseRunsError, loadCourseRuns } from '../src/lib/course-runs.ts';
import { MeasuredBuildError, renderChart, renderMeasured, renderTable } from '../src/lib/measured-render.ts';
import { OTHER_CPU, otherMachineRuns } from './support/other-machine.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('default: the reference run of every lab', () => {
  const runs = loadCourseRuns({ rootDir: ROOT, courseRuns: '' });
  assert.equal(runs.courseRunsDir, null);
  assert.deepEqual([...runs.labs.keys()].sort(), ['event-loop', 'gpu-batching', 'native-kernel', 'task-granularity', 'task-graph']);
  for (const run of runs.labs.values()) {
    assert.equal(run.source, 'reference');
    assert.equal(run.fellBack, false);
    assert.ok(run.dir.startsWith(path.join(ROOT, 'reference')));
    assert.notEqual(run.values, null, `${run.lab} has analysis/values.json`);
  }
});

test("COURSE_RUNS: the instructor's runs where there are some, the reference (marked, with the reason) elsewhere", (t) => {
  const dir = tempDir(t, 'course-runs-');
  const results = otherMachineRuns(dir, ['event-loop']);
  const runs = loadCourseRuns({ rootDir: ROOT, courseRuns: 'results', cwd: dir });
  assert.equal(runs.courseRunsDir, results);
  const eventLoop = runs.labs.get('event-loop')!;
  assert.equal(eventLoop.source, 'course-runs');
  assert.equal(eventLoop.results.environment.cpuModel, OTHER_CPU);
  assert.equal(eventLoop.fellBack, false);
  const granularity = runs.labs.get('task-granularity')!;
  assert.equal(granularity.source, 'reference');
  assert.equal(granularity.fellBack, true);
  assert.match(granularity.fellBackReason!, /no run of task-granularity in results/);

  const machine = renderMeasured(runs, { run: 'event-loop', at: 'machine' }, 'test.mdx');
  assert.match(machine.text, /^Imaginary Test CPU 9000/);
  assert.match(machine.title, /instructor's run/);
  const fallback = renderMeasured(runs, { run: 'task-granularity', at: 'headline' }, 'test.mdx');
  assert.equal(fallback.fellBack, true);
  assert.match(fallback.title, /Reference value: no run of task-granularity/);
});

test('the reference is checked once per process, and again when its files change (a rewritten run is not served stale)', (t) => {
  // A root of its own: one lab and the harness (links to the real ones: the lab's analysis checks COURSE_RUNS' values
  // in a child) and a copy of that lab's reference run, which the test may edit.
  const root = tempDir(t, 'course-runs-root-');
  mkdirSync(path.join(root, 'labs', 'event-loop'), { recursive: true });
  symlinkSync(path.join(ROOT, 'labs', 'event-loop', 'src'), path.join(root, 'labs', 'event-loop', 'src'));
  symlinkSync(path.join(ROOT, 'labs', 'harness'), path.join(root, 'labs', 'harness'));
  const from = findRunFolders(path.join(ROOT, 'reference'), 'event-loop').at(-1)!;
  const runDir = path.join(root, 'reference', 'event-loop', path.basename(from));
  cpSync(from, runDir, { recursive: true });
  const courseRuns = (name: string): string => {
    const dir = tempDir(t, `course-runs-${name}-`);
    return otherMachineRuns(dir, ['event-loop']);
  };

  const first = loadCourseRuns({ rootDir: root, courseRuns: courseRuns('a'), cwd: '/' });
  assert.equal(first.reference.get('event-loop')?.dir, runDir);
  // The same files, another COURSE_RUNS: the reference's check is the one already made (the same object).
  const second = loadCourseRuns({ rootDir: root, courseRuns: courseRuns('b'), cwd: '/' });
  assert.equal(second.reference.get('event-loop')?.results, first.reference.get('event-loop')?.results);

  // Its results.json rewritten with a median that no longer recomputes: the next load checks it again and refuses it.
  const file = path.join(runDir, 'results.json');
  const results = JSON.parse(readFileSync(file, 'utf8'));
  results.cases[0].summary.median *= 3;
  writeFileSync(file, JSON.stringify(results));
  const third = loadCourseRuns({ rootDir: root, courseRuns: courseRuns('c'), cwd: '/' });
  assert.equal(third.reference.has('event-loop'), false, 'the edited reference run is not valid any more');
  assert.equal(third.labs.get('event-loop')?.source, 'course-runs');
});

test("an instructor's values.json is recomputed from the run's results: a missing value is filled in, an edited one refuses the run (issue 25)", (t) => {
  const dir = tempDir(t, 'course-runs-');
  otherMachineRuns(dir, ['event-loop']);
  const runDir = findRunFolders(path.join(dir, 'results'), 'event-loop').at(-1)!;
  const valuesFile = path.join(runDir, 'analysis', 'values.json');
  const original = JSON.parse(readFileSync(valuesFile, 'utf8'));
  const [key] = Object.keys(original.values);

  // Written by an older analysis that lacked one value: the run is used, with the value this analysis computes.
  const older = structuredClone(original);
  delete older.values[key!];
  writeFileSync(valuesFile, JSON.stringify(older));
  let runs = loadCourseRuns({ rootDir: ROOT, courseRuns: path.join(dir, 'results'), cwd: '/' });
  let r = renderMeasured(runs, { run: 'event-loop', at: 'value', name: key! }, 'episodes/x.mdx');
  assert.equal(r.fellBack, false);
  assert.equal(r.run.source, 'course-runs');
  assert.deepEqual(runs.labs.get('event-loop')!.values!.values[key!], original.values[key!]);
  assert.throws(
    () => renderMeasured(runs, { run: 'event-loop', at: 'value', name: 'noSuchValue' }, 'episodes/x.mdx'),
    (error: Error) => error instanceof MeasuredBuildError && /episodes\/x\.mdx: <Measured run="event-loop" at="value" name="noSuchValue" \/> resolves neither in/.test(error.message),
  );
  assert.throws(() => renderMeasured(runs, { run: 'no-such-lab', at: 'headline' }, 'episodes/x.mdx'), /run="no-such-lab" is not a lab; the labs are: event-loop, gpu-batching/);

  // A number planted in the file (it would render as measured): the run is refused, with the reason, never shown.
  // (another folder: loadCourseRuns caches a folder's runs for the build)
  const dir2 = tempDir(t, 'course-runs-');
  otherMachineRuns(dir2, ['event-loop', 'task-granularity']);
  const forged = structuredClone(original);
  forged.values[key!].value = 987654321;
  writeFileSync(path.join(findRunFolders(path.join(dir2, 'results'), 'event-loop').at(-1)!, 'analysis', 'values.json'), JSON.stringify(forged));
  runs = loadCourseRuns({ rootDir: ROOT, courseRuns: path.join(dir2, 'results'), cwd: '/' });
  const eventLoop = runs.labs.get('event-loop')!;
  assert.equal(eventLoop.source, 'reference');
  assert.equal(eventLoop.fellBack, true);
  assert.match(eventLoop.fellBackReason!, new RegExp(`values\\.json: .* contradicts this run's results \\(value "${key}" is 987654321`));
  assert.equal(runs.labs.get('task-granularity')!.source, 'course-runs');
  r = renderMeasured(runs, { run: 'event-loop', at: 'value', name: key! }, 'episodes/x.mdx');
  assert.notEqual(r.text, '987654321');
  assert.doesNotMatch(r.text, /987/);

});

test("an instructor's run that validates but holds a ratio no machine gives is not rendered; without values.json its values are computed (issue 25)", (t) => {
  const dir = tempDir(t, 'course-runs-');
  otherMachineRuns(dir, ['event-loop', 'task-granularity']);
  // event-loop: its 2-worker pool made 10,000 times faster and every number recomputed (a forged clock), no analysis.
  const forgedDir = findRunFolders(path.join(dir, 'results'), 'event-loop').at(-1)!;
  const file = path.join(forgedDir, 'results.json');
  const forged = JSON.parse(readFileSync(file, 'utf8')) as Results;
  for (const c of forged.cases) if (c.variant === 'pool' && c.workers === 2) c.samplesMs = c.samplesMs.map((x) => x / 10_000);
  Object.assign(forged, recompute(forged));
  assert.deepEqual(checkResults(forged), []);
  assert.ok(plausibilityFlags(forged).length > 0);
  writeFileSync(file, JSON.stringify(forged));
  rmSync(path.join(forgedDir, 'analysis'), { recursive: true });
  // task-granularity: a genuine run whose analysis folder was not copied.
  rmSync(path.join(findRunFolders(path.join(dir, 'results'), 'task-granularity').at(-1)!, 'analysis'), { recursive: true });

  const runs = loadCourseRuns({ rootDir: ROOT, courseRuns: path.join(dir, 'results'), cwd: '/' });
  const eventLoop = runs.labs.get('event-loop')!;
  assert.equal(eventLoop.source, 'reference');
  assert.match(eventLoop.fellBackReason!, /implausible, not a measurement: pool \(workers=2\): efficiency/);
  const granularity = runs.labs.get('task-granularity')!;
  assert.equal(granularity.source, 'course-runs');
  assert.ok(granularity.values !== null && Object.keys(granularity.values.values).length > 0, 'values computed from the results');
});

test('COURSE_RUNS naming a missing folder, or one without a valid run, is a clear error', (t) => {
  const dir = tempDir(t, 'course-runs-');
  assert.throws(
    () => loadCourseRuns({ rootDir: ROOT, courseRuns: 'nowhere', cwd: dir }),
    (error: Error) => error instanceof CourseRunsError && error.message.includes(`COURSE_RUNS=nowhere names ${path.join(dir, 'nowhere')}, which does not exist`),
  );
  const bad = path.join(dir, 'bad', 'event-loop', '2030-01-01T00-00-00-000Z');
  mkdirSync(bad, { recursive: true });
  writeFileSync(path.join(bad, 'results.json'), '{"schemaVersion": 2}');
  assert.throws(() => loadCourseRuns({ rootDir: ROOT, courseRuns: path.join(dir, 'bad') }), /holds no valid run of any lab[\s\S]*event-loop\/2030-01-01T00-00-00-000Z: schema: /);
});

test("SpeedupChart and MeasuredTable data: one variant's sweep, sorted, with its intervals; unknown ones fail the build with what exists", () => {
  const runs = loadCourseRuns({ rootDir: ROOT, courseRuns: '' });
  const chart = renderChart(runs, { run: 'event-loop', variant: 'pool', param: 'workers' }, 'x.mdx');
  assert.ok(chart.points.length >= 2);
  assert.deepEqual(chart.points.map((p) => p.x), [...chart.points.map((p) => p.x)].sort((a, b) => a - b));
  for (const p of chart.points) assert.ok(p.low <= p.speedup && p.speedup <= p.high);
  const speedups = runs.labs.get('event-loop')!.results.speedups.filter((s) => s.variant === 'pool');
  assert.deepEqual(chart.points.map((p) => p.speedup).sort(), speedups.map((s) => s.speedup).sort());
  // One point is not a curve; only a declared sweep is charted (issue 24).
  assert.throws(() => renderChart(runs, { run: 'event-loop', variant: 'pool', param: 'workers', where: `workers=${chart.points[0]!.x}` }, 'x.mdx'), /one point is not a curve/);
  assert.throws(() => renderChart(runs, { run: 'event-loop', variant: 'nope', param: 'workers' }, 'x.mdx'), /x\.mdx: <SpeedupChart run="event-loop" variant="nope" param="workers" \/>: the event-loop lab declares no sweep of "workers" for "nope"; its sweeps are: param="workers" for pool/);
  assert.equal(renderChart(runs, { run: 'gpu-batching', variant: 'batched', param: 'batch' }, 'x.mdx').axis, 'log2');

  const table = renderTable(runs, { run: 'event-loop', table: 'cases' }, 'x.mdx');
  assert.ok(table.rows.length > 1 && table.rows.every((row) => row.length === table.columns.length));
  assert.throws(() => renderTable(runs, { run: 'event-loop', table: 'nope' }, 'x.mdx'), /no table "nope" in the event-loop run's analysis\/values\.json .*it has: cases/);
});

test('COURSE_RUNS may also name one lab\'s folder or one run folder', (t) => {
  const dir = tempDir(t, 'course-runs-');
  otherMachineRuns(dir, ['event-loop']);
  const runDir = findRunFolders(path.join(dir, 'results'), 'event-loop').at(-1)!;
  for (const given of [runDir, path.dirname(runDir)]) {
    const runs = loadCourseRuns({ rootDir: ROOT, courseRuns: given });
    assert.equal(runs.labs.get('event-loop')!.source, 'course-runs', given);
    assert.equal(runs.labs.get('event-loop')!.dir, runDir);
    assert.equal(runs.labs.get('native-kernel')!.fellBack, true);
  }
});
