/**
 * The in-page WebAssembly rungs beside the Node lab's native rungs (src/lib/wasm-beside.ts, issue 28): GFLOP/s from
 * each run's own median, whatever unit a sample's work is in; the largest size both measured; the reason otherwise.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseResultsJson, type Results } from '@parallel-course/core';
import { findRunFolders } from '@parallel-course/harness/site.ts';
import { besideCells, matmulRates, wasmBesideNative } from '../src/lib/wasm-beside.ts';
import { REFERENCE } from './support/other-machine.ts';

const node = parseResultsJson(readFileSync(path.join(findRunFolders(REFERENCE, 'native-kernel').at(-1)!, 'results.json'), 'utf8'), 'native-kernel');

/** The Node run dressed as a page's run: `n` for `size`, a sample's work counted in products of 2 n^3 flop. */
function asBrowserRun(results: Results, keep: (n: number) => boolean): Results {
  const browser = structuredClone(results);
  browser.runtime = 'browser';
  browser.cases = browser.cases
    .filter((c) => c.params['size'] !== undefined && keep(Number(c.params['size'])))
    .map((c) => {
      const n = Number(c.params['size']);
      const { size: _size, ...rest } = c.params;
      return { ...c, variant: `page-${c.variant}`, params: { ...rest, n }, workPerSample: { amount: c.workPerSample.amount / (2 * n ** 3), unit: 'products' } };
    });
  return browser;
}

test('GFLOP/s from the median and its interval; the same work counted in flop or in products gives the same rate', () => {
  const rates = matmulRates(node);
  const march = rates.find((r) => r.rung === 'native-march' && r.n === 128)!;
  const c = node.cases.find((x) => x.variant === 'native-march' && x.params['size'] === 128)!;
  assert.equal(march.gflops, c.workPerSample.amount / c.summary.median / 1e6);
  assert.ok(march.low <= march.gflops && march.gflops <= march.high);
  assert.ok(!rates.some((r) => r.rung === 'triad'), 'the triad moves bytes, not flop');
  const page = matmulRates(asBrowserRun(node, () => true)).find((r) => r.rung === 'page-native-march' && r.n === 128)!;
  assert.ok(Math.abs(page.gflops - march.gflops) < 1e-9 * march.gflops);
  assert.equal(page.runtime, 'browser');
});

test('side by side at the largest size both runs measured, fastest first, either order of the files', () => {
  const browser = asBrowserRun(node, (n) => n === 128 || n === 64);
  for (const [a, b] of [[browser, node], [node, browser]] as const) {
    const beside = wasmBesideNative(a, b);
    assert.ok(beside.ok);
    assert.equal(beside.n, 128);
    assert.deepEqual(new Set(beside.rows.map((r) => r.runtime)), new Set(['browser', 'node']));
    assert.ok(beside.rows.every((r) => r.n === 128));
    assert.deepEqual(beside.rows.map((r) => r.gflops), [...beside.rows.map((r) => r.gflops)].sort((x, y) => y - x));
    assert.match(besideCells(beside.rows)[0]!.join(' | '), /^\S+ \| (this browser|Node) .* \| \d+ \| [\d.]+ \[[\d.]+, [\d.]+\]$/);
  }
});

test('why not: two runs of one runtime, another lab, no size in common', () => {
  assert.deepEqual(wasmBesideNative(node, node), { ok: false, reason: 'both runs are Node runs: open one of each' });
  const other = { ...node, lab: 'event-loop' };
  assert.equal((wasmBesideNative(other, asBrowserRun(node, () => true)) as { reason: string }).reason, 'both runs must be of the native-kernel lab');
  const apart = wasmBesideNative(asBrowserRun(node, () => false), node);
  assert.ok(!apart.ok);
  assert.match(apart.reason, /^no matrix size in common: the page measured n = , the Node run n = 2, 4, .*256/);
});
