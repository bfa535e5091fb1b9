/**
 * An instructor's own runs on the pages (issue 20): a build with COURSE_RUNS pointing at runs "from a different
 * machine" (copies of the reference runs with a distinctive CPU model; they still validate) shows that CPU model on
 * a page that quotes them, in the numbers' tooltips and in the page's "numbers from" line; a lab missing there falls
 * back to the reference with a visible note; the table and chart of the run render without errors. The build is of a
 * small temporary episodes folder (COURSE_EPISODES), so it is quick and does not touch dist/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { tempDir } from '../../labs/harness/test/support/temp-dir.ts';
import { startStaticServer } from '../scripts/static-server.ts';
import { findBrowser } from './support/browser.ts';
import { OTHER_CPU, otherMachineRuns } from './support/other-machine.ts';
import { watchErrors } from './support/site.ts';
import { buildPlantedCourse } from './support/planted-build.ts';

const BROWSER = findBrowser();
const FRONTMATTER = ['teaching: 1', 'exercises: 1', 'questions:', '  - Q?', 'objectives:', '  - O.', 'keypoints:', '  - K.'];

function page(folder: string, name: string, title: string, body: string[]): void {
  writeFileSync(path.join(folder, name), ['---', `title: ${title}`, 'description: A test page.', ...FRONTMATTER, '---', '', ...body, ''].join('\n'));
}

test('COURSE_RUNS from another machine: its CPU model on the page that quotes it, and the fallback note for a missing lab', { skip: typeof BROWSER === 'string' ? false : BROWSER.message }, async (t) => {
  const dir = tempDir(t, 'course-runs-browser-');
  const runs = otherMachineRuns(dir, ['event-loop', 'native-kernel', 'gpu-batching']); // task-granularity is missing
  const folder = path.join(dir, 'episodes');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'index.mdx'), ['---', 'title: Test course', 'description: A tiny course.', 'kind: page', '---', '', 'Start.', ''].join('\n'));
  page(folder, '01-quoted.mdx', 'Quoted', [
    "import Measured from '@course-site/components/Measured.astro';",
    "import MeasuredTable from '@course-site/components/MeasuredTable.astro';",
    "import SpeedupChart from '@course-site/components/SpeedupChart.astro';",
    '',
    'Measured on <Measured run="event-loop" at="machine" />: the pool gave <Measured run="event-loop" at="headline" />.',
    '',
    'The chunks gave <Measured run="task-granularity" at="headline" />.',
    '',
    '<MeasuredTable run="event-loop" table="cases" />',
    '',
    '<SpeedupChart run="event-loop" variant="pool" param="workers" />',
  ]);
  page(folder, '02-plain.mdx', 'Plain', ['No measurements here.']);

  const dist = path.join(dir, 'dist');
  const build = buildPlantedCourse({ SITE_BASE: '/', COURSE_EPISODES: folder, COURSE_RUNS: runs, COURSE_BUILD_OUT: dist, COURSE_BUILD_CACHE: path.join(dir, 'cache'), COURSE_NUMBER_CHECK: 'strict' });
  assert.equal(build.status, 0, `${build.stdout}\n${build.stderr}`.slice(-4000));

  const { server, url } = await startStaticServer({ root: dist, base: '/', port: 0 });
  t.after(() => new Promise<void>((done) => (server as Server).close(() => done())));
  const browser = await chromium.launch({ executablePath: BROWSER as string, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  t.after(() => browser.close());
  const tab = await browser.newPage();
  const errors = watchErrors(tab);
  await tab.goto(`${url}01-quoted/`);

  // The page names the instructor's machine, in the "numbers from" line and in the machine's own Measured.
  const runsLine = tab.locator('[data-lesson-runs]');
  await runsLine.waitFor();
  assert.match((await runsLine.innerText()).replace(/\s+/g, ' '), new RegExp(`instructor's runs: .*event-loop: instructor's run of .* on ${OTHER_CPU.replace(/[()]/g, '\\$&')}`));
  assert.match(await tab.locator('[data-measured][data-lab="event-loop"]').first().innerText(), new RegExp(`^${OTHER_CPU.replace(/[()]/g, '\\$&')}, P = \\d+`));
  assert.match((await tab.locator('[data-measured][data-lab="event-loop"]').nth(1).getAttribute('title')) ?? '', new RegExp(`instructor's run .* on ${OTHER_CPU.replace(/[()]/g, '\\$&')}`));

  // The missing lab: its number is the reference's, marked, and the page says so.
  const note = tab.locator('[data-runs-fallback]');
  assert.ok(await note.isVisible(), 'the fallback note is visible');
  assert.match(await note.innerText(), /task-granularity has no valid run in the instructor's folder, so its numbers here are the reference's/);
  const fellBack = tab.locator('[data-measured][data-lab="task-granularity"]');
  assert.equal(await fellBack.getAttribute('data-source'), 'reference');
  assert.equal(await fellBack.locator('.measured-ref').innerText(), 'ref');

  // The run's table and chart: rows rendered from values.json, a chart drawn from the embedded speedups.
  assert.ok((await tab.locator('[data-measured-table] tbody tr').count()) > 1);
  const box = await tab.locator('[data-speedup-chart] canvas').boundingBox();
  assert.ok(box && box.width > 100 && box.height > 100, `the chart is drawn: ${JSON.stringify(box)}`);
  assert.ok((await tab.locator('[data-speedup-chart] details tbody tr').count()) >= 2);

  // A page that quotes nothing has no "numbers from" line.
  await tab.goto(`${url}02-plain/`);
  assert.equal(await tab.locator('[data-lesson-runs]').count(), 0);
  assert.deepEqual(errors, []);
});
