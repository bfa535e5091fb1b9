/**
 * Shared set-up of the browser tests: serve the built site (dist/) under the base path it was built for, and drive
 * Debian's chromium through playwright-core. `npm test` builds with SITE_BASE=/parallel-course/ first, so every test
 * also proves that internal links honour the base path (the server answers 404 outside it).
 */
import { existsSync, readdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { resolveBase } from '../../src/lib/base-path.ts';
import { startStaticServer } from '../../scripts/static-server.ts';
import { findBrowser } from './browser.ts';

/** The built site: site/dist, or SITE_TEST_DIST for a build made elsewhere (e.g. `astro build --outDir /tmp/x`). */
export const DIST = process.env['SITE_TEST_DIST'] ?? fileURLToPath(new URL('../../dist/', import.meta.url));
export const BASE = resolveBase(process.env['SITE_BASE']);
const BROWSER = findBrowser();
/** The browser the tests drive (support/browser.ts), or '' when none was found. */
export const CHROMIUM = typeof BROWSER === 'string' ? BROWSER : '';

/** Flags from TOOLCHAIN.md: headless as root, and nothing that reaches the network on its own. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface SiteUnderTest {
  browser: Browser;
  server: Server;
  /** Absolute URL of the site's root, ending with "/". */
  url: string;
  close(): Promise<void>;
}

export async function openSite(): Promise<SiteUnderTest> {
  if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error(`no built site in ${DIST}: run "npm test -w site" (it builds first) or "npm run build -w site"`);
  }
  if (typeof BROWSER !== 'string') throw BROWSER;
  const { server, url } = await startStaticServer({ root: DIST, base: BASE, port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    browser,
    server,
    url,
    async close() {
      await browser.close();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** Every page of the build as a URL path relative to the base, e.g. "" and "04-measure-first/". */
export function builtPages(): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '_astro' && entry.name !== 'pagefind') walk(path);
      } else if (entry.name === 'index.html') {
        const folder = relative(DIST, dir);
        pages.push(folder === '' ? '' : `${folder.split(sep).join('/')}/`);
      }
    }
  };
  walk(DIST);
  return pages.sort();
}

/**
 * Records console errors, uncaught exceptions and failed requests of a page, to assert there are none. A request the
 * browser cancelled (net::ERR_ABORTED: the page navigated away while Starlight's search script, fetched when the page
 * is idle, was still loading) did not fail and is not recorded; a missing file shows as HTTP >= 400, and a request that
 * cannot connect or is blocked has its own error.
 */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`exception: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    const why = request.failure()?.errorText ?? 'no reason given';
    if (why !== 'net::ERR_ABORTED') errors.push(`request failed: ${request.url()} (${why})`);
  });
  return errors;
}

/** A page as the server sends it: its status, and the text of the element `#id` (or of its first h1 when id is ''). */
export interface ServedPage {
  status: number;
  /** The element's text, trimmed; null when the page has no such element. */
  text: string | null;
}

/**
 * Reads `url` through `page`'s browser context and looks up an element in the HTML the server sent, parsed by the
 * browser's own DOMParser, without rendering it or running its scripts. A link check needs the served page's ids and
 * headings, which the build writes; loading every linked page in full cost about a second a link.
 */
export async function servedPage(page: Page, url: string, id: string): Promise<ServedPage> {
  const response = await page.request.get(url);
  const html = await response.text();
  const text = await page.evaluate(
    ([source, wanted]) => {
      const doc = new DOMParser().parseFromString(source!, 'text/html');
      const element = wanted === '' ? doc.querySelector('h1') : doc.getElementById(wanted!);
      return element === null ? null : (element.textContent ?? '').trim();
    },
    [html, id] as const,
  );
  return { status: response.status(), text };
}
