/**
 * The results viewer opens with the course's runs (the committed reference, or COURSE_RUNS: site/src/lib/course-runs.ts,
 * read here the way the build reads it) and puts a learner's run beside the course's run of the same lab, case by case,
 * with the verdict `npm run lab -- <lab> --compare <run>` gives. The learner's files are copies of a course run, changed and
 * recomputed through the harness's own functions, so they pass the validator as a real run does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { caseLabel, checkResults, recompute, type Results, sameParams } from '@parallel-course/core';
import { loadCourseRuns, type CourseRun } from '../src/lib/course-runs.ts';
import { courseRunLabel } from '../src/lib/viewer-runs.ts';
import { openSite, watchErrors, type SiteUnderTest } from './support/site.ts';
import { openFile, waitForText } from './support/viewer.ts';

/** The repository root, named rather than taken from the working folder: the suite also runs from the root. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let site: SiteUnderTest;
let runs: CourseRun[];

before(async () => {
  site = await openSite();
  runs = [...loadCourseRuns({ rootDir: ROOT }).labs.values()].sort((a, b) => a.lab.localeCompare(b.lab));
  assert.ok(runs.length > 0, 'the course has no runs (reference/ is empty): the viewer has nothing to open');
});
after(async () => {
  await site?.close();
});

async function openViewer(): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${site.url}results-viewer/`);
  await page.locator('[data-rv-output]').waitFor({ state: 'visible' });
  return { page, errors };
}

function asFile(results: Results, name: string): { name: string; mimeType: string; buffer: Buffer } {
  return { name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(results)) };
}

/** A copy of `run` with one case's samples scaled by `factor`, every derived number recomputed from the samples. */
function scaledCase(run: Results, index: number, factor: number): Results {
  const copy = structuredClone(run);
  const target = copy.cases[index]!;
  target.samplesMs = target.samplesMs.map((x) => x * factor);
  return { ...copy, ...recompute(copy) };
}

/** The case to slow down: not the baseline (that would read as the machine drifting), the least noisy of the rest. */
function quietCase(run: Results): number {
  const baseline = run.speedups[0]?.baseline;
  let best = -1;
  for (const [i, c] of run.cases.entries()) {
    // A variant with a speedup over the baseline: --compare judges a variant by its speedup (issue 43).
    if (c.variant === baseline || !run.speedups.some((s) => s.variant === c.variant && sameParams(s.params, c.params))) continue;
    if (best < 0 || c.summary.cv < run.cases[best]!.summary.cv) best = i;
  }
  assert.ok(best >= 0, `${run.lab}: no case besides the baseline`);
  return best;
}

async function verdicts(page: Page): Promise<Map<string, string>> {
  const table = page.locator('[data-rv-compare-table] table');
  await table.waitFor({ state: 'visible', timeout: 60_000 });
  const rows = await table.locator('tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [tr.getAttribute('data-case') ?? '', tr.lastElementChild?.getAttribute('data-verdict') ?? ''] as const),
  );
  return new Map(rows);
}

