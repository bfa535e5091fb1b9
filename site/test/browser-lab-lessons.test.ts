/**
 * The in-page labs show the lesson (issue 44, point 4), in their pure parts: episode 05's verdicts lead with latency
 * and throughput together; every median's interval is a whisker on its own bar; the race demonstration says why when
 * the race did not show. The browser tests (browser-lab.test.ts, browser-lab-06-08.test.ts) run the pages themselves.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Results } from '@parallel-course/core';
import { whiskers } from '../src/lib/error-bars.ts';
import { eventLoopLead } from '../src/browser-lab/labs/event-loop.ts';
import { raceMissed, RACE_ATTEMPTS } from '../src/browser-lab/labs/task-granularity.ts';

/** The parts of a finished episode-05 run the lead reads. */
function run05(p99: { inline: number; chunked: number; pool: number }, speedup: number, ci95: [number, number]): Results {
  const c = (variant: string, params: Record<string, number>, p99Ms: number) => ({ variant, params, samplesMs: [1, 2, 3, 4, 5], observations: { pingDelay: { unit: 'ms', description: '', samples: [], p50: 0, p99: p99Ms, max: p99Ms } } });
  return {
    quick: true,
    cases: [c('inline', {}, p99.inline), c('chunked', {}, p99.chunked), c('pool', { workers: 2 }, p99.pool)],
    speedups: [{ variant: 'pool', params: { workers: 2 }, speedup, ci95, baseline: 'inline' }],
  } as unknown as Results;
}

describe('episode 05 in the page: latency and throughput first', () => {
  it('names the /ping p99 inline, chunked and with the pool, then the pool\'s throughput with its verdict', () => {
    const lines = eventLoopLead(run05({ inline: 152, chunked: 1.8, pool: 0.9 }, 1.84, [1.6, 2.05]), 2, () => 'faster');
    assert.deepEqual(lines, [
      'Latency: while requests were served, a message to the page (its /ping) waited 152 ms at p99 with the work inline, 1.8 ms chunked, and 0.90 ms with a pool of 2 workers: the pool kept the page 169 times more responsive.',
      'Throughput: the pool of 2 served the same requests 1.84x as fast as inline (95% interval 1.60 to 2.05): faster.',
    ]);
  });

  it('says so when the run did not show the pool keeping the page responsive, and passes the samples to the verdict', () => {
    let samplesSeen = 0;
    const lines = eventLoopLead(run05({ inline: 20, chunked: 2, pool: 25 }, 0.56, [0.45, 0.79]), 2, (_s, samples) => {
      samplesSeen = samples;
      return 'slower';
    });
    assert.match(lines[0]!, /this run did not show the pool keeping the page more responsive\.$/);
    assert.match(lines[1]!, /0\.560x as fast as inline \(95% interval 0\.450 to 0\.790\): slower\.$/);
    assert.equal(samplesSeen, 5);
  });
});

describe('error bars on their own bars', () => {
  it('a vertical bar\'s whisker runs at its centre from the low end to the high end, with caps from its width', () => {
    // A value scale of 2 px per ms, 0 at y = 200: 10 ms -> 180, 14 ms -> 172.
    const toPixel = (v: number) => 200 - 2 * v;
    assert.deepEqual(whiskers([[10, 14], null, [5, 6]], [50, 100, 150], 24, toPixel, false), [
      { x1: 50, y1: 180, x2: 50, y2: 172, cap: 6 },
      { x1: 150, y1: 190, x2: 150, y2: 188, cap: 6 },
    ]);
  });

  it('a horizontal bar\'s whisker lies along x; caps stay between 3 and 10 px; a non-finite end draws nothing', () => {
    assert.deepEqual(whiskers([[1, 3]], [40], 80, (v) => 10 * v, true), [{ x1: 10, y1: 40, x2: 30, y2: 40, cap: 10 }]);
    assert.equal(whiskers([[1, 3]], [40], 4, (v) => v, true)[0]!.cap, 3);
    assert.deepEqual(whiskers([[1, Number.POSITIVE_INFINITY]], [40], 20, (v) => v, false), []);
  });
});

describe('the race demonstration', () => {
  it('says why the race did not show: one CPU, or workers that never ran at the same moment; the race is still there', () => {
    assert.equal(RACE_ATTEMPTS, 5);
    assert.match(raceMissed(1, 5), /this browser reports 1 CPU, so the page ran 1 worker, and one worker cannot race with itself/);
    const missed = raceMissed(2, 5);
    assert.match(missed, /^no update was lost in 5 tries of 2 workers started together: they did not run at the same moment here/);
    assert.match(missed, /A race that did not show is still there/);
  });
});
