/**
 * The in-page labs of episodes 06 (task granularity, three parts) and 08 (batched inference with onnxruntime-web on
 * WebAssembly and on WebGPU: the emulated SwiftShader adapter here) in chromium: quick runs to the end, every check
 * passes, the files validate with the Node validator. Cases that need isolation run on the isolated server and say
 * why they are off on the plain one. No speed is asserted.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateSubmission } from '@parallel-course/core';
import type { Results } from '@parallel-course/core';
import type { Page } from 'playwright-core';
import { watchErrors } from './support/site.ts';
import { openLabSite, quickRun, type LabSite } from './support/browser-lab.ts';
import { openFile } from './support/viewer.ts';
import { writeFileSync } from 'node:fs';

let site: LabSite;
before(async () => {
  site = await openLabSite();
});
after(async () => {
  await site?.close();
});

/** What the page recorded while a lab ran (watchFrames): long main-thread tasks and gaps between frames. */
interface FrameWatch {
  longestTaskMs: number;
  longTasks: number;
  longestGapMs: number;
  frames: number;
  /** The status line when each long task started and when the longest gap ended, for the diagnostic. */
  during: string[];
}

/**
 * Runs in the page: from the moment the episode-08 lab's state turns "running" until it ends, records every long
 * task (PerformanceObserver 'longtask': a main-thread task over 50 ms) and the gaps between animation frames.
 */
