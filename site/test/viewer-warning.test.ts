/**
 * The results viewer in a real browser warns, in words and as an alert, about a file it cannot vouch for: one whose
 * correctness check failed, and one whose numbers do not recompute from its samples. The check is the validator's
 * own (labs/core/src/validate.ts); the files come from a genuine harness run, edited here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { checkResults, plausibilityFlags, recompute, type Results } from '@parallel-course/core';
import { genuineRun } from '../../labs/harness/test/support/genuine-run.ts';
import { openSite, watchErrors, type SiteUnderTest } from './support/site.ts';
import { openFile } from './support/viewer.ts';

let site: SiteUnderTest;
let genuine: Results;
let runRoot: string | undefined;

before(async () => {
  site = await openSite();
  const run = await genuineRun();
  runRoot = run.root;
  genuine = run.results;
});
after(async () => {
  await site?.close();
  if (runRoot) rmSync(runRoot, { recursive: true, force: true });
});

async function openViewer(results: Results, name: string): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${site.url}results-viewer/`);
  await openFile(page, { name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(results)) });
  return { page, errors };
}

describe('results viewer warning', () => {
  it('shows a genuine file without a warning', async () => {
    assert.deepEqual(checkResults(genuine), [], 'the genuine run should pass the validator');
    const { page, errors } = await openViewer(genuine, 'genuine.json');
    assert.ok(await page.locator('[data-rv-warning]').isHidden());
    assert.equal(await page.getByRole('alert').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('warns about a file whose correctness check failed, naming the case and the reason', async () => {
    const failed = structuredClone(genuine);
    const entry = failed.correctness[1]!;
    failed.correctness[1] = { ...entry, passed: false, reason: 'wrong output on check input #0 at [0]: expected 10, got 9' };
    const { page, errors } = await openViewer(failed, 'failed.json');
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible', timeout: 10_000 });
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /^Warning: do not trust the numbers in this file\./);
    assert.match(text, /1 case failed the correctness check/);
    assert.match(text, /failed check: mine did not pass its check \(wrong output on check input #0 at \[0\]: expected 10, got 9\)/);
    // The results are still shown under the warning, so the learner can see what was measured.
    assert.ok(await page.locator('[data-rv-tables]').isVisible());
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('warns about a file whose speedup was edited, with the number the samples give', async () => {
    const tampered = structuredClone(genuine);
    const i = tampered.speedups.findIndex((s) => s.variant === 'split');
    tampered.speedups[i]!.speedup = 9.99;
    const { page, errors } = await openViewer(tampered, 'tampered.json');
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible', timeout: 10_000 });
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /^Warning: do not trust the numbers in this file\./);
    assert.match(text, /\d+ numbers? do(es)? not follow from the raw samples in the file/);
    assert.match(text, new RegExp(`speedups\\[${i}\\]\\.speedup is 9\\.990 but the samples give [\\d.]+`));
    assert.doesNotMatch(text, /failed the correctness check/);
    // Words, not colour alone: the alert is a visible box with its title in bold.
    assert.ok(await alert.isVisible());
    assert.equal(await alert.locator('.rv-warning-title').evaluate((el) => getComputedStyle(el).fontWeight), '700');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('flags a file whose numbers recompute but cannot be a measurement (a forged clock), naming the ratio (issue 25)', async () => {
    // The 2-worker case's samples divided by 10,000 and every number recomputed: a file that validates.
    const forged = structuredClone(genuine);
    for (const c of forged.cases) if (c.workers === 2) c.samplesMs = c.samplesMs.map((x) => x / 10_000);
    Object.assign(forged, recompute(forged));
    assert.deepEqual(checkResults(forged), [], 'the forged file validates');
    assert.equal(plausibilityFlags(forged).length, 1);
    const { page, errors } = await openViewer(forged, 'forged.json');
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible', timeout: 10_000 });
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /^Warning: do not trust the numbers in this file\./);
    assert.match(text, /1 ratio is beyond what the machine in the file can give/);
    assert.match(text, /implausible: split \(workers=2\): efficiency \d+ % is above 150 %/);
    assert.doesNotMatch(text, /failed the correctness check|do not follow from the raw samples/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
