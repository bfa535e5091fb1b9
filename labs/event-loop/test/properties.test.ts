/**
 * The check tests what each variant exists for, not only its bytes (issue 44, point 3): through the harness's
 * check stage, the traps episode 05 warns about fail with a message that explains them (a chunked handler that
 * "yields" with `await Promise.resolve()`, a threadpool handler that calls pbkdf2Sync, a pool created per request),
 * while the solution passes; and the judging rules on reports written by hand.
 */
import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkCase, checkLab, labCopyRoot } from '@parallel-course/harness/testing.ts';
import type { LabContext } from '@parallel-course/harness';
import lab from '../src/lab.ts';
import { checkVariantProperty, PROBE_ACCOUNT, TURNS_PER_RING } from '../src/properties.ts';
import { deriveRingSync } from '../src/work.ts';
import type { ProbeReport } from '../src/protocol.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TRAPS = fileURLToPath(new URL('./fixtures/traps', import.meta.url));
const SOLUTION = path.join(ROOT, 'solutions/event-loop');

function ctx(implDir: string): LabContext {
  return { impl: 'solution', implDir, rootDir: ROOT, quick: true, availableParallelism: 2, seed: 1 };
}

/** Runs the harness's check stage on one case of the lab (its check inputs, then its property). */
async function check(implDir: string, variant: string, workers?: number) {
  const c = ctx(implDir);
  const definition = lab.cases(c).find((d) => d.variant === variant && (workers === undefined || d.params['workers'] === workers));
  assert.ok(definition, `${variant} ${workers ?? ''}`);
  const inputs = (await lab.inputs({}, c)).check;
  const checked = await checkCase(definition, lab.comparator, { inputs, expected: inputs.map((i) => lab.expected(i)) }, c);
  if (checked.instance) await checked.instance.teardown();
  return checked.entry;
}

test("a chunked handler that 'yields' with await Promise.resolve() fails the check, and the message names the microtask queue and setImmediate", { timeout: 60_000 }, async () => {
  const entry = await check(TRAPS, 'chunked');
  assert.equal(entry.passed, false);
  // Its bytes were right: every check input passed; the property failed after them.
  assert.equal(entry.inputsChecked, 1);
  assert.equal(entry.firstMismatch, null);
  assert.match(entry.reason ?? '', /^the chunked handler does not let \/ping through while it serves a request: the event loop turned 0 times while one ring of 8 keys was derived/);
  assert.match(entry.reason ?? '', /microtask queue, which Node empties before the event loop gets back to I\/O/);
  assert.match(entry.reason ?? '', /End each turn with setImmediate/);
});

test("in a supervised check the judge's process decides the property: the trap's chunked handler fails there, naming handlers.ts", { timeout: 120_000 }, async (t) => {
  const root = labCopyRoot('event-loop');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  cpSync(path.join(TRAPS, 'handlers.ts'), path.join(root, 'exercises', 'event-loop', 'handlers.ts'));
  const outcome = await checkLab({ lab: 'event-loop', impl: 'exercise', rootDir: root, cpus: 1 });
  const chunked = outcome.correctness.find((e) => e.variant === 'chunked');
  assert.equal(chunked?.passed, false, JSON.stringify(chunked));
  // Its check input and its measured input passed; the property failed after them.
  assert.equal(chunked?.inputsChecked, 2);
  assert.match(chunked?.reason ?? '', /^the chunked handler does not let \/ping through while it serves a request: the event loop turned 0 times.* Look at exercises\/event-loop\/handlers\.ts\.$/s);
  assert.ok(outcome.correctness.find((e) => e.variant === 'inline')?.passed);
});

test('a threadpool handler on the main thread and a pool created per request fail the check, each with its reason', { timeout: 90_000 }, async () => {
  const threadpool = await check(TRAPS, 'threadpool');
  assert.equal(threadpool.passed, false);
  assert.match(threadpool.reason ?? '', /^the threadpool handler blocks the event loop: the event loop turned 0 times/);
  assert.match(threadpool.reason ?? '', /async crypto\.pbkdf2, not pbkdf2Sync/);
  const pool = await check(TRAPS, 'pool', 2);
  assert.equal(pool.passed, false);
  assert.match(pool.reason ?? '', /^the pool started \d+ worker threads? while requests were served, after set-up/);
  assert.match(pool.reason ?? '', /create it once, in createPoolHandler, not in derive/);
});