function watchFrames(): void {
  const watch: FrameWatch = { longestTaskMs: 0, longTasks: 0, longestGapMs: 0, frames: 0, during: [] };
  (window as unknown as { frameWatch: FrameWatch }).frameWatch = watch;
  const root = document.querySelector('[data-browser-lab="gpu-batching"]')!;
  const running = (): boolean => root.getAttribute('data-state') === 'running';
  const statusLog: [number, string][] = [];
  new MutationObserver(() => statusLog.push([performance.now(), root.querySelector('[data-bl-status]')?.textContent ?? ''])).observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  const statusAt = (t: number): string => statusLog.filter(([at]) => at <= t).at(-1)?.[1] ?? '';
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!running()) continue;
      watch.longTasks++;
      watch.during.push(`task ${Math.round(entry.duration)} ms at "${statusAt(entry.startTime)}"`);
      watch.longestTaskMs = Math.max(watch.longestTaskMs, Math.round(entry.duration));
    }
  }).observe({ type: 'longtask' });
  let last: number | null = null;
  const frame = (): void => {
    const now = performance.now();
    if (running()) {
      if (last !== null && now - last > watch.longestGapMs) {
        watch.longestGapMs = now - last;
        watch.during.push(`gap ${Math.round(now - last)} ms ending at "${statusAt(now)}"`);
      }
      last = now;
      watch.frames++;
    } else last = null;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

/**
 * The page's main-thread tasks in a Chromium trace (RunTask events on CrRendererMain): the longest by thread CPU time
 * (`tdur`, µs) and by wall time (`dur`, µs), in ms.
 */
function mainThreadTasks(trace: Buffer): { tasks: number; longestCpuMs: number; longestWallMs: number } {
  const parsed = JSON.parse(trace.toString('utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.['name'] === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.ph === 'X' && mains.has(`${e.pid}:${e.tid}`));
  return {
    tasks: tasks.length,
    longestCpuMs: Math.max(0, ...tasks.map((e) => (e.tdur ?? e.dur ?? 0) / 1000)),
    longestWallMs: Math.max(0, ...tasks.map((e) => (e.dur ?? 0) / 1000)),
  };
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: Record<string, unknown>;
}

function validated(text: string): Results {
  const check = validateSubmission(text, 'browser results');
  assert.deepEqual(check.problems, [], 'the Node validator accepts the browser\'s results file');
  assert.ok(check.results);
  assert.equal(check.results.runtime, 'browser');
  assert.ok(check.results.correctness.every((c) => c.passed));
  return check.results;
}

async function runPart(url: string, part: string): Promise<Results> {
  const page = await site.browser.newPage();
  const errors = watchErrors(page);
  await page.goto(`${url}06-task-granularity/`);
  await page.locator('[data-bl-part]').selectOption(part);
  const results = validated(await quickRun(page, 'task-granularity'));
  assert.deepEqual(errors, []);
  await page.close();
  return results;
}

describe('in-page lab, episode 06 (task granularity)', () => {
  it('the chunk-size sweep runs every chunk size over the pool, checked', async () => {
    const results = await runPart(site.plain, 'sweep');
    assert.deepEqual(results.cases.map((c) => c.params['chunk'] ?? 'main'), ['main', 1024, 4096, 16384, 65536, 262144, 1048576]);
    assert.deepEqual(results.headline?.params, { chunk: 1048576, workers: results.cpus.p }, 'the headline is the chunk where the pool can win');
  });

  it('hand-offs: clone and transfer everywhere, the SharedArrayBuffer only when isolated (and it says why not)', async () => {
    const plain = await runPart(site.plain, 'handoff');
    assert.ok(!plain.cases.some((c) => c.variant === 'sab'));
    assert.ok(plain.notes.some((n) => /sab .*not run: .*cross-origin isolated/.test(n)), plain.notes.join('\n'));
    const isolated = await runPart(site.isolated, 'handoff');
    assert.deepEqual([...new Set(isolated.cases.map((c) => c.variant))].sort(), ['clone', 'sab', 'transfer']);
    assert.deepEqual([...new Set(isolated.cases.map((c) => c.params['mib']))], [1, 16], 'the quick run hands off 1 and 16 MiB (the full run 1 to 64)');
  });

  it('the shared counter: the racy version is shown and never timed, the Atomics fixes are checked and timed', async () => {
    const results = await runPart(site.isolated, 'race');
    assert.deepEqual(results.cases.map((c) => c.variant), ['atomics-each', 'local-then-add']);
    const racy = results.notes.find((n) => n.startsWith('racy')) ?? '';
    // The race shows (updates lost), or the note says why it did not (issue 44): never a bare "run again".
    assert.match(racy, /the check failed, lost \d+ updates|no update was lost in \d+ tries of \d+ workers started together|this browser reports 1 CPU/, results.notes.join('\n'));
    assert.ok(!results.correctness.some((c) => c.variant === 'racy'), 'the demonstration is not a checked case of the file');
  });

  it('task graphs: the chain and the tree of futures over the pool, checked, each with the span and bounds of the graph it ran; the starting treeProduct says "not implemented"', async () => {
    const { results, shown, page } = await runGraph(null);
    assert.equal(results.lab, 'task-graph');
    assert.deepEqual(results.cases.map((c) => c.variant), ['main', 'flat', 'tree']);
    // The graphs as the page recorded them: 63 products each, the chain's span all of them, the tree's log2(64).
    assert.ok(results.notes.some((n) => /^chain: 63 tasks, span 63 tasks; .* ceiling min\(P, W\/S\) 1\.00,/.test(n)), results.notes.join('\n'));
    assert.ok(results.notes.some((n) => /^tree: 63 tasks, span 6 tasks; /.test(n)), results.notes.join('\n'));
    // The exercise not written yet: the learner's case fails its check kindly, marked as the Node harness marks it.
    const yours = results.correctness.find((c) => c.variant === 'your-graph');
    assert.equal(yours?.passed, false);
    assert.equal(yours?.notImplemented, true, JSON.stringify(yours));
    assert.match(yours?.reason ?? '', /^error: not implemented: treeProduct/);
    assert.match(shown, /not implemented: treeProduct/, shown);
    await page.close();
  });

  it('task graphs: a tree written in the page passes its check and runs, its span 6 shown beside the measured speedup and the bounds', async (t) => {
    const tree = 'function treeProduct(g, count) {\n  let level = Array.from({ length: count }, (_, k) => g.input(k));\n  while (level.length > 1) {\n    const next = [];\n    for (let k = 0; k + 1 < level.length; k += 2) next.push(g.multiply(level[k], level[k + 1]));\n    if (level.length % 2 === 1) next.push(level[level.length - 1]);\n    level = next;\n  }\n  return level[0];\n}';
    const { results, lead, shown, page } = await runGraph(tree);
    t.diagnostic(lead.join('\n'));
    assert.deepEqual(results.cases.map((c) => c.variant), ['main', 'flat', 'tree', 'your-graph']);
    assert.ok(results.correctness.every((c) => c.passed), JSON.stringify(results.correctness));
    assert.equal(results.impl, 'exercise');
    assert.equal(shown, '');
    assert.match(lead[0] ?? '', /^your graph: 63 tasks, span 6 tasks\. Measured \d\.\d+x the main thread \(95% interval [\d.]+ to [\d.]+: .+\); its span bound on P = \d+: ceiling min\(P, W\/S\) [\d.]+, Brent W\/\(W\/P \+ S\) [\d.]+\.$/, lead.join('\n'));
    assert.ok(results.notes.some((n) => /^your graph: 63 tasks, span 6 tasks; /.test(n)), results.notes.join('\n'));
    await page.close();
  });

  it('task graphs: a chain written in the page as treeProduct has span = work and a ceiling of 1; a stray multiply stops the run at its check', async () => {
    const chain = 'function treeProduct(g, count) {\n  let product = g.input(0);\n  for (let k = 1; k < count; k++) product = g.multiply(product, g.input(k));\n  return product;\n}';
    const { lead, page } = await runGraph(chain);
    assert.match(lead[0] ?? '', /^your graph: 63 tasks, span 63 tasks\. .* ceiling min\(P, W\/S\) 1\.00, /, lead.join('\n'));
    // A multiply that does not lead to the result: said with the Node lab's rule, and nothing runs.
    const root = page.locator('[data-browser-lab="task-granularity"]');
    await root.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText('function treeProduct(g, count) {\n  g.multiply(g.input(0), g.input(1));\n  return g.input(0);\n}');
    await root.getByRole('button', { name: 'Quick run' }).click();
    await page.waitForFunction(() => document.querySelector('[data-browser-lab="task-granularity"]')?.getAttribute('data-state') === 'code-error', null, { timeout: 20_000, polling: 100 });
    assert.match((await root.locator('[data-bl-code-error]').textContent()) ?? '', /multiply #0 does not lead to the result: every multiply\(\) you start must lead to the result/);
    await page.close();
  });
});

/** The draft key of episode 06's task-graph exercise (code-editor.ts draftKey). */
const GRAPH_DRAFT = 'parallel-course:draft:task-granularity:tree-product';

/**
 * Episode 06's part "task graphs" with `code` in the page's editor (null: the starting code), quick-run to the end:
 * the results file, the lead sentences and what the editor's error line shows.
 */
async function runGraph(code: string | null): Promise<{ results: Results; lead: string[]; shown: string; page: Page }> {
  const page = await site.browser.newPage();
  const errors = watchErrors(page);
  await page.goto(`${site.plain}06-task-granularity/`);
  await page.evaluate((key) => localStorage.removeItem(key), GRAPH_DRAFT);
  await page.reload();
  const root = page.locator('[data-browser-lab="task-granularity"]');
  await root.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 30_000 });
  assert.equal(await root.locator('.bl-exercise').isHidden(), true, 'the exercise is hidden in the other parts');
  await page.locator('[data-bl-part]').selectOption('graph');
  await root.locator('.bl-exercise summary').click();
  const content = root.locator('.cm-content');
  await content.waitFor();
  if (code !== null) {
    await content.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(code);
  }
  const check = validateSubmission(await quickRun(page, 'task-granularity'), 'browser results');
  // The starting code's case fails its check (not implemented), which the validator reports; nothing else may.
  const problems = check.problems.filter((p) => code !== null || !/^correctness: your-graph .* did not pass its check \(error: not implemented: treeProduct/.test(p));
  assert.deepEqual(problems, [], 'the Node validator accepts the browser\'s results file');
  assert.ok(check.results);
  const results = check.results;
  const lead = await root.locator('.bl-lead').allTextContents();
  const shown = (await root.locator('[data-bl-code-error]').textContent()) ?? '';
  assert.deepEqual(errors, []);
  return { results, lead, shown, page };
}

interface MeasuredRun {
  page: Page;
  results: Results;
  main: ReturnType<typeof mainThreadTasks>;
  frames: FrameWatch;
  errors: string[];
  requests: string[];
}

/** Episode 08's quick run, traced (Chromium's trace of the page's main thread) and watched from the page (watchFrames). */
async function measuredQuickRun(): Promise<MeasuredRun> {
  const page = await site.browser.newPage();
  const errors = watchErrors(page);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${site.isolated}08-gpu-batching/`);
  // Before the run: the download, with its size from the built files.
  const size = page.locator('[data-bl-download-size]');
  assert.match((await size.textContent())!, /first fetch about \d+\.\d MB from this site\s+when it sends them compressed \(gzip; \d+\.\d MB uncompressed: onnxruntime-web's WebAssembly runtime \d+\.\d MB/);
  const [files, gzipped] = [Number(await size.getAttribute('data-bl-download-size')), Number(await size.getAttribute('data-bl-download-gzip'))];
  assert.ok(files > 1e6 && gzipped > 1e6 && gzipped < files, `${gzipped} bytes gzipped of ${files}`);
  await page.locator('[data-browser-lab="gpu-batching"][data-state="ready"]').waitFor({ timeout: 30_000 });
  await page.evaluate(watchFrames);
  await site.browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  let traced: Buffer;
  let results: Results;
  try {
    results = validated(await quickRun(page, 'gpu-batching', 420_000));
  } finally {
    traced = await site.browser.stopTracing();
    if (process.env['TRACE_OUT']) writeFileSync(process.env['TRACE_OUT'], traced);
  }
  const frames = await page.evaluate(() => (window as unknown as { frameWatch: FrameWatch }).frameWatch);
  return { page, results, main: mainThreadTasks(traced), frames, errors, requests };
}

describe('in-page lab, episode 08 (batched inference)', () => {
  it('runs onnxruntime-web on wasm and on the emulated WebGPU adapter, checked, labelled, with the knee, off the main thread', async (t) => {
    let run = await measuredQuickRun();
    const report = (r: MeasuredRun): string =>
      `longest main-thread task ${r.main.longestCpuMs.toFixed(1)} ms of CPU (${r.main.longestWallMs.toFixed(1)} ms of wall time, over ${r.main.tasks} tasks); wall-clock watch in the page: longest long task ${r.frames.longestTaskMs} ms (${r.frames.longTasks} over 50 ms), longest gap between frames ${r.frames.longestGapMs.toFixed(1)} ms over ${r.frames.frames} frames; ${r.frames.during.join('; ')}`;
    t.diagnostic(`during the run: ${report(run)}`);
    if (run.main.longestCpuMs >= 100) {
      // One task over the limit can be the machine (a loaded VM charges page reclaim and stolen time to the thread
      // too): the run is repeated once, and a page that blocks its main thread fails both times.
      await run.page.close();
      run = await measuredQuickRun();
      t.diagnostic(`over 100 ms once; run again: ${report(run)}`);
    }
    const { page, results, main, frames, errors, requests } = run;
    assert.ok(frames.frames > 10, 'frames were drawn during the run');
    // The main thread's own CPU time per task: what the page's code blocks it for, whatever else the machine runs
    // (the wall-clock numbers also count the time the thread waited for a CPU on a loaded machine).
    assert.ok(main.tasks > 100, `the trace has the page's main-thread tasks (${main.tasks})`);
    assert.ok(main.longestCpuMs < 100, `inference is off the main thread: no main-thread task over 100 ms of CPU (longest ${main.longestCpuMs.toFixed(1)} ms)`);
    assert.deepEqual([...new Set(results.cases.map((c) => c.variant))].sort(), ['wasm', 'webgpu']);
    // The inference workers (one per backend, with onnxruntime-web's own threads) end with the run.
    for (let i = 0; i < 50 && page.workers().length > 0; i++) await new Promise((done) => setTimeout(done, 100));
    assert.deepEqual(page.workers().map((w) => w.url()), [], 'no worker is left running after the run');
    const gpu = results.environment.browser?.webgpu;
    assert.ok(gpu?.emulated, `SwiftShader is recorded as emulated: ${JSON.stringify(gpu)}`);
    // "emulated" wherever a webgpu number is shown: the case's params carry it, so every label does.
    assert.ok(results.cases.filter((c) => c.variant === 'webgpu').every((c) => c.params['adapter'] === 'emulated'));
    const shown = page.locator('[data-browser-lab="gpu-batching"] [data-bl-output]');
    const verdicts = await shown.locator('.bl-verdicts li').allTextContents();
    assert.ok(verdicts.length > 0 && verdicts.every((v) => /adapter=emulated/.test(v)), verdicts.join('\n'));
    const rows = await shown.locator('table').first().locator('tbody tr td:first-child').allTextContents();
    assert.ok(rows.filter((r) => r.startsWith('webgpu')).every((r) => /emulated/.test(r)), rows.join(', '));
    // The chart's labels are the same case labels as the table's rows (caseLabel); its axis is logarithmic.
    assert.equal(await shown.locator('.bl-chart canvas').getAttribute('data-bl-axis'), 'logarithmic', 'the batch sweep is drawn on a log axis');
    assert.ok(results.notes.some((n) => n.includes("emulated GPU on the CPU: correct, but its times are not a GPU's")));
    assert.ok(results.notes.some((n) => /^wasm: throughput .* knee at batch \d+/.test(n)));
    assert.ok(requests.every((u) => u.startsWith(site.isolated) || u.startsWith('blob:') || u.startsWith('data:')), `nothing from another origin: ${requests.filter((u) => !u.startsWith(site.isolated)).join(', ')}`);
    // The results viewer: every table row, list item and line that shows a webgpu number says "emulated".
    const viewer = await site.browser.newPage();
    const viewerErrors = watchErrors(viewer);
    await viewer.goto(`${site.isolated}results-viewer/`);
    await openFile(viewer, { name: 'results-gpu-batching-browser.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(results)) });
    const webgpuLines = await viewer.locator('[data-results-viewer]').evaluate((el) =>
      [...el.querySelectorAll('tr, li, p, figcaption, h2, h3')].filter((e) => e.querySelector('tr, li, p') === null).map((e) => e.textContent ?? '').filter((text) => /\bwebgpu\b/.test(text) && /\d/.test(text)),
    );
    assert.ok(webgpuLines.length > 0, 'the viewer shows the webgpu cases');
    assert.deepEqual(webgpuLines.filter((line) => !/emulated/.test(line)), [], 'every viewer line with a webgpu number says emulated');
    assert.deepEqual(viewerErrors, []);
    await viewer.close();
    t.diagnostic(results.notes.join('\n'));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
