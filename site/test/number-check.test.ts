/**
 * The build check of issue 20: a measured number typed by hand into an episode (a number with a unit of time, rate
 * or size, or a speedup factor, outside code and outside <Measured>/<Given>) fails the build, naming the file, the
 * line and the text with the fix. Unit tests of the rule, then real builds of a small temporary episodes folder
 * (COURSE_EPISODES) with a planted "12.3 ms".
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../labs/harness/test/support/temp-dir.ts';
import { countSource } from '../scripts/count-numbers.ts';
import { findInText, modeFor } from '../src/lib/number-check.ts';
import { buildPlantedCourse } from './support/planted-build.ts';


test('the rule: numbers with units of time, rate and size, and speedup factors; not minutes, counts or products', () => {
  const hits = (text: string) => findInText(text).map((h) => h.text);
  assert.deepEqual(hits('took 12.3 ms, then 8 µs, 2 s and 30 seconds'), ['12.3 ms', '8 µs', '2 s', '30 seconds']);
  assert.deepEqual(hits('12 GB/s, 1,200 req/s, 500/s, 40 requests per second'), ['12 GB/s', '1,200 req/s', '500/s', '40 requests per second']);
  assert.deepEqual(hits('payloads of 64 MiB, a 64-MiB buffer, 512 bytes, 4 KB'), ['64 MiB', '64-MiB', '512 bytes', '4 KB']);
  assert.deepEqual(hits('1.8x faster, 2× more, 1.5 times, 3 times faster'), ['1.8x', '2×', '1.5 times', '3 times']);
  assert.deepEqual(hits('10 minutes, 2 hours, n = 256, 3 × workers, x86, 0x1F, 3 times a day, run it 5 times'), []);
});

test('percentages are measurements too, except the "95% interval" that names a kind of interval (issue 29)', () => {
  const hits = (text: string) => findInText(text).map((h) => h.text);
  assert.deepEqual(hits('a loop about 26% of peak, 2 % of a node, 55.9% of the samples'), ['26%', '2 %', '55.9%']);
  assert.deepEqual(hits('its 95% interval, a 95% bootstrap interval, 95% confidence intervals'), []);
});

test('in a page: code, inline code, imports, Measured and Given are exempt; the frontmatter and text in other components are not', () => {
  const source = [
    '---',
    'title: T',
    'description: 12 ms in the frontmatter',
    '---',
    '',
    "import Given from '@course-site/components/Given.astro';",
    '',
    'Plain 12.3 ms here, `5 ms` in code, <Given from="a datasheet">32 KiB</Given>, <Measured run="x" at="headline" />.',
    '',
    '```sh',
    'took 99 ms',
    '```',
    '',
    '| case | time |',
    '| --- | --- |',
    '| a | 7 ms |',
    '',
    '<Aside>',
    'Inside a component: 1.8x.',
    '</Aside>',
  ].join('\n');
  const found = countSource(source);
  assert.deepEqual(
    found.map((f) => [f.line, f.text]),
    [
      [3, '12 ms'],
      [8, '12.3 ms'],
      [16, '7 ms'],
      [19, '1.8x'],
    ],
  );
});

test('the mode: COURSE_NUMBER_CHECK wins; otherwise the configured mode', () => {
  const config = { mode: 'warn' as const };
  assert.equal(modeFor(config, {}), 'warn');
  assert.equal(modeFor(config, { COURSE_NUMBER_CHECK: 'strict' }), 'strict');
  assert.equal(modeFor({ mode: 'strict' }, { COURSE_NUMBER_CHECK: 'off' }), 'off');
  assert.equal(modeFor({ mode: 'strict' }, { COURSE_NUMBER_CHECK: 'warn' }), 'warn');
  assert.equal(modeFor({ mode: 'strict' }, { COURSE_NUMBER_CHECK: 'nonsense' }), 'strict');
  assert.equal(modeFor({ mode: 'strict' }, {}), 'strict');
});

const FRONTMATTER = ['teaching: 1', 'exercises: 1', 'questions:', '  - Q?', 'objectives:', '  - O.', 'keypoints:', '  - K.'];

/** A two-page course: a landing page and one episode with `body`. */
function episodes(dir: string, body: string[]): string {
  const folder = path.join(dir, 'episodes');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'index.mdx'), ['---', 'title: Test course', 'description: A tiny course.', 'kind: page', '---', '', 'Start.', ''].join('\n'));
  writeFileSync(path.join(folder, '01-planted.mdx'), ['---', 'title: Planted', 'description: One episode.', ...FRONTMATTER, '---', '', ...body, ''].join('\n'));
  return folder;
}

function build(dir: string, folder: string, mode: string): { status: number | null; output: string } {
  const run = buildPlantedCourse({ COURSE_EPISODES: folder, COURSE_BUILD_OUT: path.join(dir, 'dist'), COURSE_BUILD_CACHE: path.join(dir, 'cache'), COURSE_NUMBER_CHECK: mode, COURSE_RUNS: '' });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

test('a hand-typed "12.3 ms" in an episode fails the strict build, naming file, line, text and the fix', (t) => {
  const dir = tempDir(t, 'course-number-check-');
  const folder = episodes(dir, [
    "import Given from '@course-site/components/Given.astro';",
    '',
    'A cache of <Given from="a datasheet">32 KiB</Given> and `5 ms` in code.',
    '',
    'The pool took 12.3 ms per task.',
  ]);
  const strict = build(dir, folder, 'strict');
  assert.notEqual(strict.status, 0, `the build must fail:\n${strict.output.slice(-3000)}`);
  assert.match(strict.output, /01-planted\.mdx:18:15 {2}"12\.3 ms"/);
  assert.match(strict.output, /1 hand-typed measurement/);
  assert.match(strict.output, /<Measured run="<lab>" at="\.\.\." \/>.*<Given from="<its source>">/s);

  // The same page in warn mode builds (the check, not something else, failed it) and says what it found.
  const warn = build(dir, folder, 'warn');
  assert.equal(warn.status, 0, warn.output.slice(-3000));
  assert.match(warn.output, /number check \(not yet strict\): .*01-planted\.mdx: 1 hand-typed measurement, first "12\.3 ms" at line 18/);
});
