/** The in-page labs' pure parts, without a browser: sample sizing, the pool sweep, verdicts and the knee. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_REPETITIONS, RESOLUTION_SHARE, calibrateRepetitions, sampleTargetMs } from '../src/browser-lab/timer.ts';
import { verdict } from '../src/browser-lab/verdict.ts';
import { WorkerPool } from '../src/browser-lab/pool.ts';
import { workerCounts } from '../src/browser-lab/worker-counts.ts';
import { MAX_ROUNDS, roundsFor, roundsOverride } from '../src/browser-lab/runner.ts';
import { expectedPrimes, handleRequests } from '../src/browser-lab/primes.ts';
import { describeProblem, positionInFunctionStack, positionInMessage, positionInStack, TimeLimitError, withTimeLimit } from '../src/browser-lab/learner-code.ts';

describe('in-page lab sizing', () => {
  it('sizes a sample so the timer resolution is under 1 % of it, never under the floor', () => {
    assert.equal(sampleTargetMs(0.1), 0.1 / RESOLUTION_SHARE);
    assert.ok(0.1 <= 0.01 * sampleTargetMs(0.1));
    assert.equal(sampleTargetMs(0.005), 2, 'the floor holds when the timer is fine');
    assert.equal(sampleTargetMs(0.005, 20), 20);
  });

  /**
   * A clock that moves in `stepMs` steps (as a page's coarsened performance.now does), work that costs `costMs` a
   * repetition, and pauses: extra ms on the calls of those indices (a collection, another process).
   */
  function coarseClock(stepMs: number, costMs: number, pauses: Record<number, number> = {}, startMs = 0.05) {
    let trueMs = startMs;
    const calls: number[] = [];
    return {
      calls,
      now: () => Math.floor(trueMs / stepMs) * stepMs,
      run: async (reps: number) => {
        trueMs += reps * costMs + (pauses[calls.length] ?? 0);
        calls.push(reps);
      },
    };
  }

  it('repetitions make every sample reach the target, also when one repetition is under the clock\'s step', async () => {
    const step = 0.1;
    const targetMs = sampleTargetMs(step);
    for (const costMs of [0.001, 0.03, 0.07, 0.099, 0.3, 0.9, 1, 3, 9, 9.99]) {
      const clock = coarseClock(step, costMs);
      const reps = await calibrateRepetitions(clock.run, { targetMs, resolutionMs: step, now: clock.now });
      assert.ok(reps * costMs >= targetMs, `${costMs} ms a repetition: ${reps} repetitions make ${reps * costMs} ms, under the ${targetMs} ms target`);
      assert.ok(reps * costMs <= 1.25 * targetMs + costMs, `${costMs} ms a repetition: ${reps} repetitions make ${reps * costMs} ms, far past the ${targetMs} ms target`);
      const spentMs = clock.calls.reduce((a, b) => a + b, 0) * costMs;
      assert.ok(spentMs <= 5 * targetMs, `${costMs} ms a repetition: sizing ran ${spentMs} ms of work`);
    }
  });

  it('a pause during sizing neither caps the repetitions nor oversizes the sample', async () => {
    // The second call (10 repetitions, 0.1 ms of work) is held up 2 ms: its reading alone would say 10 repetitions
    // take 2 ms; the best of three says 0.1 ms, one clock step, which is not a measurement.
    for (const pausedCall of [0, 1, 2, 3]) {
      const clock = coarseClock(0.1, 0.01, { [pausedCall]: 2 });
      const reps = await calibrateRepetitions(clock.run, { targetMs: 10, resolutionMs: 0.1, now: clock.now });
      assert.ok(reps * 0.01 >= 10 && reps * 0.01 <= 1.25 * 10, `pause on call ${pausedCall}: ${reps} repetitions (${clock.calls.join(', ')})`);
    }
  });

  it('slow work is sized by one call; work the clock cannot see gets the cap, after a bounded climb', async () => {
    const slow = coarseClock(0.1, 50);
    assert.equal(await calibrateRepetitions(slow.run, { targetMs: 10, resolutionMs: 0.1, now: slow.now }), 1);
    assert.deepEqual(slow.calls, [1]);
    const free = coarseClock(0.1, 0);
    assert.equal(await calibrateRepetitions(free.run, { targetMs: 10, resolutionMs: 0.1, now: free.now }), MAX_REPETITIONS);
    assert.deepEqual(free.calls, [1, 10, 100, 1000, 10_000, 100_000, 1_000_000]);
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

  it('an interval around 1 says how many more samples it needs, from the run\'s own spread (issue 44)', () => {
    // Reference: episode 05's pool at 0.527x [0.133, 1.91] from 5 samples: half-width (ln 1.91 - ln 0.133) / 2 = 1.33225,
    // effect |ln 0.527| = 0.64055, n' = 5 x (1.33225 / 0.64055)^2 = 21.6 -> 22, so 17 more.
    assert.equal(
      verdict([0.133, 1.91], { speedup: 0.527, samples: 5, quick: true }),
      "no clear difference yet: from this run's spread it needs about 17 more samples per case (it has 5); Run (not Quick run) takes 15 per case; a quieter machine narrows the interval too",
    );
    assert.match(verdict([0.133, 1.91], { speedup: 0.527, samples: 15, quick: false }), /it has 15\); a quieter machine/);
    assert.equal(verdict([0.9, 1.1], { speedup: 1, samples: 5, quick: true }), 'no difference measured: the two took the same time here');
    assert.equal(verdict([1.2, 1.5], { speedup: 1.3, samples: 5, quick: true }), 'faster');
  });
});

