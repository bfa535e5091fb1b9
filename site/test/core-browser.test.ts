/**
 * The core (@parallel-course/core) runs in a browser page and in a Web Worker, not only in Node: bundled for the
 * browser (esbuild, platform "browser": a node: import would fail the bundle), loaded into Chromium, it parses a
 * committed reference run (a version 3 file) and a version 2 fixture through the upgrade steps (both read as version
 * 4), and recomputes every number of the reference run from its samples, in the page and in a Worker.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { findRunFolders } from '@parallel-course/harness/site.ts';
import { findBrowser } from './support/browser.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BROWSER = findBrowser();
const [RUN] = findRunFolders(path.join(ROOT, 'reference'), 'event-loop');
const REFERENCE = readFileSync(path.join(RUN!, 'results.json'), 'utf8');
const V2_FIXTURE = readFileSync(path.join(ROOT, 'labs/harness/test/fixtures/results-event-loop.json'), 'utf8');

/** What the page and the worker report: the same function, run where it is loaded. */
const PROBE = `
function probe(reference, v2) {
  const checked = core.validateSubmission(reference, 'reference');
  const upgraded = core.parseResultsJson(v2, 'v2 fixture');
  return {
    valid: checked.valid,
    problems: checked.problems.slice(0, 5),
    version: checked.results && checked.results.schemaVersion,
    sweeps: checked.results ? checked.results.sweeps.map((s) => s.param) : [],
    upgradedVersion: upgraded.schemaVersion,
    upgradedBaseline: upgraded.baseline,
    formatted: core.formatSignificant(9.996),
    hasProcess: typeof process !== 'undefined',
  };
}`;

async function bundle(): Promise<string> {
  const out = await build({
    stdin: { contents: "import * as core from '@parallel-course/core'; globalThis.core = core;", resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

test('the core validates a committed reference run in a Chromium page and in a Web Worker', { skip: BROWSER instanceof Error ? BROWSER.message : false, timeout: 180_000 }, async (t) => {
  const core = await bundle();
  const files: Record<string, [string, string]> = {
    '/': ['text/html', '<!doctype html><meta charset="utf-8"><title>core</title><script src="/core.js"></script>'],
    '/core.js': ['text/javascript', `${core}\n${PROBE}`],
    '/worker.js': ['text/javascript', `importScripts('/core.js');\nself.onmessage = (e) => self.postMessage(probe(e.data.reference, e.data.v2));`],
  };
  const server: Server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    res.writeHead(file ? 200 : 404, { 'content-type': file?.[0] ?? 'text/plain' }).end(file?.[1] ?? 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  t.after(() => new Promise<void>((done) => server.close(() => done())));
  const { port } = server.address() as { port: number };

  const browser = await chromium.launch({ executablePath: BROWSER as string, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${port}/`);

  const expected = { valid: true, problems: [], version: 5, sweeps: ['workers'], upgradedVersion: 5, upgradedBaseline: 'inline', formatted: '10.0', hasProcess: false };
  const inPage = await page.evaluate(([reference, v2]) => (globalThis as unknown as { probe: (a: string, b: string) => unknown }).probe(reference!, v2!), [REFERENCE, V2_FIXTURE]);
  assert.deepEqual(inPage, expected, 'in the page');
  const inWorker = await page.evaluate(
    ([reference, v2]) =>
      new Promise((resolve, reject) => {
        const worker = new Worker('/worker.js');
        worker.onmessage = (e) => resolve(e.data);
        worker.onerror = (e) => reject(new Error(e.message));
        worker.postMessage({ reference, v2 });
      }),
    [REFERENCE, V2_FIXTURE],
  );
  assert.deepEqual(inWorker, expected, 'in a Web Worker');
  assert.deepEqual(errors, []);
});