test("the solution's chunked, threadpool and pool handlers pass their property checks", { timeout: 90_000 }, async () => {
  for (const [variant, workers] of [['chunked'], ['threadpool'], ['pool', 1], ['pool', 4]] as const) {
    const entry = await check(SOLUTION, variant, workers);
    assert.equal(entry.passed, true, `${variant} ${workers ?? ''}: ${entry.reason}`);
  }
});

const report = (over: Partial<ProbeReport>): ProbeReport => ({
  body: 'x',
  error: null,
  turns: 8,
  ringMs: 21,
  longestBlockMs: 2.7,
  keyMs: 2.6,
  threadsAtReady: 0,
  threadsSince: 0,
  ...over,
});

test('the rules: a turn between every two keys; no thread where none belongs; a pool of exactly its size, started in set-up', () => {
  assert.equal(TURNS_PER_RING, 7);
  assert.equal(checkVariantProperty('chunked', 1, report({ turns: 7 })), null);
  // Yielding once per request is not chunking: a /ping still waits for most of a ring.
  assert.match(checkVariantProperty('chunked', 1, report({ turns: 1, longestBlockMs: 18.2 })) ?? '', /turned 1 time while .* longest stretch without a turn 18\.2 ms, one key takes about 2\.60 ms here\), where it needs at least 7/);
  assert.match(checkVariantProperty('chunked', 1, report({ threadsAtReady: 2 })) ?? '', /^the chunked handler started 2 worker threads/);
  assert.match(checkVariantProperty('threadpool', 1, report({ threadsSince: 1 })) ?? '', /needs no pool of its own/);
  assert.equal(checkVariantProperty('threadpool', 1, report({ turns: 5000 })), null);
  assert.equal(checkVariantProperty('pool', 2, report({ turns: 5000, threadsAtReady: 2 })), null);
  assert.match(checkVariantProperty('pool', 2, report({ threadsAtReady: 3 })) ?? '', /started 3 threads: it must have exactly 2/);
  assert.match(checkVariantProperty('pool', 2, report({ threadsAtReady: 2, threadsSince: 1 })) ?? '', /started 1 worker thread while requests were served.*minThreads equal to maxThreads/);
  assert.match(checkVariantProperty('pool', 2, report({ turns: 0, threadsAtReady: 2 })) ?? '', /^the pool handler blocks the event loop/);
  assert.equal(checkVariantProperty('inline', 1, report({ turns: 0 })), null);
});

test("the judge's side (judgeProperty, in the harness's process): the probe's report decides, a forged or malformed one fails", () => {
  const chunked = lab.cases(ctx(SOLUTION)).find((d) => d.variant === 'chunked');
  assert.ok(chunked?.judgeProperty);
  const ring = deriveRingSync(PROBE_ACCOUNT);
  // What the server saw decides, whatever the lab process concluded from it.
  assert.equal(chunked.judgeProperty(report({ body: ring, turns: 7 })), null);
  assert.match(chunked.judgeProperty(report({ body: ring, turns: 0 })) ?? '', /^the chunked handler does not let \/ping through/);
  // The judge derives the ring itself: a report of the right turns over a wrong ring fails.
  assert.equal(chunked.judgeProperty(report({ body: 'forged', turns: 7 })), `wrong body for account ${PROBE_ACCOUNT} in the property check`);
  assert.throws(() => chunked.judgeProperty!({ ...report({ body: ring }), turns: '7' }), /the server's probe report's turns is not a whole number >= 0: got "7"/);
  assert.throws(() => chunked.judgeProperty!('ok'), /the server's probe report is not an object of body, error, turns/);
  assert.equal(lab.cases(ctx(SOLUTION)).find((d) => d.variant === 'inline')?.judgeProperty, undefined);
});
