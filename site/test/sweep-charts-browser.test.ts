/**
 * The results viewer draws each declared sweep of each reference run as a chart of curves over its own param (issue
 * 24): native-kernel's size and threads, gpu-batching's batch, sessions and devices, task-granularity's chunk and
 * event-loop's workers. Each chart's data is checked against the core's sweepCharts of the same run, no curve has one
 * point, and no chart container is taller than the viewport (native-kernel's speedups were one 3,472 px bar chart).
 * The page is the built site's viewer (`npm test` builds the site once; its runs are the committed reference runs).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseResultsJson, sweepCharts } from '@parallel-course/core';
import { findRunFolders } from '@parallel-course/harness/site.ts';
import { findBrowser } from './support/browser.ts';
import { openSite, watchErrors } from './support/site.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BROWSER = findBrowser();
const VIEWPORT = { width: 1280, height: 800 };

/** What the core draws for the reference run of `lab`: per sweep param, its curves as [x, y] points. */
function expectedSweeps(lab: string): Record<string, { label: string; points: [number, number][] }[]> {
  const dir = findRunFolders(path.join(ROOT, 'reference'), lab)[0]!;
  const results = parseResultsJson(readFileSync(path.join(dir, 'results.json'), 'utf8'), lab);
  return Object.fromEntries(sweepCharts(results).map((c) => [c.sweep.param, c.curves.map((k) => ({ label: k.label, points: k.points.map((p) => [p.x, p.y] as [number, number]) }))]));
}

test('the viewer charts every declared sweep over its param, with the run\'s data, and no chart is taller than the screen', { skip: typeof BROWSER === 'string' ? false : BROWSER.message, timeout: 600_000 }, async (t) => {
  const site = await openSite();
  t.after(() => site.close());
  const tab = await site.browser.newPage({ viewport: VIEWPORT });
  const errors = watchErrors(tab);
  await tab.goto(`${site.url}results-viewer/`);

  const expected: Record<string, string[]> = { 'native-kernel': ['size', 'threads'], 'gpu-batching': ['batch', 'sessions', 'devices'], 'task-granularity': ['chunk'], 'event-loop': ['workers'] };
  for (const [lab, params] of Object.entries(expected)) {
    await tab.locator('select[data-rv-lab]').selectOption(lab);
    // The lab's run is fetched when picked: wait until its own sweeps replaced the previous lab's.
    await tab.waitForFunction(
      ([l, want]) =>
        document.querySelector('[data-rv-title]')?.textContent !== '' &&
        (document.querySelector('select[data-rv-lab]') as HTMLSelectElement | null)?.value === l &&
        (want as string[]).every((p) => document.querySelector(`[data-rv-sweeps] [data-rv-sweep="${p}"]`) !== null),
      [lab, params] as const,
    );
    const shown = await tab.locator('[data-rv-sweep]').evaluateAll((boxes) => boxes.map((b) => ({ param: (b as HTMLElement).dataset['rvSweep']!, data: JSON.parse((b as HTMLElement).dataset['rvSweepData']!) })));
    const want = expectedSweeps(lab);
    for (const param of params) assert.ok(shown.some((s) => s.param === param), `${lab}: a chart of the ${param} sweep`);
    for (const s of shown) {
      assert.deepEqual(s.data, want[s.param], `${lab}: the ${s.param} chart shows the run's speedups`);
      for (const curve of s.data as { label: string; points: unknown[] }[]) assert.ok(curve.points.length >= 2, `${lab} ${s.param}: "${curve.label}" has two points or more`);
    }
    const heights = await tab.locator('.chart-box').evaluateAll((boxes) => boxes.filter((b) => !(b as HTMLElement).hidden && (b as HTMLElement).offsetParent !== null).map((b) => b.getBoundingClientRect().height));
    assert.ok(heights.length > 0);
    for (const h of heights) assert.ok(h <= VIEWPORT.height, `${lab}: a chart container is ${h} px tall, more than the ${VIEWPORT.height} px viewport`);
  }
  assert.deepEqual(errors, []);
});
