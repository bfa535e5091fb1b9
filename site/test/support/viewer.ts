/**
 * The results viewer in the browser tests: it opens with a course run on show, so "the output is visible" no longer
 * says a file was read. `openFile` waits until the learner's file is the run on show (or its refusal is).
 */
import type { Page } from 'playwright-core';

export type ViewerFile = string | { name: string; mimeType: string; buffer: Buffer };

/** Opens `file` in the viewer and waits until the page shows it as "your run (<name>)". */
export async function openFile(page: Page, file: ViewerFile): Promise<void> {
  const name = typeof file === 'string' ? file.split('/').at(-1)! : file.name;
  await page.locator('[data-rv-file]').setInputFiles(file);
  await page.waitForFunction(
    (expected) => document.querySelector('[data-rv-source]')?.textContent?.startsWith(expected) === true,
    `your run (${name})`,
    { timeout: 20_000 },
  );
}

/** Waits until `selector`'s text is `expected`: a picked lab's course run is fetched, so it shows a moment later. */
export async function waitForText(page: Page, selector: string, expected: string): Promise<void> {
  await page.waitForFunction(
    ([sel, text]) => document.querySelector(sel!)?.textContent === text,
    [selector, expected] as const,
    { timeout: 20_000 },
  );
}
