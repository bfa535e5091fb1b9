/**
 * Runs axe-core (the npm package's axe.min.js, loaded into each page: nothing downloaded) on every built page at a
 * phone (390 px) and a desktop (1280 px) width, and returns the violations (issue 29): the browser test asserts there
 * are none; `node scripts/axe-pages.ts` prints them, one line each, for fixing. Needs a build and chromium.
 */
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { builtPages, openSite } from '../test/support/site.ts';

export const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
export const WIDTHS = [390, 1280] as const;

export interface AxeViolation {
  page: string;
  width: number;
  id: string;
  help: string;
  /** The first few offending elements' selectors. */
  targets: string[];
}

interface AxeResult {
  violations: { id: string; help: string; nodes: { target: unknown[] }[] }[];
}

/**
 * axe's violations on every page of the site served at `url`, at each width, in `themes` (default the light one:
 * axe takes over a minute a page on a loaded 2-CPU machine, and the dark theme's contrast is Starlight's own).
 */
export async function axeViolations(browser: Browser, url: string, pages: readonly string[] = builtPages(), themes: readonly string[] = ['light']): Promise<AxeViolation[]> {
  const found: AxeViolation[] = [];
  for (const width of WIDTHS) {
    for (const theme of themes) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      await context.addInitScript((t) => localStorage.setItem('starlight-theme', t), theme);
      // axe as an init script of the context rather than a script tag added to each page: the renderer then reuses its
      // compilation of the 500 KB script from page to page (about 0.3 CPU-s a page here). axe.run starts after load.
      await context.addInitScript({ path: AXE_SCRIPT });
      const page = await context.newPage();
      for (const path of pages) {
        await page.goto(url + path, { waitUntil: 'load' });
        const result = (await page.evaluate(() =>
          (globalThis as unknown as { axe: { run(ctx: unknown, options: unknown): Promise<unknown> } }).axe.run(document, { resultTypes: ['violations'] }),
        )) as AxeResult;
        for (const v of result.violations) {
          found.push({ page: `${path || '/'} (${theme})`, width, id: v.id, help: v.help, targets: v.nodes.slice(0, 4).map((n) => String(n.target.join(' '))) });
        }
      }
      await context.close();
    }
  }
  return found;
}

if (import.meta.main) {
  const site = await openSite();
  try {
    const violations = await axeViolations(site.browser, site.url);
    for (const v of violations) console.log(`${v.width}px ${v.page}: ${v.id}: ${v.help}: ${v.targets.join(' | ')}`);
    console.log(`${violations.length} violation(s)`);
    process.exitCode = violations.length === 0 ? 0 : 1;
  } finally {
    await site.close();
  }
}
