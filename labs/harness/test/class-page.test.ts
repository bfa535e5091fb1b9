/**
 * `npm run class`: one page from a mix of valid and invalid submissions; bad files never stop the rest, and every
 * invalid one is listed with its reason.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { formatTimeWithInterval, parseResultsJson, type Results } from '@parallel-course/core';
import { main as classMain } from '../src/tools/class-cli.ts';
import { classScalingChart, loadSubmissions, renderClassPage, submissionName } from '../src/tools/class-page.ts';
import { genuineRun } from './support/genuine-run.ts';
import { fileTempDirs } from './support/temp-dir.ts';

/** Temp folders of this file (class folders, genuine runs, pages), removed at the end. */
const temps = fileTempDirs();
const tempDir = temps.make;

async function classFolder(): Promise<string> {
  const dir = tempDir('harness-class-');
  const alice = await genuineRun();
  const bob = await genuineRun();
  temps.keep(alice.root, bob.root);
  // Two learners on "different machines" (the environment is description, not input to any recomputed number).
  const bobResults: Results = { ...bob.results, environment: { ...bob.results.environment, hostname: 'hpc-node-12', cpuModel: 'Intel Xeon Gold 6230' } };
  mkdirSync(path.join(dir, 'alice'));
  writeFileSync(path.join(dir, 'alice', 'results.json'), JSON.stringify(alice.results));
  writeFileSync(path.join(dir, 'bob.json'), JSON.stringify(bobResults));
  const tampered = structuredClone(alice.results);
  tampered.speedups[2]!.speedup = 1.99;
  writeFileSync(path.join(dir, 'carol.json'), JSON.stringify(tampered));
  writeFileSync(path.join(dir, 'dave.json'), '{"schemaVersion": 1, "lab": ');
  const failed = structuredClone(alice.results);
  failed.correctness[1] = { ...failed.correctness[1]!, passed: false, reason: 'wrong output on check input #0 at [0]: expected 10, got 9' };
  writeFileSync(path.join(dir, 'erin.json'), JSON.stringify(failed));
  writeFileSync(path.join(dir, 'notes.txt'), 'not a submission');
  return dir;
}

test('submissionName: the path under the folder, without results.json', () => {
  assert.equal(submissionName('/class', '/class/alice/results.json'), 'alice');
  assert.equal(submissionName('/class', '/class/group1/bob.json'), 'group1/bob');
});

test('the class page: valid submissions in a table and a chart, every invalid one with its reason', async () => {
  const dir = await classFolder();
  const subs = loadSubmissions(dir);
  assert.deepEqual(subs.map((s) => s.name), ['alice', 'bob', 'carol', 'dave', 'erin']);
  assert.deepEqual(subs.filter((s) => s.results !== null).map((s) => s.name), ['alice', 'bob']);
  assert.match(subs.find((s) => s.name === 'carol')!.problems[0]!, /^speedups\[2\]\.speedup is 1\.990 but the samples give [\d.]+$/);
  assert.match(subs.find((s) => s.name === 'dave')!.problems[0]!, /^schema: not JSON: /);
  assert.equal(subs.find((s) => s.name === 'erin')!.problems[0], 'correctness: mine did not pass its check (wrong output on check input #0 at [0]: expected 10, got 9)');

  const chart = classScalingChart('sums', subs.filter((s) => s.results !== null)) as { data: { datasets: Array<{ label: string; data: unknown[] }> } };
  assert.deepEqual(
    chart.data.datasets.map((d) => d.label.split(' (')[0]),
    ['alice', 'bob', 'ideal'],
  );
  assert.equal(chart.data.datasets[0]!.data.length, 2); // split at 1 and 2 workers

  const html = renderClassPage(dir, subs, new Date('2026-12-02T10:00:00Z'));
  assert.ok(html.includes('<h2>sums (2 valid submissions)</h2>'));
  assert.match(html, /<td>bob<\/td><td>Intel Xeon Gold 6230 · \d+ CPUs<\/td>/);
  assert.ok(html.includes('<h2>Invalid submissions (3)</h2>'));
  for (const name of ['carol', 'dave', 'erin']) assert.ok(html.includes(`<h3>${name}</h3>`), name);
  assert.ok(html.includes('<li>correctness: mine did not pass its check (wrong output on check input #0 at [0]: expected 10, got 9)</li>'));
  assert.ok(!html.includes('notes.txt'));
});

test('npm run class writes the page into a new folder and names the invalid submissions', async () => {
  const dir = await classFolder();
  const out = tempDir('harness-class-out-');
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    lines.push(chunk);
    return true;
  }) as typeof process.stdout.write;
  let code: number;
  try {
    code = await classMain([dir, '--out', out]);
  } finally {
    process.stdout.write = write;
  }
  assert.equal(code, 0);
  const text = lines.join('');
  assert.match(text, /^2 valid, 3 invalid submissions\n/);
  assert.match(text, /^ {2}invalid: dave: schema: not JSON: /m);
  const [run] = readdirSync(path.join(out, 'class'));
  const page = readFileSync(path.join(out, 'class', run!, 'class.html'), 'utf8');
  assert.ok(page.includes('Class results'));
  await assert.rejects(classMain([path.join(dir, 'nope')]), /nope is not a folder: give the folder that holds the learners' results\.json files/);
});

test("the class page's baseline median is the case the headline's speedup is over (its baselineParams), not the first case whose params the headline's share", () => {
  // The event-loop fixture: the headline pool {workers: 2} over inline {} (40.9955 ms). A decoy inline case first,
  // {workers: 2} (5 ms): the headline's params hold all of its params, but the speedup is not over it.
  const results = parseResultsJson(readFileSync(new URL('./fixtures/results-event-loop.json', import.meta.url), 'utf8'), 'results-event-loop.json');
  const inline = results.cases.find((c) => c.variant === 'inline')!;
  assert.deepEqual([results.headline?.baseline, results.headline?.baselineParams], ['inline', {}]);
  const decoy = { ...inline, params: { workers: 2 }, summary: { ...inline.summary, median: 5, ci95: [4.9, 5.1] as [number, number] } };
  const submission = { name: 'ada', file: 'ada.json', results: { ...results, cases: [decoy, ...results.cases] }, problems: [], refused: null };
  const page = renderClassPage('/class', [submission]);
  assert.ok(page.includes(formatTimeWithInterval(inline.summary.median, inline.summary.ci95)), 'the inline {} case median is shown');
  assert.ok(!page.includes('5.00 ms [4.90, 5.10]'), "the decoy's median is not");
});
