/** The in-page labs' pure parts, without a browser: sample sizing, the pool sweep, verdicts and the knee. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESOLUTION_SHARE, repetitionsFor, sampleTargetMs } from '../src/browser-lab/timer.ts';
import { verdict } from '../src/browser-lab/verdict.ts';
import { workerCounts } from '../src/browser-lab/worker-counts.ts';
import { MAX_ROUNDS, roundsFor, roundsOverride } from '../src/browser-lab/runner.ts';
import { expectedPrimes, handleRequests } from '../src/browser-lab/primes.ts';

describe('in-page lab sizing', () => {
  it('sizes a sample so the timer resolution is under 1 % of it, never under the floor', () => {
    assert.equal(sampleTargetMs(0.1), 0.1 / RESOLUTION_SHARE);
    assert.ok(0.1 <= 0.01 * sampleTargetMs(0.1));
    assert.equal(sampleTargetMs(0.005), 2, 'the floor holds when the timer is fine');
    assert.equal(sampleTargetMs(0.005, 20), 20);
  });

  it('repetitions reach the target from one repetition\'s time, at least one', () => {
    assert.equal(repetitionsFor(0.3, 10), 34);
    assert.equal(repetitionsFor(50, 10), 1);
    assert.equal(repetitionsFor(0, 10, 1000), 1000, 'a repetition below the timer\'s resolution gets the cap');
  });
});

describe('in-page lab rounds', () => {
  it('a run has its own rounds unless the page asks for a whole number from 1 to MAX_ROUNDS', () => {
    assert.deepEqual([roundsFor(true), roundsFor(false)], [5, 15]);
    assert.equal(roundsOverride('2'), 2);
    assert.equal(roundsOverride(String(MAX_ROUNDS)), MAX_ROUNDS);
    for (const text of [undefined, '', '0', String(MAX_ROUNDS + 1), '2.5', '-1', '1e3', ' 2', 'two']) {
      assert.equal(roundsOverride(text), null, `data-bl-rounds=${JSON.stringify(text)} is ignored`);
    }
  });
});

describe('in-page lab cases', () => {
  it('sweeps 1..P workers: every count to 8, then powers of two and P', () => {
    assert.deepEqual(workerCounts(2), [1, 2]);
    assert.deepEqual(workerCounts(12), [1, 2, 3, 4, 5, 6, 7, 8, 12]);
    assert.deepEqual(workerCounts(16), [1, 2, 3, 4, 5, 6, 7, 8, 16]);
  });

  it('the handler\'s prime counts agree with the sieve for any number of requests', () => {
    for (const reps of [1, 7, 64, 130]) assert.equal(handleRequests(0, reps), expectedPrimes(reps), `${reps} requests`);
  });

  it('a ratio\'s verdict follows where its interval lies against 1', () => {
    assert.equal(verdict([1.2, 1.5]), 'faster');
    assert.equal(verdict([0.5, 0.9]), 'slower');
    assert.equal(verdict([0.9, 1.3]), 'no clear difference');
  });
});
