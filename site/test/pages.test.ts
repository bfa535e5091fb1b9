/** Every page renders without errors, offline, under the base path; Pagefind search finds an episode's term. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
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
    for (const expected of ['', '01-measure-first/', 'results-viewer/']) {
      assert.ok(pages.includes(expected), `the build has no page "${expected}"; pages: ${pages.join(', ')}`);
    }
  });

  it('renders each page with a heading and without console errors, failed requests or off-site requests', async () => {
    const context = await site.browser.newContext();
    const origin = new URL(site.url).origin;
    for (const path of builtPages()) {
      const page = await context.newPage();
      const errors = watchErrors(page);
      const offsite: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) offsite.push(request.url());
      });
      await page.goto(site.url + path, { waitUntil: 'load' });
      await page.waitForTimeout(300); // lets module scripts run and report errors
      const heading = await page.locator('h1').first().textContent();
      assert.ok(heading && heading.trim().length > 0, `page "${path}" has no h1`);
      assert.deepEqual(errors, [], `page "${path}" reported errors`);
      assert.deepEqual(offsite, [], `page "${path}" reached outside the site (it must work offline)`);
      await page.close();
    }
    await context.close();
  });

  it('links every sidebar entry inside the base path', async () => {
    const page = await site.browser.newPage();
    await page.goto(site.url + '01-measure-first/');
    const hrefs = await page.locator('nav a[href]').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    assert.ok(hrefs.length >= 3, `expected sidebar links, got ${hrefs.length}`);
    for (const href of hrefs) {
      if (href.includes('#')) continue;
      assert.ok(href.startsWith(site.url), `link ${href} leaves the base path ${site.url}`);
    }
    await page.close();
  });

  it('search (Pagefind, offline) finds a term that only an episode contains', async () => {
    const page = await site.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(site.url);
    await page.getByRole('button', { name: /search/i }).first().click();
    const input = page.locator('dialog[open] input[type="search"], dialog[open] input').first();
    await input.fill('Gustafson');
    const result = page.locator('dialog[open] a[href*="01-measure-first"]').first();
    await result.waitFor({ timeout: 10_000 });
    assert.match((await result.getAttribute('href')) ?? '', /01-measure-first/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
