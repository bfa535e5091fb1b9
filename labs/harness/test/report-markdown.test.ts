import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { codeBlock, renderMarkdownReport } from '../src/report/markdown.ts';
import { escapeMarkdown, parseResults, type Results } from '@parallel-course/core';

const FIXTURE = new URL('./fixtures/results-event-loop.json', import.meta.url);

function loadFixture(): Results {
  return parseResults(JSON.parse(readFileSync(FIXTURE, 'utf8')), 'results-event-loop.json');
}

const CHART_FILES = {
  'speedup-vs-workers': 'charts/speedup-vs-workers.png',
  'speedup-per-case': 'charts/speedup-per-case.png',
  'time-distribution': 'charts/time-distribution.png',
};

describe('Markdown escaping', () => {
  it('turns markup and raw HTML into literal text', () => {
    assert.equal(escapeMarkdown('<img src=x onerror=alert(1)>'), '&lt;img src=x onerror=alert(1)&gt;');
    assert.equal(escapeMarkdown('[click](http://x) *a* | b_c'), '\\[click\\](http://x) \\*a\\* \\| b\\_c');
    assert.equal(escapeMarkdown('two\nlines'), 'two lines');
  });

  it('fences code with more backticks than the code contains', () => {
    assert.equal(codeBlock('npm run lab', 'sh'), '```sh\nnpm run lab\n```');
    assert.equal(codeBlock('echo ````x````'), '`````\necho ````x````\n`````');
  });
});

describe('renderMarkdownReport', () => {
  const results = loadFixture();
  const md = renderMarkdownReport(results, CHART_FILES);

  it('references every chart PNG by its relative file name', () => {
    assert.match(md, /^!\[Speedup vs workers\]\(charts\/speedup-vs-workers\.png\)$/m);
    assert.match(md, /^!\[Speedup per case\]\(charts\/speedup-per-case\.png\)$/m);
    assert.match(md, /^!\[Time per sample\]\(charts\/time-distribution\.png\)$/m);
  });

  it('gives a chart without a PNG as its table only', () => {
    const without = renderMarkdownReport(results, {});
    assert.doesNotMatch(without, /!\[/);
    assert.match(without, /### Speedup vs workers[\s\S]*\| pool \| 3 \| 1\.84 \|/);
  });

  it('has the same sections as the HTML report, with tables', () => {
    const headings = [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(headings, ['Correctness', 'Speedups', 'Times', 'Charts', 'Observations', 'Environment', 'Command', 'Notes']);
    assert.match(md, /^\| broken \| FAIL \| same response bodies, byte for byte \| 40 \| response 7 differs/m);
    assert.match(md, /^\| pool \(workers=3\) \| inline \| 1\.84x \\\[1\.72, 1\.92\\\] \| 61% \| 0\.32 \| oversubscribed \|$/m);
    assert.match(md, /^\| inline \\\[baseline\\\] \| 41\.0 ms \\\[40\.7, 41\.5\\\] \| 976 requests\/s \|/m);
    assert.match(md, /```sh\nnpm run lab -- event-loop --impl solution --seed 42\n```/);
  });

  it('keeps every table row on one line with the header column count', () => {
    const tables = md.split('\n\n').filter((block) => block.startsWith('| '));
    assert.ok(tables.length >= 8);
    for (const table of tables) {
      const lines = table.split('\n');
      const columns = (lines[0]?.match(/(?<!\\)\|/g) ?? []).length;
      for (const line of lines) assert.equal((line.match(/(?<!\\)\|/g) ?? []).length, columns, line);
    }
  });

  it('escapes a hostile variant name', () => {
    const copy = structuredClone(results);
    copy.cases[1]!.variant = '<img src=x onerror=alert(1)>|x';
    const evil = renderMarkdownReport(parseResults(copy), CHART_FILES);
    assert.ok(!evil.includes('<img'));
    assert.match(evil, /^\| &lt;img src=x onerror=alert\(1\)&gt;\\\|x \| /m);
  });
});
