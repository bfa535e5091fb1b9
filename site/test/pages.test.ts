/** Every page renders without errors, offline, under the base path; Pagefind search finds an episode's term. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { builtPages, openSite, watchErrors, type SiteUnderTest } from './support/site.ts';

describe('every page of the built course', () => {
  let site: SiteUnderTest;
  before(async () => {
    site = await openSite();
  });
  after(async () => {
    await site?.close();
  });

  it('finds the landing page, the episodes and the results viewer in the build', () => {
    const pages = builtPages();
    for (const expected of ['', '04-measure-first/', 'results-viewer/']) {
      assert.ok(pages.includes(expected), `the build has no page "${expected}"; pages: ${pages.join(', ')}`);
    }
  });

  it('renders each page with a heading and without console errors, failed requests or off-site requests', async () => {
    // One tab goes from page to page, as a reader does: each navigation is a fresh document with its own scripts, and
    // a new tab per page would only add its start-up (about 2 CPU-seconds each in headless chromium here).
    const context = await site.browser.newContext();
    const page = await context.newPage();
    const errors = watchErrors(page);
    const origin = new URL(site.url).origin;
    const offsite: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) offsite.push(request.url());
    });
    for (const path of builtPages()) {
      await page.goto(site.url + path, { waitUntil: 'load' });
      await page.waitForTimeout(300); // lets module scripts run and report errors
      const heading = await page.locator('h1').first().textContent();
      assert.ok(heading && heading.trim().length > 0, `page "${path}" has no h1`);
      assert.deepEqual(errors, [], `page "${path}" reported errors`);
      assert.deepEqual(offsite, [], `page "${path}" reached outside the site (it must work offline)`);
    }
    await context.close();
  });

  it('the error watcher records a request that fails, not one abandoned by navigating away', async () => {
    // Two tiny pages on a server of the test's own: one starts loading a script the server holds for ever (the
    // browser cancels it when the test navigates on, as Starlight's idle-time search script may be); the other
    // fetches from a port nobody listens on.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', () => done()));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    let held = false;
    const server: Server = createServer((request, response) => {
      if (request.url === '/held.js') {
        held = true; // never answered
        return;
      }
      response.setHeader('content-type', 'text/html');
      const body = request.url === '/loads' ? '<script type="module">import("/held.js");</script>' : request.url === '/fails' ? `<script>fetch("http://127.0.0.1:${deadPort}/x").catch(() => {});</script>` : 'plain';
      response.end(`<!doctype html><title>t</title>${body}`);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = await site.browser.newPage();
    try {
      const errors = watchErrors(page);
      await page.goto(`${origin}/loads`);
      for (let i = 0; i < 100 && !held; i++) await new Promise((done) => setTimeout(done, 20));
      assert.ok(held, 'the page asked for the held script');
      await page.goto(`${origin}/plain`);
      assert.equal(errors.length, 0, `a cancelled load is not a failure: ${errors.join('; ')}`);
      const failed = page.waitForEvent('requestfailed');
      await page.goto(`${origin}/fails`);
      await failed;
      // (The console's own "Failed to load resource" line is recorded too.)
      assert.equal(errors.filter((e) => e.startsWith('request failed: ')).length, 1, errors.join('\n'));
      assert.match(errors.find((e) => e.startsWith('request failed: '))!, new RegExp(`^request failed: http://127\\.0\\.0\\.1:${deadPort}/x \\(net::ERR_`));
    } finally {
      await page.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('lists every episode file in the sidebar, in file order, with links inside the base path', async () => {
    const episodeDir = fileURLToPath(new URL('../../episodes/', import.meta.url));
    const slugs = readdirSync(episodeDir)
      .filter((name) => /^\d\d-.+\.mdx$/.test(name))
      .sort()
      .map((name) => name.slice(0, -'.mdx'.length));
    const page = await site.browser.newPage();
    await page.goto(site.url + '04-measure-first/');
    const hrefs = await page
      .locator('#starlight__sidebar a[href]')
      .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs) assert.ok(href.startsWith(site.url), `sidebar link ${href} leaves the base path ${site.url}`);
    const linked = hrefs.map((href) => href.slice(site.url.length).replace(/\/$/, ''));
    const episodesInSidebar = linked.filter((slug) => slugs.includes(slug));
    assert.deepEqual(episodesInSidebar, slugs, 'the sidebar must list every episode in file order');
    // The reference pages (kind: page) come after the last episode.
    const lastEpisode = linked.indexOf(slugs.at(-1) ?? '');
    for (const pageSlug of ['cheat-sheet', 'glossary', 'knowledge-check', 'results-viewer']) {
      const at = linked.indexOf(pageSlug);
      assert.ok(at > lastEpisode, `the sidebar lists "${pageSlug}" at ${at}, before the last episode (at ${lastEpisode})`);
    }
    assert.ok(linked.includes(''), 'the sidebar links the landing page');
    await page.close();
  });

  it('ships well under 100 KB of gzipped JavaScript on a page without charts', async (t) => {
    // Bytes of JavaScript a page loads before any interaction, gzipped at level 9 (what a static host would send).
    const shipped = async (path: string): Promise<number> => {
      const page = await site.browser.newPage();
      const bodies: Promise<Buffer>[] = [];
      page.on('response', (response) => {
        if (response.request().resourceType() === 'script') bodies.push(response.body());
      });
      await page.goto(site.url + path, { waitUntil: 'networkidle' });
      // Starlight fetches some scripts (the search UI) when the browser is idle: give them time to arrive too.
      await page.waitForTimeout(1500);
      const sizes = (await Promise.all(bodies)).map((body) => gzipSync(body, { level: 9 }).length);
      await page.close();
      return sizes.reduce((sum, size) => sum + size, 0);
    };
    const landing = await shipped('');
    const withCharts = await shipped('04-measure-first/');
    t.diagnostic(`gzipped JS: landing page ${(landing / 1024).toFixed(1)} KiB, episode with charts ${(withCharts / 1024).toFixed(1)} KiB`);
    if (builtPages().includes('05-event-loop/')) {
      t.diagnostic(`gzipped JS: 05-event-loop (no charts) ${((await shipped('05-event-loop/')) / 1024).toFixed(1)} KiB`);
    }
    assert.ok(landing < 100 * 1024, `the landing page loads ${landing} bytes of gzipped JS`);
    assert.ok(withCharts > landing, 'the chart page should load chart.js on top of the common scripts');
  });

  it('search (Pagefind, offline) finds a term that only an episode contains', async () => {
    const page = await site.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(site.url);
    await page.getByRole('button', { name: /search/i }).first().click();
    const input = page.locator('dialog[open] input[type="search"], dialog[open] input').first();
    await input.fill('Gustafson');
    const result = page.locator('dialog[open] a[href*="04-measure-first"]').first();
    await result.waitFor({ timeout: 10_000 });
    assert.match((await result.getAttribute('href')) ?? '', /04-measure-first/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
