/**
 * The in-page code editor (CodeMirror 6, src/browser-lab/code-editor.ts) of episode 05's exercise, in chromium at a
 * 390 px phone and a 1280 px desktop: typed into with the keyboard, left with Escape then Tab, no horizontal page
 * scroll; a syntax error and a runtime error are shown with their line and column and the line is marked; a handler
 * that never ends is stopped at the time limit and the page stays usable; the draft survives a reload; Reset brings
 * back the starting code. Screenshots of the editor go to os.tmpdir(), or to test/screenshots/ (committed) with
 * UPDATE_SCREENSHOTS=1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { watchErrors } from './support/site.ts';
import { openLabSite, type LabSite } from './support/browser-lab.ts';
import { AXE_SCRIPT } from '../scripts/axe-pages.ts';

const SHOTS = process.env['UPDATE_SCREENSHOTS'] === '1' ? fileURLToPath(new URL('./screenshots/', import.meta.url)) : join(tmpdir(), 'course-editor-screenshots');
const DRAFT_KEY = 'parallel-course:draft:event-loop:handler';

let site: LabSite;
before(async () => {
  site = await openLabSite();
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await site?.close();
});

interface Exercise {
  page: Page;
  root: Locator;
  content: Locator;
  errors: string[];
}

/** Episode 05 at `width` px with its exercise open and the editor mounted; no draft left from another test. */
async function openExercise(width: number): Promise<Exercise> {
  const page = await site.browser.newPage({ viewport: { width, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${site.plain}05-event-loop/`);
  await page.evaluate((key) => localStorage.removeItem(key), DRAFT_KEY);
  await page.reload();
  const root = page.locator('[data-browser-lab="event-loop"]');
  await root.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
  await root.locator('summary').click();
  const content = root.locator('.cm-content');
  await content.waitFor();
  return { page, root, content, errors };
}

/** Replaces the editor's text as a paste would (one input event, no auto-indent of the pasted lines). */
async function setCode(ex: Exercise, code: string): Promise<void> {
  await ex.content.click();
  await ex.page.keyboard.press('ControlOrMeta+a');
  await ex.page.keyboard.insertText(code);
}

/** The viewport with the editor near its top, below the page's sticky header (an element shot would sit under it). */
async function screenshot(ex: Exercise, name: string): Promise<void> {
  await ex.root.locator('[data-bl-code] + .cm-editor').evaluate((el) => {
    el.scrollIntoView({ block: 'start' });
    window.scrollBy(0, -160);
  });
  await ex.page.screenshot({ path: join(SHOTS, name) });
}

/** axe-core's violations in the exercise (the installed axe.min.js, nothing downloaded), one line each. */
async function axeOnExercise(ex: Exercise): Promise<string[]> {
  if (!(await ex.page.evaluate(() => 'axe' in globalThis))) await ex.page.addScriptTag({ path: AXE_SCRIPT });
  return ex.root.locator('.bl-exercise').evaluate(async (el) => {
    const result = await (globalThis as unknown as { axe: { run(ctx: unknown, options: unknown): Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }> } }).axe.run(el, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

async function editorText(ex: Exercise): Promise<string> {
  return ex.root.locator('[data-bl-code]').inputValue();
}

/** Clicks Quick run and waits until the page has said why the run did not start. */
async function runUntilCodeError(ex: Exercise, timeoutMs: number): Promise<string> {
  await ex.root.evaluate((el) => {
    (el as HTMLElement).dataset['blRounds'] = '2';
  });
  await ex.root.getByRole('button', { name: 'Quick run' }).click();
  await ex.page.waitForFunction(() => document.querySelector('[data-browser-lab="event-loop"]')?.getAttribute('data-state') === 'code-error', null, { timeout: timeoutMs, polling: 100 });
  return (await ex.root.locator('[data-bl-code-error]').textContent()) ?? '';
}

for (const width of [390, 1280]) {
  describe(`in-page code editor at ${width} px`, () => {
    it('types with the keyboard, leaves with Escape then Tab, has line numbers and a monospace font, no page scroll sideways', async () => {
      const ex = await openExercise(width);
      const { page } = ex;
      assert.ok((await ex.root.locator('.cm-lineNumbers .cm-gutterElement').count()) >= 10, 'line numbers are shown');
      const font = await ex.content.evaluate((el) => getComputedStyle(el).fontFamily);
      assert.match(font, /mono|consolas|menlo/i, `a monospace font: ${font}`);
      // Keyboard only: reach the end of the code, add a line, indent it with Tab.
      await ex.content.focus();
      await page.keyboard.press('ControlOrMeta+End');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      await page.keyboard.type('// typed by keyboard');
      assert.match(await editorText(ex), /\n\s+\/\/ typed by keyboard$/, 'Tab indented the new line inside the editor');
      assert.ok(await ex.content.evaluate((el) => el.contains(document.activeElement)), 'Tab alone keeps the focus in the editor');
      assert.ok((await ex.root.locator('.cm-line span[class]').count()) > 5, 'the code is highlighted (tokens have classes)');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Reset to starting code', 'Escape then Tab moves the focus out, to Reset');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `no horizontal page scroll at ${width} px (${overflow} px too wide)`);
      const box = (await ex.root.locator('.cm-editor').boundingBox())!;
      assert.ok(box.width >= Math.min(300, width - 80) && box.x >= 0 && box.x + box.width <= width, `the editor fits the width: ${JSON.stringify(box)}`);
      await screenshot(ex, `editor-${width}.png`);
      // The dark theme: the code's colours follow the page's (light tokens on a dark page fail contrast).
      const keyword = ex.content.locator('span', { hasText: /^function$/ }).first();
      const light = await keyword.evaluate((el) => getComputedStyle(el).color);
      await page.evaluate(() => {
        document.documentElement.dataset['theme'] = 'dark';
      });
      assert.notEqual(await keyword.evaluate((el) => getComputedStyle(el).color), light, 'the keyword is coloured for the dark theme');
      assert.deepEqual(await axeOnExercise(ex), [], 'axe finds no violation in the editor in the dark theme');
      await screenshot(ex, `editor-dark-${width}.png`);
      assert.equal(ex.errors.length, 0, ex.errors.join('\n'));
      await page.close();
    });

    it('shows a syntax error and a runtime error with their line and column, and marks the line', async () => {
      const ex = await openExercise(width);
      await setCode(ex, 'function countPrimesInRange(start, end) {\n  let count = 0;\n  count = count + ;\n  return count;\n}');
      const syntax = await runUntilCodeError(ex, 15_000);
      assert.match(syntax, /^Line 3, column \d+: SyntaxError: /, syntax);
      assert.deepEqual(await ex.root.locator('.cm-bl-error-line').allTextContents(), ['  count = count + ;'], 'the error\'s line is marked');
      assert.match((await ex.root.locator('[data-bl-status]').textContent())!, /the run did not start: Line 3/);
      await screenshot(ex, `editor-error-${width}.png`);
      assert.deepEqual(await axeOnExercise(ex), [], 'axe finds no violation in the editor with its error shown');
      await setCode(ex, 'function countPrimesInRange(start, end) {\n  const table = null;\n  // a bug on the next line\n  return table.length;\n}');
      assert.equal(await ex.root.locator('.cm-bl-error-line').count(), 0, 'an edit clears the mark');
      const runtime = await runUntilCodeError(ex, 15_000);
      assert.match(runtime, /^Line 4, column 16: TypeError: /, runtime);
      assert.deepEqual(await ex.root.locator('.cm-bl-error-line').allTextContents(), ['  return table.length;']);
      await ex.page.close();
    });

    it('a handler that never ends stops at the time limit, its worker ended, and the page stays usable', async (t) => {
      const ex = await openExercise(width);
      await setCode(ex, 'function countPrimesInRange(start, end) {\n  while (true) {}\n}');
      const started = Date.now();
      const message = await runUntilCodeError(ex, 20_000);
      const tookMs = Date.now() - started;
      t.diagnostic(`the endless loop was ended ${tookMs} ms after Quick run`);
      assert.match(message, /did not finish within the 5 s time limit for one call, so its worker was ended/, message);
      assert.ok(tookMs >= 4_500 && tookMs < 15_000, `ended at the limit (${tookMs} ms)`);
      for (let i = 0; i < 50 && ex.page.workers().length > 0; i++) await new Promise((done) => setTimeout(done, 100));
      assert.equal(ex.page.workers().length, 0, 'the worker running the loop was terminated');
      assert.equal(await ex.root.getByRole('button', { name: 'Quick run' }).isEnabled(), true, 'the buttons work again');
      // The page answers at once: a frame is drawn and typing still edits the code.
      await ex.page.evaluate(() => new Promise((done) => requestAnimationFrame(done)));
      await ex.content.focus();
      await ex.page.keyboard.press('ControlOrMeta+End');
      await ex.page.keyboard.type(' // still typing');
      assert.match(await editorText(ex), /\/\/ still typing$/);
      await ex.page.close();
    });

    it('keeps the draft across a reload, says the edit in the lab\'s lines, and Reset brings back the starting code', async () => {
      const ex = await openExercise(width);
      const starter = await editorText(ex);
      const off = ex.root.locator('[data-bl-off]');
      assert.match((await off.textContent())!, /ran the starting code, unchanged/);
      await ex.content.focus();
      await ex.page.keyboard.press('ControlOrMeta+End');
      await ex.page.keyboard.type(' // my draft');
      await ex.page.waitForFunction(() => !/unchanged/.test(document.querySelector('[data-browser-lab="event-loop"] [data-bl-off]')?.textContent ?? ''), null, { timeout: 5_000 });
      assert.match((await off.textContent())!, /ran the code you edited/);
      await ex.page.reload();
      await ex.root.and(ex.page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
      await ex.root.locator('summary').click();
      assert.match(await editorText(ex), /\/\/ my draft$/, 'the draft came back after the reload');
      assert.match((await ex.root.locator('.cm-content').textContent())!, /\/\/ my draft/);
      assert.match((await ex.root.locator('[data-bl-draft]').textContent())!, /restored/);
      assert.match((await off.textContent())!, /ran the code you edited/);
      await ex.root.getByRole('button', { name: 'Reset to starting code' }).click();
      assert.equal(await editorText(ex), starter);
      assert.equal(await ex.page.evaluate((key) => localStorage.getItem(key), DRAFT_KEY), null, 'Reset removed the draft');
      assert.match((await off.textContent())!, /ran the starting code, unchanged/);
      await ex.page.close();
    });

    if (width === 390) {
      it('a handler that passes the first try and loops on later requests ends the run at the limit, said under the editor', async () => {
        const ex = await openExercise(width);
        // Requests 0-2 (blocks 0-2) are answered; from block 3 on it never returns. The try before the run and the
        // check use block 0; sizing the samples (1, then 10 requests) reaches block 3, and the run ends there.
        await setCode(ex, 'function countPrimesInRange(start, end) {\n  if (start >= 1006000) while (true) {}\n  let count = 0;\n  for (let n = Math.max(2, start); n < end; n++) {\n    let prime = true;\n    for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }\n    if (prime) count++;\n  }\n  return count;\n}');
        await ex.root.evaluate((el) => {
          (el as HTMLElement).dataset['blRounds'] = '2';
        });
        await ex.root.getByRole('button', { name: 'Quick run' }).click();
        await ex.page.waitForFunction(() => ['failed', 'done'].includes(document.querySelector('[data-browser-lab="event-loop"]')?.getAttribute('data-state') ?? ''), null, { timeout: 120_000, polling: 200 });
        const status = (await ex.root.locator('[data-bl-status]').textContent())!;
        const shown = (await ex.root.locator('[data-bl-code-error]').textContent())!;
        assert.equal(await ex.root.getAttribute('data-state'), 'failed', status);
        assert.match(status, /^The run failed: Your handler did not finish within the 5 s time limit/, status);
        assert.match(shown, /did not finish within the 5 s time limit/, shown);
        for (let i = 0; i < 50 && ex.page.workers().length > 0; i++) await new Promise((done) => setTimeout(done, 100));
        assert.equal(ex.page.workers().length, 0, 'every worker was terminated');
        await ex.page.close();
      });
    }
  });
}
