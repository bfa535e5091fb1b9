/**
 * The results viewer's first view is small (issue 30: it was 1.45 MB of HTML because every raw sample of every course
 * run was embedded): the page carries only the list of labs, the shown lab's run comes without its raw samples, and
 * the course's server compresses text. Measured as the browser sees it: every byte that crosses the wire (encoded
 * bodies and headers) until the first lab's charts are on screen.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, openSite, watchErrors, type SiteUnderTest } from './support/site.ts';

/** The goal of issue 30 for the first view, in bytes transferred. */
const FIRST_VIEW_BUDGET = 300 * 1024;
/** The page's own HTML, uncompressed: the sidebar and the viewer's controls, no run data. */
const HTML_BUDGET = 100 * 1024;

let site: SiteUnderTest;
before(async () => {
  site = await openSite();
});
after(async () => {
  await site?.close();
});

it('the viewer page holds no run data and its first view transfers under 300 KB', async () => {
  const html = readFileSync(join(DIST, 'results-viewer', 'index.html'));
  assert.ok(html.length < HTML_BUDGET, `the viewer's HTML is ${html.length} bytes`);
  assert.doesNotMatch(html.toString('utf8'), /samplesMs/, 'no raw samples in the page');

  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  const sizes: Promise<{ url: string; bytes: number }>[] = [];
  page.on('requestfinished', (request) => {
    sizes.push(request.sizes().then((s) => ({ url: request.url(), bytes: s.responseBodySize + s.responseHeadersSize })));
  });
  await page.goto(`${site.url}results-viewer/`);
  await page.locator('[data-rv-output]').waitFor({ state: 'visible' });
  await page.waitForLoadState('networkidle');
  const transfers = await Promise.all(sizes);
  const total = transfers.reduce((sum, t) => sum + t.bytes, 0);
  const list = transfers.map((t) => `${t.bytes} ${t.url}`).join('\n');
  assert.ok(total < FIRST_VIEW_BUDGET, `the first view transferred ${total} bytes:\n${list}`);
  assert.ok(transfers.some((t) => /viewer-runs\/[a-z-]+\.view\.json$/.test(t.url)), `the shown lab's run is fetched:\n${list}`);
  assert.ok(!transfers.some((t) => /viewer-runs\/[a-z-]+\.json$/.test(t.url) && !t.url.endsWith('.view.json')), 'no whole run (raw samples) before a comparison');
  console.log(`first view: ${total} bytes transferred in ${transfers.length} requests; HTML ${html.length} bytes uncompressed`);
  assert.deepEqual(errors, []);
  await page.close();
});
