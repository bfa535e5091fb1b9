/** Pure functions of the site, against hand-computed values. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { amdahlLimit, amdahlSpeedup, caseLabel, formatInterval, formatSignificant, gustafsonSpeedup, paramsLabel, parseResults, speedupCurves } from '@parallel-course/core';
import { droppedFrames, longestGap } from '../src/lib/frame-gaps.ts';
import { countPrimesBelow } from '../src/lib/busy-work.ts';
import { chartPlan, maxWorkers, otherSpeedups, workerSeries } from '../src/lib/results-view.ts';
import { resolveBase } from '../src/lib/base-path.ts';
import { runWords, warningParts } from '../src/scripts/results-viewer/run-text.ts';
import { resolveRequestPath } from '../scripts/static-server.ts';

const close = (actual: number, expected: number, tolerance = 1e-9): void =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not within ${tolerance} of ${expected}`);

describe('amdahl and gustafson', () => {
  it('matches hand-computed values', () => {
    // 1 / (0.05 + 0.95/16) = 1 / 0.109375 = 9.142857...
    close(amdahlSpeedup(0.05, 16), 1 / 0.109375);
    // 1 / (0.1 + 0.9/64) = 1 / 0.1140625 = 8.767123...
    close(amdahlSpeedup(0.1, 64), 1 / 0.1140625);
    close(gustafsonSpeedup(0.05, 16), 15.25); // 16 - 0.05 * 15
    close(gustafsonSpeedup(0.1, 64), 57.7); // 64 - 0.1 * 63
    close(amdahlLimit(0.05), 20);
    assert.equal(amdahlLimit(0), Infinity);
  });

  it('gives 1 on one worker, p with no serial part, 1 with no parallel part', () => {
    close(amdahlSpeedup(0.3, 1), 1);
    close(gustafsonSpeedup(0.3, 1), 1);
    close(amdahlSpeedup(0, 8), 8);
    close(amdahlSpeedup(1, 8), 1);
    close(gustafsonSpeedup(1, 8), 1);
  });

  it('never lets Amdahl exceed Gustafson or the ideal line', () => {
    for (const point of speedupCurves(0.2, 32)) {
      assert.ok(point.amdahl <= point.gustafson + 1e-12 && point.gustafson <= point.ideal + 1e-12);
    }
    assert.equal(speedupCurves(0.2, 32).length, 32);
  });

  it('rejects a serial fraction outside [0, 1] and fewer than one worker', () => {
    assert.throws(() => amdahlSpeedup(1.5, 2), /serialFraction must be between 0 and 1.*got 1.5/);
    assert.throws(() => gustafsonSpeedup(0.1, 0), /workers must be a finite number >= 1, got 0/);
  });
});

describe('frame gaps', () => {
  it('finds the longest interval between timestamps', () => {
    assert.equal(longestGap([0, 16, 33, 350, 366]), 317);
    assert.equal(longestGap([5]), 0);
    assert.equal(longestGap([]), 0);
  });

  it('counts frames a 60 Hz display could not draw', () => {
    assert.equal(droppedFrames(16), 0);
    assert.equal(droppedFrames(33.4), 1); // floor(33.4 / 16.67) - 1 = 2 - 1
    assert.equal(droppedFrames(317), 18); // floor(317 / 16.67) - 1 = 19 - 1
  });
});

describe('busy work', () => {
  it('counts primes below a limit (pi(10) = 4, pi(100) = 25, pi(1e6) = 78498)', () => {
    assert.equal(countPrimesBelow(0), 0);
    assert.equal(countPrimesBelow(3), 1);
    assert.equal(countPrimesBelow(10), 4);
    assert.equal(countPrimesBelow(100), 25);
    assert.equal(countPrimesBelow(1_000_000), 78498);
  });
});

describe('results view', () => {
  const fixture = parseResults(
    JSON.parse(readFileSync(new URL('../../labs/harness/test/fixtures/results-event-loop.json', import.meta.url), 'utf8')),
  );

  it('labels parameters with sorted keys', () => {
    assert.equal(paramsLabel({ workers: 2, size: 'large' }), 'size=large, workers=2');
    assert.equal(paramsLabel({}), '');
    assert.equal(caseLabel({ variant: 'pool', params: { workers: 2 } }), 'pool (workers=2)');
    assert.equal(caseLabel({ variant: 'inline', params: {} }), 'inline');
    assert.equal(formatInterval([1.234, 5.678]), '1.23–5.68');
  });

  it('groups speedups by variant against workers, sorted by workers', () => {
    const series = workerSeries(fixture);
    assert.deepEqual([...series.keys()], ['pool']);
    assert.deepEqual(series.get('pool')?.map((p) => p.workers), [1, 2, 3, 4]);
    assert.deepEqual(otherSpeedups(fixture).map((s) => s.variant).sort(), ['chunked', 'threadpool']);
    assert.equal(maxWorkers(fixture), 4);
  });

  it('keeps other parameters apart so two sizes do not share one line', () => {
    const entry = fixture.speedups.find((s) => s.params['workers'] === 2);
    assert.ok(entry);
    const twoSizes = {
      ...fixture,
      speedups: [
        { ...entry, params: { workers: 2, size: 10 } },
        { ...entry, params: { workers: 1, size: 20 } },
      ],
    };
    assert.deepEqual([...workerSeries(twoSizes).keys()], ['pool (size=10)', 'pool (size=20)']);
  });

  it('formats numbers to three significant digits', () => {
    assert.equal(formatSignificant(9.142857), '9.14');
    assert.equal(formatSignificant(1234.5), '1230');
    assert.equal(formatSignificant(0), '0');
    assert.equal(formatSignificant(0.00012), '0.000120');
    assert.equal(formatSignificant(9.996), '10.0');
  });
});

describe('base path and static server', () => {
  it('normalises SITE_BASE', () => {
    assert.equal(resolveBase(undefined), '/');
    assert.equal(resolveBase(''), '/');
    assert.equal(resolveBase('course'), '/course/');
    assert.equal(resolveBase('/a/b'), '/a/b/');
    assert.throws(() => resolveBase('https://example.org/x'), /SITE_BASE must be a URL path such as "\/course\/"/);
  });

  it('serves only files under the root and the base path', () => {
    assert.equal(resolveRequestPath('/srv/site', '/course/', '/course/'), '/srv/site/index.html');
    assert.equal(resolveRequestPath('/srv/site', '/course/', '/course/a/?q=1'), '/srv/site/a/index.html');
    assert.equal(resolveRequestPath('/srv/site', '/course/', '/course/_astro/x.js'), '/srv/site/_astro/x.js');
    assert.equal(resolveRequestPath('/srv/site', '/course/', '/other/'), null);
    assert.equal(resolveRequestPath('/srv/site', '/course/', '/course/../../etc/passwd'), null);
    assert.equal(resolveRequestPath('/srv/site', '/course/', '/course/%2e%2e/%2e%2e/etc/passwd'), null);
  });
});

describe('worker series from declared sweeps', () => {
  it('a schema 3 run gives the curves of its worker sweeps, not a guess from params.workers', async () => {
    const { readdirSync } = await import('node:fs');
    const dir = new URL('../../reference/native-kernel/', import.meta.url);
    const run = readdirSync(dir).find((d) => /^\d{4}-/.test(d))!;
    const results = parseResults(JSON.parse(readFileSync(new URL(`${run}/results.json`, dir), 'utf8')));
    const series = workerSeries(results);
    // native-kernel has no params.workers at all: its threads sweep is what the declaration names.
    assert.ok(series.has('native-threads (size=256)'), [...series.keys()].join(', '));
    assert.deepEqual(series.get('native-threads (size=256)')!.map((p) => p.workers), [1, 2]);
    // The viewer's charts: the declared sweeps only; no chart against params.workers, no bar left outside them.
    const plan = chartPlan(results);
    assert.deepEqual(plan.sweeps.map((s) => s.sweep.param), ['size', 'threads']);
    assert.equal(plan.workers, null);
    assert.deepEqual(plan.others, []);
  });

  it('an older run without declared sweeps charts speedup against workers, with its fits, and the rest as bars', () => {
    const older = parseResults(
      JSON.parse(readFileSync(new URL('../../labs/harness/test/fixtures/results-event-loop.json', import.meta.url), 'utf8')),
    );
    const plan = chartPlan(older);
    assert.deepEqual(plan.sweeps, []);
    assert.deepEqual([...(plan.workers?.series.keys() ?? [])], ['pool']);
    assert.equal(plan.workers?.top, 4);
    assert.equal(plan.workers?.fits, older.amdahl);
    assert.deepEqual(plan.others.map((s) => s.variant).sort(), ['chunked', 'threadpool']);
  });
});

describe("the viewer's words of a run (run-text.ts, no DOM)", () => {
  const results = parseResults(
    JSON.parse(readFileSync(new URL('../../labs/harness/test/fixtures/results-event-loop.json', import.meta.url), 'utf8')),
  );

  it("gives the run's tables in order, each list after its lead-in", () => {
    const { summary, headline, tables } = runWords(results);
    assert.match(summary, /^Lab event-loop, implementation "/);
    assert.match(headline, /^Headline: /);
    const outline = tables.map((b) => (b.kind === 'table' ? b.caption : b.kind === 'list' ? `list of ${b.items.length}` : b.text));
    assert.deepEqual(outline, [
      'Speedups', 'Reading the speedups:', 'list of 2', 'Time per sample (ms)', 'Correctness check', 'Environment',
      'Notes from the run:', `list of ${results.notes.length}`,
    ]);
    const speedups = tables[0];
    assert.ok(speedups?.kind === 'table');
    assert.equal(speedups.rows.length, results.speedups.length);
    assert.deepEqual(speedups.headers, ['variant', 'parameters', 'speedup', '95% interval', 'efficiency', 'Karp-Flatt f', 'note']);
  });

  it('words a warning: its title (styled), why, and each finding', () => {
    const blocks = warningParts({ failedChecks: ['pool (workers=2) did not pass its check (x)'], mismatches: [], implausible: [] });
    assert.deepEqual(blocks[0], { kind: 'paragraph', text: 'Warning: do not trust the numbers in this file.', className: 'rv-warning-title' });
    assert.deepEqual(blocks.at(-1), { kind: 'list', items: ['failed check: pool (workers=2) did not pass its check (x)'] });
  });
});
