/**
 * `npm run report`: the learner's optimisation report from real runs of the workflow fixture lab: Markdown with PNG
 * charts, a self-contained HTML page and report.json, with the learner's notes and prediction set against the
 * measurement. A run that failed its check gets no report, and the tool says why.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runLab } from '../src/run/run-lab.ts';
import { ReportRefusedError, reproduceCommands } from '../src/tools/learner-report.ts';
import { ensureNotes, NOTES_FILE, notesTemplate, parseNotes } from '../src/write/notes.ts';
import { judgePrediction, savePrediction } from '../src/write/prediction.ts';
import { driftOf, threatsToValidity } from '../src/tools/threats.ts';
import { writeLearnerReport } from '../src/tools/write-learner-report.ts';
import { genuineRun } from './support/genuine-run.ts';
import { tempDir } from './support/temp-dir.ts';

const TOY_ROOT = fileURLToPath(new URL('./fixtures/root/', import.meta.url));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// Two genuine runs of the workflow fixture for the whole file (a run costs seconds): the report compares them, and
// the threats and reproduce tests read the first one's results (as values; the report test writes into the folders).
let first: Awaited<ReturnType<typeof genuineRun>>;
let second: Awaited<ReturnType<typeof genuineRun>>;
before(async () => {
  first = await genuineRun();
  second = await genuineRun();
});
after(() => {
  for (const run of [first, second]) if (run) rmSync(run.root, { recursive: true, force: true });
});

test('notes: the template has a prompt per section; only what the learner wrote is read back', () => {
  const template = notesTemplate('sums', '2026-12-02T10:00:00.000Z');
  assert.match(template, /^## Bottleneck\n\n<!-- Where does the time go/m);
  assert.deepEqual(Object.values(parseNotes(template)), [null, null, null, null, null]);
  const filled = template.replace('## Hypothesis\n', '## Hypothesis\nSplitting in two halves should give 1.8x.\n');
  const notes = parseNotes(filled);
  assert.equal(notes.hypothesis, 'Splitting in two halves should give 1.8x.');
  assert.equal(notes.bottleneck, null);
});

test('notes.md is written once and never overwritten', (t) => {
  const dir = tempDir(t, 'harness-notes-');
  assert.equal(ensureNotes(dir, 'sums', 'now').created, true);
  writeFileSync(path.join(dir, NOTES_FILE), 'my words');
  assert.equal(ensureNotes(dir, 'sums', 'now').created, false);
  assert.equal(readFileSync(path.join(dir, NOTES_FILE), 'utf8'), 'my words');
});

test('judgePrediction: inside the interval, optimistic above it, pessimistic below it', () => {
  const measured = { speedup: 1.6, ci95: [1.5, 1.7] as [number, number] };
  const at = (speedup: number) => judgePrediction({ speedup, why: '', recordedAt: '2026-01-01T00:00:00.000Z' }, measured);
  assert.deepEqual(at(1.6), { verdict: 'inside the interval', relativeError: 0 });
  assert.equal(at(2).verdict, 'optimistic');
  assert.ok(Math.abs(at(2).relativeError - 0.25) < 1e-12); // (2 - 1.6) / 1.6
  assert.equal(at(1.2).verdict, 'pessimistic');
});

test('threats: drift is the second half against the first; a quick, dirty, unscheduled run says so', () => {
  // Reference: medians of [1, 1, 1] and [1.1, 1.1, 1.1] -> 1.1 / 1 - 1 = +10%.
  assert.ok(Math.abs((driftOf([1, 1, 1, 1.1, 1.1, 1.1]) ?? 0) - 0.1) < 1e-12);
  assert.equal(driftOf([1, 2, 3]), null);
  const { results } = first;
  const ids = threatsToValidity({ ...results, quick: true, environment: { ...results.environment, git: { commit: 'abc', dirty: true }, slurm: {} } }).map((threat) => threat.id);
  for (const id of ['smt', 'shared-node', 'quick-run', 'uncommitted-code'] as const) assert.ok(ids.includes(id), id);
  const quota = threatsToValidity({ ...results, cpus: { ...results.cpus, quota: 0.5 } });
  assert.match(quota.find((threat) => threat.id === 'cgroup-quota')?.text ?? '', /^the cgroup CPU quota allows 0\.500 CPUs but \d+ were visible/);
});

test('reproduceCommands: the commit, a locked install and the command with its seed', () => {
  const { results } = first;
  const commands = reproduceCommands({ ...results, command: 'npm run lab -- sums --quick', seed: 7, environment: { ...results.environment, git: { commit: 'abc123', dirty: false } } });
  assert.deepEqual(commands, ['git checkout abc123', 'npm ci', 'npm run lab -- sums --quick --seed 7']);
});

test('a report from two real runs: every section, the notes, the prediction, charts as PNG and in the HTML', async (t) => {
  writeFileSync(
    path.join(second.runDir, NOTES_FILE),
    notesTemplate('sums', second.results.startedAt)
      .replace('## Bottleneck\n', '## Bottleneck\nThe single loop uses one core.\n')
      .replace('## Interpretation\n', '## Interpretation\nThe split case pays for the second call.\n'),
  );
  savePrediction(second.runDir, { speedup: 1.8, why: 'two halves on two workers', recordedAt: '2026-01-01T00:00:00.000Z' });
  const outRoot = tempDir(t, 'harness-report-');
  const written = await writeLearnerReport([first.runDir, second.runDir], outRoot);

  assert.equal(path.dirname(path.dirname(written.dir)), outRoot);
  assert.equal(path.basename(path.dirname(written.dir)), 'reports');
  const md = readFileSync(written.markdown, 'utf8');
  for (const heading of [
    '### The bottleneck and the evidence for it',
    '### The baseline, in absolute times',
    '### Hypothesis and prediction',
    '### What changed',
    '### Correctness evidence',
    '### Speedups with 95% intervals',
    '### Scaling: Amdahl fit and Karp-Flatt serial fraction',
    '### Interpretation',
    '### Next steps',
    '### Threats to validity',
    '### Environment',
    '### Reproduce',
  ]) {
    assert.equal(md.split(`\n${heading}\n`).length - 1, 2, heading); // once per run
  }
  assert.ok(md.includes('> The single loop uses one core.'));
  assert.ok(md.includes('> The split case pays for the second call.'));
  assert.match(md, /\| 1\.80x \| \d+(\.\d+)?x \\\[\d+(\.\d+)?, \d+(\.\d+)?\\\] \| (inside the interval|optimistic|pessimistic) \| [+-]?\d+% \|/);
  assert.match(md, /Against the solution run of .* each variant by the ratio of its speedups over the baseline in the two runs/);
  assert.match(md, /!\[Speedup vs workers\]\(charts\/run2-speedup-vs-workers\.png\)/);
  // The fixture root is a temp folder outside git, so the commit is unknown and the report says so.
  assert.match(md, /```sh\n# commit unknown: the run was not made in a git checkout\nnpm ci\nnpm run lab -- sums --impl solution --quick --seed 20261202\n```/);

  // Every chart the Markdown links exists as a PNG.
  for (const [, file] of md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) {
    const bytes = readFileSync(path.join(written.dir, decodeURI(file!)));
    assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE, file);
  }
  assert.equal(readdirSync(path.join(written.dir, 'charts')).length, written.pngs.length);

  const html = readFileSync(written.html, 'utf8');
  assert.match(html, /^<!doctype html>/);
  assert.ok(html.includes('<img alt="Speedup vs workers; the data are in the table below" src="data:image/png;base64,iVBORw0KGgo'));
  assert.ok(!/src="http|href="http/.test(html), 'self-contained: no external resources');
  assert.ok(html.includes('<pre class="learner">The single loop uses one core.</pre>'));

  const json = JSON.parse(readFileSync(written.json, 'utf8'));
  assert.equal(json.reportVersion, 1);
  assert.equal(json.runs.length, 2);
  assert.equal(json.runs[1].prediction.speedup, 1.8);
  assert.equal(json.runs[1].prediction.recordedBeforeRun, true);
  assert.equal(json.runs[1].notes.bottleneck, 'The single loop uses one core.');
  assert.equal(json.comparisons.length, 1);
  assert.equal(json.runs[0].samplesMs, undefined);

  // The first run had no notes.md: the template was written for the learner; the second run's was kept.
  assert.deepEqual(written.notesCreated, [path.join(first.runDir, NOTES_FILE)]);
  assert.ok(readFileSync(path.join(second.runDir, NOTES_FILE), 'utf8').includes('The single loop uses one core.'));

  // A second report goes to a new folder; the first stays as it was.
  const again = await writeLearnerReport([second.runDir], outRoot);
  assert.notEqual(again.dir, written.dir);
  assert.ok(existsSync(written.markdown));
});

test('no report from a run that failed its check: the error names the cases and the fix', async (t) => {
  const outDir = tempDir(t, 'harness-refused-');
  const failed = await runLab({ lab: 'toy', impl: 'solution', quick: true, outDir, rootDir: TOY_ROOT, silent: true, sampling: { warmupSamples: 1, rounds: 2, samplesPerRound: 3 } });
  const reportRoot = tempDir(t, 'harness-refused-out-');
  await assert.rejects(writeLearnerReport([failed.runDir!], reportRoot), (error: unknown) => {
    assert.ok(error instanceof ReportRefusedError);
    assert.match(error.message, /^no report from .*toy\/[^/]+:\n {2}- correctness: wrong did not pass its check \(wrong output on check input #0/);
    assert.match(error.message, /\n {2}- correctness: todo did not pass its check \(not implemented: the toy in exercises\/toy\/impl\.ts\)\n/);
    assert.match(error.message, /Fix the code until the check passes \(npm run lab -- <lab> --watch\), run the lab again and report that run\.$/);
    return true;
  });
  assert.deepEqual(readdirSync(reportRoot), [], 'nothing written');
  assert.equal(existsSync(path.join(failed.runDir!, NOTES_FILE)), false);
});
