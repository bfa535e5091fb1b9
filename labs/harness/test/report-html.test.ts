import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { jsonForScript, loadChartJsSource, renderHtmlReport } from '../src/report/html.ts';
import { escapeHtml, parseResults, type Results } from '@parallel-course/core';

const FIXTURE = new URL('./fixtures/results-event-loop.json', import.meta.url);
const HOSTILE = '<img src=x onerror=alert(1)>';
const HOSTILE_TITLE = '</script><script>alert(2)</script>';

function loadFixture(): Results {
  return parseResults(JSON.parse(readFileSync(FIXTURE, 'utf8')), 'results-event-loop.json');
}

/** The fixture with the variant "pool" renamed to an HTML payload everywhere, and a title that tries to end a script. */
function hostileCopy(): Results {
  const copy = structuredClone(loadFixture());
  const rename = (entry: { variant: string }) => {
    if (entry.variant === 'pool') entry.variant = HOSTILE;
  };
  copy.cases.forEach(rename);
  copy.speedups.forEach(rename);
  copy.correctness.forEach(rename);
  copy.amdahl.forEach(rename);
  if (copy.headline) rename(copy.headline);
  copy.title = HOSTILE_TITLE;
  copy.command = `npm run lab -- event-loop "${HOSTILE}"`;
  return parseResults(copy);
}

/** The text inside every <script ...>...</script> element. */
function scripts(html: string): Array<{ attributes: string; body: string }> {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attributes: m[1] ?? '', body: m[2] ?? '' }));
}

describe('escaping helpers', () => {
  it('escapes the five HTML-significant characters', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('writes JSON with no "<", ">" or "&" that JSON.parse reads back unchanged', () => {
    const value = { name: `${HOSTILE_TITLE} & <!-- \u2028` };
    const text = jsonForScript(value);
    assert.doesNotMatch(text, /[<>&\u2028]/);
    assert.deepEqual(JSON.parse(text), value);
  });
});

describe('renderHtmlReport', () => {
  const results = loadFixture();
  const html = renderHtmlReport(results);

  it('inlines chart.js and draws the charts from an embedded JSON block', () => {
    const chartJs = loadChartJsSource();
    assert.ok(chartJs.length > 100_000, 'chart.umd.min.js looks truncated');
    assert.ok(html.includes(chartJs), 'the chart.js bundle is not inlined verbatim');
    const blocks = scripts(html);
    assert.equal(blocks.length, 3);
    assert.match(blocks[0]?.attributes ?? '', /type="application\/json" id="chart-data"/);
    const specs = JSON.parse(blocks[0]?.body ?? '') as Array<{ id: string; config: { options: { animation: boolean } } }>;
    assert.deepEqual(
      specs.map((s) => s.id),
      ['speedup-vs-workers', 'speedup-per-case', 'time-distribution'],
    );
    assert.ok(specs.every((s) => s.config.options.animation === false));
    for (const spec of specs) assert.ok(html.includes(`<canvas id="chart-${spec.id}"`), spec.id);
  });

  it('loads nothing from the network', () => {
    assert.doesNotMatch(html, /\b(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    // Outside the inlined chart.js (its toDataURL( would match url\(): no stylesheet links, CSS fetches or images.
    const page = html.replace(/<script[^>]*>[\s\S]*?<\/script>/g, '');
    assert.doesNotMatch(page, /<link\b|@import|url\(|<img\b|<iframe\b/i);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  });

  it('has the correctness, speedups, times, environment and command sections', () => {
    for (const id of ['correctness', 'speedups', 'times', 'charts', 'observations', 'environment', 'command', 'notes']) {
      assert.match(html, new RegExp(`<section id="${id}">`), id);
    }
    assert.match(html, /<td>broken<\/td><td>FAIL<\/td>/);
    assert.match(html, /<td>pool \(workers=3\)<\/td><td>inline<\/td><td>1\.84x \[1\.72, 1\.92\]<\/td><td>61%<\/td>/);
    assert.match(html, /<td>inline \[baseline\]<\/td><td>41\.0 ms \[40\.7, 41\.5\]<\/td><td>976 requests\/s<\/td>/);
    assert.match(html, /<pre><code>npm run lab -- event-loop --impl solution --seed 42<\/code><\/pre>/);
    assert.match(html, /oversubscribed: more workers than available CPUs \(2 here\)/);
    assert.match(html, /SYNTHETIC TEST FIXTURE/);
  });

  it('follows each chart with its data table', () => {
    const figure = html.slice(html.indexOf('<figure class="chart" id="figure-speedup-vs-workers">'));
    const end = figure.indexOf('</figure>');
    assert.ok(end > 0);
    assert.match(figure.slice(0, end), /<canvas[\s\S]*<table>[\s\S]*<td>pool<\/td><td>3<\/td><td>1\.84<\/td>/);
  });

  it('escapes a hostile variant name and title everywhere', () => {
    const evil = renderHtmlReport(hostileCopy());
    assert.ok(!evil.includes(HOSTILE), 'the raw <img> payload reached the page');
    assert.ok(!evil.includes('<script>alert(2)'), 'the title closed a script element');
    assert.ok(evil.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(evil.includes('<title>event-loop: &lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;</title>'));
    const blocks = scripts(evil);
    // Still exactly the three scripts we wrote: nothing closed one early or opened another.
    assert.equal(blocks.length, 3);
    assert.doesNotMatch(blocks[0]?.body ?? '', /</);
    const specs = JSON.parse(blocks[0]?.body ?? '') as Array<{ config: { data: { datasets: Array<{ label: string }> } } }>;
    assert.ok(specs[0]?.config.data.datasets.some((d) => d.label === `${HOSTILE} (median speedup)`));
  });
});
