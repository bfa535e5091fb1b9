/**
 * Build-time accessibility touches (issue 29, src/lib/accessible-html.ts): every wide table scrolls inside a
 * focusable, named region (a table with its own scroller is left alone), and every measured number's tooltip is
 * also listed as text, so keyboard and touch users reach its provenance.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { provenanceOf, textOf, wrapTables } from '../src/lib/accessible-html.ts';

test('wide tables: a focusable region named after the caption or the headers; own scrollers untouched', () => {
  const html = '<p>x</p><table><thead><tr><th>n</th><th>time &amp; rate</th></tr></thead></table><table data-own-scroll><caption>c</caption></table><table><caption>Cases <span>(run)</span></caption></table>';
  const out = wrapTables(html);
  assert.match(out, /<div class="table-scroll" tabindex="0" role="region" aria-label="Table 1: n, time &amp; rate"><table>/);
  assert.match(out, /<table data-own-scroll><caption>c<\/caption><\/table>/, 'MeasuredTable scrolls in its own figure');
  assert.match(out, /aria-label="Cases \(run\)"><table><caption>/);
  assert.equal((out.match(/role="region"/g) ?? []).length, 2);
});

test('provenance: each measured number and run-given verb with its tooltip, once, decoded', () => {
  const html = [
    '<span class="measured" data-measured data-lab="x" title="speedup of a &quot;pool&quot;&#10;x: reference run">1.90× [1.70, 2.09]</span>',
    '<td class="measured" data-measured title="median time">7.5 ms</td>',
    '<span class="measured" data-measured data-lab="x" title="speedup of a &quot;pool&quot;&#10;x: reference run">1.90× [1.70, 2.09]</span>',
    '<span class="compare" data-compare title="a: 1&#10;b: 2">within noise of</span>',
    '<span data-given title="Source: a datasheet">32 KiB</span>',
  ].join(' ');
  assert.deepEqual(provenanceOf(html), [
    { text: '1.90× [1.70, 2.09]', source: 'speedup of a "pool"; x: reference run' },
    { text: '7.5 ms', source: 'median time' },
    { text: 'within noise of', source: 'a: 1; b: 2' },
  ]);
  assert.equal(textOf('<b>a</b>&lt;b&gt; &#x41;'), 'a <b> A');
});
