/**
 * The in-page labs under test: the built site served with or without cross-origin isolation (COOP/COEP), chromium
 * with WebGPU on (SwiftShader, Chromium's Vulkan on the CPU, is the adapter a machine without a GPU offers), and a
 * helper that runs a lab to the end and returns the results file the page offers for download.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startStaticServer } from '../../scripts/static-server.ts';
import { BASE, CHROMIUM, DIST } from './site.ts';
import { findBrowser } from './browser.ts';

const ARGS = ['--no-sandbox', '--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export interface LabSite {
  browser: Browser;
  /** The site's root URL on the isolated server and on the plain one. */
  isolated: string;
  plain: string;
  close(): Promise<void>;
}

export async function openLabSite(): Promise<LabSite> {
  if (!existsSync(join(DIST, 'index.html'))) throw new Error(`no built site in ${DIST}: run "npm run build -w site" first`);
  const found = findBrowser();
  if (typeof found !== 'string') throw found;
  const servers: Server[] = [];
  const isolated = await startStaticServer({ root: DIST, base: BASE, port: 0, crossOriginIsolation: true });
  servers.push(isolated.server);
  const plain = await startStaticServer({ root: DIST, base: BASE, port: 0 });
  servers.push(plain.server);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  return {
    browser,
    isolated: isolated.url,
    plain: plain.url,
    async close() {
      await browser.close();
      await Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done()))));
    },
  };
}

/**
 * Rounds of the tests' quick runs (data-bl-rounds, src/browser-lab/runner.ts), not the quick run's 5: every case and
 * every timed sample is still checked, and no test asserts a speed. Two keep an interval per case and a rotated order.
 */
export const TEST_ROUNDS = 2;

/**
 * Clicks Quick run in the page's lab `lab` with TEST_ROUNDS rounds, waits for it to finish and returns the downloaded
 * results file's text.
 */
export async function quickRun(page: Page, lab: string, timeoutMs = 240_000): Promise<string> {
  const root = page.locator(`[data-browser-lab="${lab}"]`);
  await root.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
  await root.evaluate((el, rounds) => {
    (el as HTMLElement).dataset['blRounds'] = String(rounds);
  }, TEST_ROUNDS);
  await root.getByRole('button', { name: 'Quick run' }).click();
  try {
    await page.waitForFunction((name) => {
      const state = document.querySelector(`[data-browser-lab="${name}"]`)?.getAttribute('data-state');
      return state === 'done' || state === 'failed' || state === 'stopped';
    }, lab, { timeout: timeoutMs, polling: 500 });
  } catch (error) {
    // Say where the run stood, not only that it ran out of time.
    const status = await root.locator('[data-bl-status]').textContent({ timeout: 5_000 }).catch(() => '(unreadable)');
    throw new Error(`the ${lab} lab did not end within ${timeoutMs / 1000} s; its status read "${status}"`, { cause: error });
  }
  const state = await root.getAttribute('data-state');
  if (state !== 'done') throw new Error(`the ${lab} lab ended "${state}": ${await root.locator('[data-bl-status]').textContent()}`);
  const [download] = await Promise.all([page.waitForEvent('download'), root.locator('[data-bl-download]').click()]);
  const path = await download.path();
  return readFile(path, 'utf8');
}
