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
import { watchErrors } from './support/site.ts';
import { openLabSite, quickRun, type LabSite } from './support/browser-lab.ts';

let site: LabSite;
before(async () => {
  site = await openLabSite();
});
after(async () => {
  await site?.close();
});

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
    assert.deepEqual(results.cases.map((c) => c.params['chunk'] ?? 'main'), ['main', 1024, 4096, 16384, 65536]);
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
    assert.ok(results.notes.some((n) => n.startsWith('racy')), results.notes.join('\n'));
    assert.ok(!results.correctness.some((c) => c.variant === 'racy'), 'the demonstration is not a checked case of the file');
  });
});

describe('in-page lab, episode 08 (batched inference)', () => {
  it('runs onnxruntime-web on wasm and on the emulated WebGPU adapter, checked, labelled, with the knee', async (t) => {
    const page = await site.browser.newPage();
    const errors = watchErrors(page);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`${site.isolated}08-gpu-batching/`);
    const results = validated(await quickRun(page, 'gpu-batching', 420_000));
    assert.deepEqual([...new Set(results.cases.map((c) => c.variant))].sort(), ['wasm', 'webgpu']);
    const gpu = results.environment.browser?.webgpu;
    assert.ok(gpu?.emulated, `SwiftShader is recorded as emulated: ${JSON.stringify(gpu)}`);
    assert.ok(results.notes.some((n) => n.includes("emulated GPU on the CPU: correct, but its times are not a GPU's")));
    assert.ok(results.notes.some((n) => /^wasm: throughput .* knee at batch \d+/.test(n)));
    assert.ok(requests.every((u) => u.startsWith(site.isolated) || u.startsWith('blob:') || u.startsWith('data:')), `nothing from another origin: ${requests.filter((u) => !u.startsWith(site.isolated)).join(', ')}`);
    t.diagnostic(results.notes.join('\n'));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