describe('results viewer with the course runs', () => {
  it('opens with a course run on show, and the picker lists every lab the course has a run of', async () => {
    const { page, errors } = await openViewer();
    const options = await page.locator('[data-rv-lab] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.deepEqual(options, runs.map((r) => r.lab));
    const first = runs[0]!;
    assert.equal(await page.locator('[data-rv-source]').textContent(), courseRunLabel(first));
    assert.match(courseRunLabel(first), /^(reference run|instructor's run): .+, P = \d+, Node v?[\d.]+, \d{4}-\d{2}-\d{2}/);
    assert.equal(await page.locator('[data-rv-title]').textContent(), first.results.title);
    const speedupRows = page.locator('table', { hasText: 'Speedups' }).locator('tbody tr');
    assert.equal(await speedupRows.count(), first.results.speedups.length);
    assert.ok(await page.locator('[data-rv-compare]').isHidden());
    // Every other lab's run, by the picker.
    for (const run of runs.slice(1)) {
      await page.locator('[data-rv-lab]').selectOption(run.lab);
      await waitForText(page, '[data-rv-title]', run.results.title);
      assert.equal(await page.locator('[data-rv-source]').textContent(), courseRunLabel(run));
      assert.equal(await page.locator('[data-rv-title]').textContent(), run.results.title);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('puts the learner\'s run beside the course run: a case with twice the time is "slower", the same samples are within noise', async (t) => {
    const run = runs[0]!.results;
    const i = quietCase(run);
    const slowed = scaledCase(run, i, 2);
    assert.deepEqual(checkResults(slowed), [], 'the made-up learner run should pass the validator');
    const { page, errors } = await openViewer();
    await openFile(page, asFile(slowed, 'mine.json'));
    const got = await verdicts(page);
    const slowCase = caseLabel(run.cases[i]!);
    t.diagnostic(`slowed ${slowCase}; verdicts: ${JSON.stringify([...got])}`);
    assert.equal(got.get(slowCase), 'slower');
    // The rest: within noise, the baseline's rows "the machine", and cases without a speedup no verdict.
    for (const [label, verdict] of got) if (label !== slowCase) assert.ok(['within-noise', 'machine', 'no-verdict'].includes(verdict), `${label}: ${verdict}`);
    assert.equal(got.size, run.cases.length);
    const row = page.locator(`[data-rv-compare-table] tr[data-case="${slowCase}"] td`);
    const cells = await row.allTextContents();
    assert.match(cells[3] ?? '', /^0\.500x \[[\d.]+, [\d.]+\]$/, 'the ratio is your speedup over the course run\'s, with its interval');
    assert.match(await page.locator('[data-rv-compare-summary]').textContent() ?? '', /^Against the (reference run|instructor's run): .*1 slower/);
    // The same machine and run: no caveat. The view switch shows either run.
    assert.ok(await page.locator('[data-rv-caveats]').isHidden());
    assert.match((await page.locator('[data-rv-source]').textContent()) ?? '', /^your run \(mine\.json\)/);
    await page.locator('[data-rv-view]').selectOption('course');
    await waitForText(page, '[data-rv-source]', courseRunLabel(runs[0]!));
    assert.equal(await page.locator('[data-rv-source]').textContent(), courseRunLabel(runs[0]!));
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('names what differs between the runs as caveats (another machine, --quick against a full run)', async () => {
    const other = structuredClone(runs[0]!.results);
    other.environment.cpuModel = 'Learner Laptop CPU';
    other.environment.hostname = 'learner-laptop';
    other.quick = !other.quick;
    const { page, errors } = await openViewer();
    await openFile(page, asFile(other, 'laptop.json'));
    await verdicts(page);
    const caveats = await page.locator('[data-rv-caveat-list] li').allTextContents();
    assert.ok(caveats.some((c) => /^the runs were on different machines \(.*Learner Laptop CPU\)/.test(c)), caveats.join('\n'));
    assert.ok(caveats.some((c) => /one run is --quick and the other is not/.test(c)), caveats.join('\n'));
    // Like with like: the reason why only the shared cases are compared comes first.
    assert.match((await page.locator('[data-rv-compare-summary]').textContent()) ?? '', /^Your run is a (--quick|full) run and the course's run a (full|--quick) one: .*only the \d+ cases both runs measured are compared/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('switches to the lab of the learner\'s file, and shows a run of a lab the course has none of alone', async () => {
    const { page, errors } = await openViewer();
    if (runs.length > 1) {
      const second = runs[1]!;
      await openFile(page, asFile(second.results, 'second.json'));
      assert.equal(await page.locator('[data-rv-lab]').inputValue(), second.lab);
      assert.match((await page.locator('[data-rv-note]').textContent()) ?? '', new RegExp(`^Your file is a run of the ${second.lab} lab, not ${runs[0]!.lab}: switched`));
      await verdicts(page);
    }
    const stray = { ...structuredClone(runs[0]!.results), lab: 'no-such-lab' };
    await openFile(page, asFile(stray, 'stray.json'));
    assert.equal(await page.locator('[data-rv-lab]').inputValue(), 'no-such-lab');
    assert.match((await page.locator('[data-rv-note]').textContent()) ?? '', /no run of it to compare with: it is shown alone/);
    assert.ok(await page.locator('[data-rv-compare]').isHidden());
    assert.equal(await page.locator('[data-rv-title]').textContent(), stray.title);
    // Back to a course lab: its run; the learner's lab stays in the picker, and picking it shows their run again.
    await page.locator('[data-rv-lab]').selectOption(runs[0]!.lab);
    await waitForText(page, '[data-rv-source]', courseRunLabel(runs[0]!));
    assert.equal(await page.locator('[data-rv-source]').textContent(), courseRunLabel(runs[0]!));
    await page.locator('[data-rv-lab]').selectOption('no-such-lab');
    assert.match((await page.locator('[data-rv-source]').textContent()) ?? '', /^your run \(stray\.json\)/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('refuses to compare a run whose numbers do not recompute, and says why under the warning', async () => {
    const tampered = structuredClone(runs[0]!.results);
    tampered.speedups[0]!.speedup = 99;
    const { page, errors } = await openViewer();
    await openFile(page, asFile(tampered, 'edited.json'));
    await page.waitForFunction(() => document.querySelector('[data-rv-compare-summary]')?.textContent?.startsWith('Not compared') === true, undefined, { timeout: 60_000 });
    assert.match((await page.locator('[data-rv-compare-summary]').textContent()) ?? '', /^Not compared: your run \(.*\) cannot be compared: its numbers do not recompute from its samples/);
    assert.match((await page.locator('[data-rv-warning]').textContent()) ?? '', /^Warning: do not trust the numbers in this file\./);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('says what analysis/values.json is and to pick results.json, instead of blaming an older harness', async () => {
    const { page, errors } = await openViewer();
    const values = readFileSync(join(runs[0]!.dir, 'analysis', 'values.json'));
    await page.locator('[data-rv-file]').setInputFiles({ name: 'values.json', mimeType: 'application/json', buffer: values });
    const alert = page.locator('[data-rv-error]');
    await alert.waitFor({ state: 'visible' });
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /this is the lab's analysis values \(analysis\/values\.json/);
    assert.match(text, /pick results\.json in the run folder instead/);
    assert.doesNotMatch(text, /older harness/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
