import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
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

describe('fits only where the data carry them (issue 43)', () => {
  const referenceRun = (): Results => {
    const dir = new URL('../../../reference/event-loop/', import.meta.url);
    const run = readdirSync(dir).sort().at(-1)!;
    return parseResults(JSON.parse(readFileSync(new URL(`${run}/results.json`, dir), 'utf8')), 'reference event-loop');
  };

  it('a P = 2 run prints no Amdahl fit and no maximum speedup, and says why', () => {
    const results = referenceRun();
    assert.equal(results.cpus.available, 2);
    const md = renderMarkdownReport(results, {});
    assert.doesNotMatch(md, /Amdahl's law fits/);
    assert.doesNotMatch(md, /max speedup/i);
    assert.match(md, /pool: no Amdahl fit\. Up to P = 2 the sweep has 1 worker count above 1, and a one-parameter fit needs at least 2/);
  });

  it('an efficiency above 1 and a negative Karp-Flatt value are named with their usual causes', () => {
    const results = referenceRun();
    const i = results.speedups.findIndex((s) => s.workers === 2);
    results.speedups[i] = { ...results.speedups[i]!, efficiency: 1.1, efficiencyCi95: [0.97, 1.2], karpFlatt: -0.088 };
    const md = renderMarkdownReport(results, {});
    assert.match(md, /pool \(workers=2\): efficiency 110%, above 1 .*its Karp-Flatt serial fraction -0\.088 is negative.*its interval \\\[0\.97, 1\.2\\\] reaches 1, so noise alone may explain it/);
    assert.match(md, /a slow one-worker baseline .*cache effects .*or noise/);
  });

  it("a fit's maximum speedup is marked extrapolated, not measured", () => {
    const results = referenceRun();
    results.amdahl = [{ variant: 'pool', param: 'workers', params: {}, serialFraction: 0.1, maxSpeedup: 10, rmse: 0.01, points: 3 }];
    const md = renderMarkdownReport(results, {});
    assert.match(md, /max speedup \(1 \/ f, extrapolated, not measured\)/);
    assert.match(md, /pool: the Amdahl fit's maximum speedup, 1 \/ f = 10x, is extrapolated, not measured: the sweep measured up to 2 workers\./);
  });
});