describe('in-page lab worker pool', () => {
  /** A stand-in for a Web Worker: it keeps what was posted and lets the test answer, fail or garble a reply. */
  function fakeWorker() {
    const posted: { id: number }[] = [];
    const worker = {
      onmessage: null as ((event: { data: unknown }) => void) | null,
      onerror: null as ((event: { message: string }) => void) | null,
      onmessageerror: null as (() => void) | null,
      terminated: false,
      postMessage(message: { id: number }) {
        posted.push(message);
      },
      terminate() {
        worker.terminated = true;
      },
    };
    return { worker, posted, asWorker: worker as unknown as Worker };
  }
  /** 'pending' when the promise has not settled by the next macrotask: a request that would wait for ever. */
  const settled = (promise: Promise<unknown>): Promise<string> =>
    Promise.race([promise.then((v) => `resolved ${String(v)}`, (e: Error) => `rejected: ${e.message}`), new Promise<string>((done) => setTimeout(() => done('pending'), 20))]);

  it('a reply resolves its own request', async () => {
    const fake = fakeWorker();
    const pool = new WorkerPool<{ n: number }, number>(1, () => fake.asWorker);
    const request = pool.request(0, { n: 1 });
    fake.worker.onmessage!({ data: { id: fake.posted[0]!.id, result: 42 } });
    assert.equal(await settled(request), 'resolved 42');
  });

  it('a worker that failed before a request was made fails that request, not leaves it waiting', async () => {
    const fake = fakeWorker();
    const pool = new WorkerPool<{ n: number }, number>(1, () => fake.asWorker);
    fake.worker.onerror!({ message: 'SyntaxError in the worker script' });
    assert.equal(await settled(pool.request(0, { n: 1 })), 'rejected: a worker failed: SyntaxError in the worker script');
  });

  it('a reply that cannot be read (messageerror) fails what is pending and what comes after', async () => {
    const fakes = [fakeWorker(), fakeWorker()];
    let k = 0;
    const pool = new WorkerPool<{ n: number }, number>(2, () => fakes[k++]!.asWorker);
    const pending = pool.request(0, { n: 1 });
    fakes[0]!.worker.onmessageerror!();
    assert.match(await settled(pending), /^rejected: a worker's reply could not be read \(messageerror/);
    assert.match(await settled(pool.request(1, { n: 2 })), /^rejected: a worker's reply could not be read/);
  });

  it('terminate (Stop) ends every worker and rejects what is pending and what comes after', async () => {
    const fakes = [fakeWorker(), fakeWorker()];
    let k = 0;
    const pool = new WorkerPool<{ n: number }, number>(2, () => fakes[k++]!.asWorker);
    const pending = pool.request(1, { n: 1 });
    pool.terminate();
    assert.ok(fakes.every((f) => f.worker.terminated));
    assert.equal(await settled(pending), 'rejected: the pool was stopped');
    assert.equal(await settled(pool.request(0, { n: 2 })), 'rejected: the pool was stopped');
  });
});

describe('the learner\'s code: positions and the time limit (learner-code.ts)', () => {
  it('finds the learner\'s line and column in a worker script\'s stack, past the prefix, in Chromium and Firefox shapes', () => {
    const url = 'blob:http://127.0.0.1:4321/6f1c';
    const chromium = `TypeError: Cannot read properties of null (reading 'length')\n    at countPrimesInRange (${url}:5:16)\n    at ${url}:9:24`;
    assert.deepEqual(positionInStack(chromium, url, 1, 5), { line: 4, column: 16 });
    assert.deepEqual(positionInStack(`countPrimesInRange@${url}:3:7\n@${url}:9:3`, url, 1, 5), { line: 2, column: 7 });
    assert.equal(positionInStack(`f@${url}:9:3`, url, 1, 5), null, 'a frame past the code (the call the page adds) is not the learner\'s');
    assert.equal(positionInStack('at x (http://other/x.js:2:1)', url, 1, 5), null);
  });

  it('finds it in a new Function stack (two wrapper lines and the prefix off), and in the message the pool writes', () => {
    const stack = 'TypeError: x is not a function\n    at countPrimesInRange (eval at <anonymous> (http://h/w.js:9:17), <anonymous>:6:12)\n    at handleRequests (http://h/w.js:30:5)';
    assert.deepEqual(positionInFunctionStack(stack, 1, 10), { line: 3, column: 12 });
    assert.deepEqual(positionInMessage('error: TypeError: x is not a function (line 3, column 12)'), { line: 3, column: 12 });
    assert.equal(positionInMessage('counted 3 primes, the sieve counts 4'), null);
    assert.equal(describeProblem({ kind: 'syntax', message: 'SyntaxError: Unexpected token \';\'', at: { line: 3, column: 19 } }), 'Line 3, column 19: SyntaxError: Unexpected token \';\'');
  });

  it('a promise past its limit rejects with a message naming the limit, and the timeout hook runs after', async () => {
    let ended = false;
    const never = new Promise<number>(() => {});
    await assert.rejects(withTimeLimit(never, 20, 'Your handler', () => (ended = true)), (error: Error) => {
      assert.ok(error instanceof TimeLimitError);
      assert.equal(error.message, 'Your handler did not finish within the 0.02 s time limit for one call, so its worker was ended (an endless loop? check that every loop\'s condition moves towards its end)');
      return true;
    });
    assert.equal(ended, true);
    assert.equal(await withTimeLimit(Promise.resolve(7), 1000, 'x', () => assert.fail('no timeout for a quick call')), 7);
  });
});
