/**
 * The in-page labs (src/browser-lab/) in chromium: each runs a quick run to the end, every check passes, its results
 * file validates with the Node validator and opens in the results viewer; Stop stops; the learner's handler is checked
 * before it is timed; isolation is reported as it is. No speed is asserted: only what follows from the method.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateSubmission } from '@parallel-course/core';
import type { Results } from '@parallel-course/core';
import { watchErrors } from './support/site.ts';
import { openLabSite, quickRun, TEST_ROUNDS, type LabSite } from './support/browser-lab.ts';
import { openFile } from './support/viewer.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findRunFolders } from '@parallel-course/harness/site.ts';
import { REFERENCE } from './support/other-machine.ts';

let site: LabSite;
before(async () => {
  site = await openLabSite();
});
after(async () => {
  await site?.close();
});

/** Validates as `npm run report -- validate` does (schema, checks, every number recomputed) and returns the results. */
function validated(text: string): Results {
  const check = validateSubmission(text, 'browser results');
  assert.deepEqual(check.problems, [], 'the Node validator accepts the browser\'s results file');
  assert.ok(check.valid && check.results);
  return check.results;
}

function assertMethod(results: Results): void {
  assert.equal(results.runtime, 'browser');
  const b = results.environment.browser!;
  assert.ok(b, 'environment.browser is recorded');
  assert.ok(b.userAgent.length > 0 && b.hardwareConcurrency >= 1);
  assert.ok(b.timerResolutionMs > 0 && b.timerResolutionMs <= 0.01 * b.sampleTargetMs, `resolution ${b.timerResolutionMs} ms under 1 % of the sample target ${b.sampleTargetMs} ms`);
  assert.ok(results.correctness.every((c) => c.passed), JSON.stringify(results.correctness.filter((c) => !c.passed)));
  assert.match(results.command, new RegExp(`\\(quick\\) \\(${TEST_ROUNDS} rounds, set by the page\\)$`), 'the file says its rounds were not the quick run\'s own');
  for (const c of results.cases) {
    assert.equal(c.samplesMs.length, TEST_ROUNDS, `${c.variant}: one sample per round of the run`);
    assert.deepEqual(c.sampleRounds, [...Array(TEST_ROUNDS).keys()]);
    assert.ok(c.observations['hiddenTab'], 'hidden-tab marks are recorded');
  }
}

