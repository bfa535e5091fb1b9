/**
 * Full-page screenshots of every built page at desktop (1280 px) and phone (390 px) widths, in both themes,
 * for checking the look by eye: `npm run screenshots -w site -- <out folder>` (default: a new folder under /tmp).
 * Needs a build (npm run build -w site) and chromium (see test/support/site.ts).
 */
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtPages, openSite } from '../test/support/site.ts';

const FIXTURE = fileURLToPath(new URL('../../labs/harness/test/fixtures/results-event-loop.json', import.meta.url));

const out = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'course-screens-'));
mkdirSync(out, { recursive: true });
const site = await openSite();
try {
  for (const [label, width] of [['desktop', 1280], ['phone', 390]] as const) {
    for (const theme of ['dark', 'light']) {
      const context = await site.browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
      await context.addInitScript((t) => localStorage.setItem('starlight-theme', t), theme);
      const page = await context.newPage();
      for (const path of builtPages()) {
        await page.goto(site.url + path, { waitUntil: 'load' });
        // Show the results viewer with data: the harness's fixture results file.
        const viewerInput = page.locator('[data-rv-file]');
        if ((await viewerInput.count()) > 0) {
          await viewerInput.setInputFiles(FIXTURE);
          await page.locator('[data-rv-output]').waitFor({ state: 'visible' });
        }
        await page.waitForTimeout(200);
        const name = `${label}-${theme}-${path.replaceAll('/', '') || 'index'}.png`;
        await page.screenshot({ path: join(out, name), fullPage: true });
      }
      await context.close();
    }
  }
  console.log(`Screenshots written to ${out}`);
} finally {
  await site.close();
}