describe('in-page lab, episode 05 (event loop)', () => {
  it('runs to the end, isolated, checked; the file validates and opens in the viewer', async (t) => {
    const page = await site.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`${site.isolated}05-event-loop/`);
    const results = validated(await quickRun(page, 'event-loop'));
    assertMethod(results);
    const b = results.environment.browser!;
    assert.equal(b.crossOriginIsolated, true);
    const p = results.cpus.p;
    const variants = results.cases.map((c) => `${c.variant}${c.params['workers'] ?? ''}`);
    assert.ok(variants.includes('inline') && variants.includes('chunked') && variants.includes(`pool${p}`) && variants.includes(`your-handler${p}`), variants.join(', '));
    assert.ok(results.cases.every((c) => (c.observations['pingDelay']?.samples.length ?? 0) > 0), 'every case has ping delays');
    assert.ok(results.headline && results.headline.variant === 'pool' && results.headline.efficiency !== undefined);
    assert.ok(b.webgpu !== null || b.webgpuUnavailable !== null);
    t.diagnostic(`timer ${b.timerResolutionMs} ms isolated; pool efficiency at P=${p}: ${results.headline.efficiency} [${results.headline.efficiencyCi95}]; webgpu ${JSON.stringify(b.webgpu ?? b.webgpuUnavailable)}`);
    const viewer = await site.browser.newPage();
    await viewer.goto(`${site.isolated}results-viewer/`);
    await openFile(viewer, { name: 'results-event-loop-browser.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(results)) });
    // Like with like (issue 44): the in-page file (primes in Web Workers) against the course's Node run (PBKDF2 behind
    // HTTP) gets no verdict, the two side by side with the reason; its run details say "not recorded", never a blank.
    await viewer.waitForFunction(() => document.querySelector('[data-rv-compare-summary]')?.textContent?.startsWith('No verdict:') === true, undefined, { timeout: 60_000 });
    assert.match((await viewer.locator('[data-rv-compare-summary]').textContent()) ?? '', /^No verdict: your file is an in-page run .* and the course's run is a Node run/);
    assert.equal(await viewer.locator('[data-rv-compare-table] [data-verdict]').count(), 0);
    assert.ok(await viewer.locator('[data-rv-compare-table] table').isVisible());
    const environment = (await viewer.locator('table', { hasText: 'Node / V8 / libuv' }).textContent()) ?? '';
    assert.match(environment, /none: an in-page run/);
    assert.match(environment, /CPUnot recorded/);
    assert.doesNotMatch(environment, / \/ \/ |vs , /);
    assert.deepEqual(errors, []);
    await viewer.close();
    await page.close();
  });

  it('Stop ends a full run at once and records nothing', async () => {
    const page = await site.browser.newPage();
    await page.goto(`${site.plain}05-event-loop/`);
    const root = page.locator('[data-browser-lab="event-loop"]');
    await root.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
    await root.getByRole('button', { name: 'Full run' }).click();
    await page.waitForFunction(() => /round/.test(document.querySelector('[data-browser-lab="event-loop"] [data-bl-status]')?.textContent ?? ''), null, { timeout: 120_000 });
    const stoppedAt = Date.now();
    await root.getByRole('button', { name: 'Stop' }).click();
    await page.waitForFunction(() => document.querySelector('[data-browser-lab="event-loop"]')?.getAttribute('data-state') === 'stopped', null, { timeout: 10_000 });
    assert.ok(Date.now() - stoppedAt < 10_000);
    assert.equal(await root.locator('[data-bl-download]').count(), 0, 'a stopped run offers no results file');
    await page.close();
  });

  it('the learner\'s handler is checked before it is timed: a wrong one is never timed', async () => {
    const page = await site.browser.newPage();
    await page.goto(`${site.plain}05-event-loop/`);
    const root = page.locator('[data-browser-lab="event-loop"]');
    await root.locator('summary').click();
    // Typed into the code editor (CodeMirror), as a learner would paste it.
    await root.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('function countPrimesInRange(start, end) { return end - start; }');
    const text = await quickRun(page, 'event-loop');
    const check = validateSubmission(text, 'browser results');
    const results = check.results!;
    assert.equal(results.impl, 'exercise');
    const mine = results.correctness.find((c) => c.variant === 'your-handler');
    assert.ok(mine && !mine.passed && mine.failedAt?.stage === 'check', JSON.stringify(mine));
    assert.ok(!results.cases.some((c) => c.variant === 'your-handler'), 'the failed handler was not timed');
    assert.ok(check.problems.some((p) => p.includes('your-handler')), 'the validator names the failed case');
    assert.equal(results.environment.browser?.crossOriginIsolated, false);
    assert.match((await root.locator('[data-bl-code-error]').textContent())!, /^Your code failed the check: counted \d+ primes, the sieve counts \d+/, 'the editor says why');
    await page.close();
  });
});

/** GFLOP/s of a native-kernel case's median sample (2 n^3 flop per product), with the median's 95 % interval. */
function gflops(c: Results['cases'][number]): string {
  const flop = 2 * Number(c.params['n']) ** 3 * c.workPerSample.amount;
  return `${(flop / c.summary.median / 1e6).toFixed(2)} [${(flop / c.summary.ci95[1] / 1e6).toFixed(2)}, ${(flop / c.summary.ci95[0] / 1e6).toFixed(2)}]`;
}

/**
 * The WebAssembly SIMD peak probe of an episode 07 run: recorded on the headline rung (wasm-blocked), said to be relaxed
 * SIMD's fused multiply-add (Chromium has it), and every timed rung set against it in one line each.
 */
function assertPeakProbe(results: Results): number {
  assert.deepEqual(results.headline && { variant: results.headline.variant, params: results.headline.params }, { variant: 'wasm-blocked', params: { n: 128 } });
  const probed = results.cases.filter((c) => c.observations['wasm-simd-peak'] !== undefined);
  assert.deepEqual(probed.map((c) => c.variant), ['wasm-blocked'], 'the probe is recorded once, on the headline rung');
  const peak = probed[0]!.observations['wasm-simd-peak']!;
  assert.equal(peak.unit, 'GFLOP/s');
  assert.equal(peak.samples.length, 10);
  assert.ok(peak.max !== null && peak.max > 0 && peak.samples.every((x) => Number.isFinite(x) && x > 0), JSON.stringify(peak));
  assert.match(peak.description, /relaxed SIMD fused multiply-add \(f64x2\.relaxed_madd\)/, 'Chromium has relaxed SIMD, and the probe says it used it');
  assert.ok(results.notes.some((n) => /^wasm-blocked and the peak probe multiply and add with relaxed SIMD fused multiply-add/.test(n)), 'the page says which arithmetic');
  const head = results.notes.findIndex((n) => n.startsWith('WebAssembly SIMD peak (probe, best of 10 on the page\'s main thread, fused multiply-add): '));
  assert.ok(head >= 0, results.notes.join('\n'));
  const lines = results.notes.slice(head + 1, head + 1 + results.cases.length);
  assert.deepEqual(lines.map((l) => l.split(' ')[0]), results.cases.map((c) => c.variant), 'one line per rung, in order');
  for (const [i, c] of results.cases.entries()) {
    const workers = c.workers ?? 1;
    const percent = Math.round((100 * (2 * 128 ** 3 * c.workPerSample.amount)) / c.summary.median / 1e6 / (workers * peak.max!));
    assert.match(lines[i]!, new RegExp(`: [\\d.]+ GFLOP/s, ${percent}% of the wasm probe${workers > 1 ? ` x ${workers}` : ''}$`), lines[i]);
  }
  return peak.max!;
}

describe('in-page lab, episode 07 (matrix product)', () => {
  it('runs JS, typed arrays, WebAssembly, SIMD and blocked SIMD, checked, then probes the SIMD peak; not isolated, the threaded rung is listed as not run, with why', async (t) => {
    const page = await site.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`${site.plain}07-native-kernel/`);
    const off = page.locator('[data-browser-lab="native-kernel"] [data-bl-off] li', { hasText: /^wasm-blocked-threads.*: off in this browser/ });
    await off.first().waitFor({ timeout: 30_000 });
    assert.equal(await off.count(), 1, 'the page says once, before the run, that the threaded rung is off');
    assert.match((await off.textContent())!, /off in this browser, the page is not cross-origin isolated/);
    const results = validated(await quickRun(page, 'native-kernel'));
    assertMethod(results);
    assert.deepEqual(results.cases.map((c) => c.variant), ['js-naive', 'typed', 'wasm', 'wasm-simd', 'wasm-blocked']);
    const notRun = results.notes.filter((n) => /^wasm-blocked-threads .* was not run: /.test(n));
    assert.equal(notRun.length, 1, results.notes.join('\n'));
    assert.match(notRun[0]!, /"threads":\d+.* was not run: the page is not cross-origin isolated, .*SharedArrayBuffer/);
    assert.ok(!results.correctness.some((c) => c.variant === 'wasm-blocked-threads'), 'a rung not run has no check entry');
    const peak = assertPeakProbe(results);
    const simd = results.cases.find((c) => c.variant === 'wasm-simd')!;
    const blocked = results.cases.find((c) => c.variant === 'wasm-blocked')!;
    t.diagnostic(`timer ${results.environment.browser?.timerResolutionMs} ms not isolated; n=${simd.params['n']}: wasm-simd ${gflops(simd)}, wasm-blocked ${gflops(blocked)} GFLOP/s; SIMD peak probe ${peak.toFixed(2)} GFLOP/s`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('isolated, the blocked kernel also runs on 1 and P Web Workers sharing one memory, every sample checked; the file validates', async (t) => {
    const page = await site.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`${site.isolated}07-native-kernel/`);
    const results = validated(await quickRun(page, 'native-kernel'));
    assertMethod(results);
    assert.equal(results.environment.browser?.crossOriginIsolated, true);
    const p = Math.min(16, results.environment.browser!.hardwareConcurrency);
    const threaded = results.cases.filter((c) => c.variant === 'wasm-blocked-threads');
    assert.deepEqual(threaded.map((c) => c.params), [...new Set([1, p])].map((threads) => ({ n: 128, threads })), 'the thread counts are recorded as params');
    assert.ok(results.correctness.filter((c) => c.variant === 'wasm-blocked-threads').every((c) => c.passed && c.inputsChecked >= 1));
    assert.ok(!results.notes.some((n) => /was not run/.test(n)), results.notes.join('\n'));
    if (p > 1) {
      const s = results.speedups.find((e) => e.variant === 'wasm-blocked-threads' && e.params['threads'] === p)!;
      assert.equal(s.workers, p);
      assert.deepEqual(s.efficiencyOver, { variant: 'wasm-blocked-threads', params: { n: 128, threads: 1 } }, 'efficiency is over the rung on one worker');
    }
    for (const c of threaded) {
      // The rung's own observations of every timed sample: the rate of each worker that claimed a panel (all of them
      // unless one woke after the others had taken every panel), the hand-off, and the busiest worker's share.
      const threads = Number(c.params['threads']);
      const rates = c.observations['worker-gflops']?.samples.length ?? 0;
      assert.ok(rates >= TEST_ROUNDS && rates <= TEST_ROUNDS * threads, `${JSON.stringify(c.params)}: ${rates} rates, one per worker that computed, per sample`);
      assert.equal(c.observations['handoff']?.samples.length, TEST_ROUNDS);
      assert.ok(c.observations['worker-gflops']!.samples.every((x) => x > 0 && Number.isFinite(x)));
      const busiest = c.observations['busiest-share']?.samples ?? [];
      assert.equal(busiest.length, TEST_ROUNDS);
      assert.ok(busiest.every((x) => x >= 100 / threads - 1e-9 && x <= 100 + 1e-9), `${JSON.stringify(c.params)}: busiest shares ${busiest}`);
      if (threads === 1) assert.ok(busiest.every((x) => x === 100), 'one worker computes every column');
    }
    if (p > 1) assert.equal(results.notes.filter((n) => new RegExp(`^wasm-blocked-threads on ${p} workers: efficiency .* Hand-off: median .* Each worker computed at a median`).test(n)).length, 1, results.notes.join('\n'));
    const peak = assertPeakProbe(results);
    const blocked = results.cases.find((c) => c.variant === 'wasm-blocked')!;
    const efficiency = results.speedups.find((e) => e.variant === 'wasm-blocked-threads' && e.params['threads'] === p)?.efficiency;
    t.diagnostic(`isolated, n=${blocked.params['n']}: SIMD peak probe ${peak.toFixed(2)} GFLOP/s; wasm-blocked ${gflops(blocked)} GFLOP/s; ${threaded.map((c) => `wasm-blocked-threads x${c.params['threads']} ${gflops(c)} GFLOP/s`).join('; ')}; efficiency at ${p}: ${efficiency?.toFixed(2)}`);
    const viewer = await site.browser.newPage();
    const viewerErrors = watchErrors(viewer);
    await viewer.goto(`${site.isolated}results-viewer/`);
    await openFile(viewer, { name: 'results-native-kernel-browser.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(results)) });
    assert.deepEqual(viewerErrors, [], 'the viewer opens the file with the threaded cases');
    // Beside the native addon (issue 28): first the course's Node run (said to be not the learner's), then the
    // learner's own Node run once that file is opened too; GFLOP/s per rung at n = 128, both runtimes in one table.
    const beside = viewer.locator('[data-rv-beside]');
    await beside.waitFor({ state: 'visible', timeout: 30_000 });
    await viewer.waitForFunction(() => /^n = 128: /.test(document.querySelector('[data-rv-beside-summary]')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.match((await viewer.locator('[data-rv-beside-summary]').textContent())!, /beside the course's Node run .*not your machine's/);
    const besideRungs = async () => viewer.locator('[data-rv-beside-table] tbody tr td:first-child').allTextContents();
    for (const rung of ['wasm-simd', 'wasm-blocked', 'wasm-blocked-threads', 'native-march', 'ts-typed']) assert.ok((await besideRungs()).includes(rung), `${rung} in ${await besideRungs()}`);
    const nodeRun = readFileSync(path.join(findRunFolders(REFERENCE, 'native-kernel').at(-1)!, 'results.json'));
    await openFile(viewer, { name: 'my-node-run.json', mimeType: 'application/json', buffer: nodeRun });
    await viewer.waitForFunction(() => /beside your file results-native-kernel-browser\.json/.test(document.querySelector('[data-rv-beside-summary]')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.ok((await besideRungs()).includes('wasm-simd') && (await besideRungs()).includes('native-march'));
    assert.deepEqual(viewerErrors, []);
    assert.deepEqual(errors, []);
    await viewer.close();
    await page.close();
  });

  it('Stop during the threaded rung ends the run at once and terminates its workers', async () => {
    const page = await site.browser.newPage();
    await page.goto(`${site.isolated}07-native-kernel/`);
    const root = page.locator('[data-browser-lab="native-kernel"]');
    await root.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
    await root.getByRole('button', { name: 'Full run' }).click();
    await page.waitForFunction(() => /round .*wasm-blocked-threads/.test(document.querySelector('[data-browser-lab="native-kernel"] [data-bl-status]')?.textContent ?? ''), null, { timeout: 180_000, polling: 20 });
    assert.ok(page.workers().length >= 1, 'the threaded rung\'s workers are running');
    const stoppedAt = Date.now();
    await root.getByRole('button', { name: 'Stop' }).click();
    await page.waitForFunction(() => document.querySelector('[data-browser-lab="native-kernel"]')?.getAttribute('data-state') === 'stopped', null, { timeout: 10_000 });
    assert.ok(Date.now() - stoppedAt < 10_000);
    for (let i = 0; i < 50 && page.workers().length > 0; i++) await new Promise((done) => setTimeout(done, 100));
    assert.equal(page.workers().length, 0, 'every worker was terminated');
    assert.equal(await root.locator('[data-bl-download]').count(), 0, 'a stopped run offers no results file');
    await page.close();
  });
});

describe('in-page lab, a hidden tab', () => {
  it('marks every sample taken while the page was hidden, and says so', async () => {
    const page = await site.browser.newPage();
    await page.goto(`${site.plain}07-native-kernel/`);
    // Headless chromium never hides the page: make it report hidden, as a background tab does.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const results = validated(await quickRun(page, 'native-kernel'));
    for (const c of results.cases) assert.deepEqual(c.observations['hiddenTab']?.samples, Array(TEST_ROUNDS).fill(1), c.variant);
    assert.ok(results.notes.some((n) => /samples were taken while the tab was hidden/.test(n)), results.notes.join('\n'));
    await page.close();
  });
});
