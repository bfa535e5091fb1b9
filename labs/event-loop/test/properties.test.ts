/**
 * The check tests what each variant exists for, not only its bytes (issue 44, point 3): through the harness's
 * check stage, the traps episode 05 warns about fail with a message that explains them (a chunked handler that
 * "yields" with `await Promise.resolve()`, a threadpool handler that calls pbkdf2Sync, a pool created per request),
 * while the solution passes; and the judging rules on reports written by hand.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkCase, checkLab, labCopyRoot } from '@parallel-course/harness/testing.ts';
import type { LabContext } from '@parallel-course/harness';
import lab from '../src/lab.ts';
import { checkVariantProperty, judgeOutside, PROBE_ACCOUNT, TURNS_PER_RING } from '../src/properties.ts';
import { deriveRingSync, MAX_ACCOUNT } from '../src/work.ts';
import { drawOutsideAccounts, MAX_WINDOWS, OUTSIDE_ACCOUNT_RANGE, outsideVerdict, probeFromOutside, type OutsideProbe } from '../src/outside-probe.ts';
import { deriveRing, oneWindow, type OutsideWindow } from '../src/outside-window.ts';
import type { ProbeReport } from '../src/protocol.ts';
import { startServerProcess } from '../src/server-process.ts';

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
  // The judge's own /pings, sent from outside the server while it derived rings, waited for them. (The server's own
  // report would catch this trap too; the outside probe decides first, and a window counts as free only when the
  // judge's pinger was on time in it, where any window that looked free used to pass it: a fresh-clone run with two
  // test files at a time saw that.)
  assert.match(entry.reason ?? '', /^the chunked handler does not let \/ping through while it serves requests: the harness's own \/ping requests, sent from its process while 4 rings were derived one after another/);
  assert.match(entry.reason ?? '', /microtask queue, which Node empties before the event loop gets back to I\/O/);
  assert.match(entry.reason ?? '', /End each turn with setImmediate/);
});

test("a chunked handler that blocks the loop and forges its server's report (a turn between every two keys) still fails: the judge's own /pings from outside waited", { timeout: 60_000 }, async () => {
  const entry = await check(fileURLToPath(new URL('./fixtures/forged-report', import.meta.url)), 'chunked');
  assert.equal(entry.passed, false);
  assert.match(entry.reason ?? '', /^the chunked handler does not let \/ping through while it serves requests: the harness's own \/ping requests, sent from its process/);
});

test("a chunked handler that keeps the loop free only for the accounts the probes once asked for still fails: the judge's probe draws its accounts (issue 42)", { timeout: 60_000 }, async () => {
  // Free (setImmediate) for the server's probe ring and the judge's old fixed accounts, a microtask "yield" for every
  // other account: with the judge's accounts fixed and public, its probe saw a free loop and the case passed.
  const entry = await check(fileURLToPath(new URL('./fixtures/probe-aware', import.meta.url)), 'chunked');
  assert.equal(entry.passed, false, JSON.stringify(entry));
  assert.match(entry.reason ?? '', /^the chunked handler does not let \/ping through while it serves requests: the harness's own \/ping requests, sent from its process/);
});

test("the judge's main thread busy 500 ms at a time (other runners' expected outputs) does not make a free server's /pings read as held", { timeout: 90_000 }, async (t) => {
  // In a graded run the judge's main thread derives other runners' expected rings synchronously while a probe's
  // window is open: a /ping the server answered at once then waited for the judge's loop. On the old probe (its
  // windows on the judge's main thread) every window of the solution's chunked server read as blocked.
  const server = await startServerProcess('chunked', 1, SOLUTION);
  t.after(() => server.close());
  let done = false;
  const probed = probeFromOutside(server.socketPath).finally(() => {
    done = true;
  });
  while (!done) {
    const until = performance.now() + 500;
    while (performance.now() < until); // the judge's loop held, as lab.expected holds it
    await new Promise((resolve) => setImmediate(resolve));
  }
  const probe = await probed;
  assert.equal(outsideVerdict(probe.windows).verdict, 'free', JSON.stringify(probe));
});

test("the judge's own rings, derived off its main thread, are the lab's bytes", async () => {
  for (const account of [1000, 123_456]) assert.equal(await deriveRing(account), deriveRingSync(account));
});

test("the judge's probe accounts: distinct, drawn anew, among a sample's accounts", () => {
  const draws = [5000, 5000, 1000, 7000, 9000];
  assert.deepEqual(drawOutsideAccounts(() => draws.shift() as number), [5000, 1000, 7000, 9000]);
  const [a, b] = [drawOutsideAccounts(), drawOutsideAccounts()];
  assert.notDeepEqual(a, b);
  assert.ok([...a, ...b].every((x) => Number.isInteger(x) && x >= OUTSIDE_ACCOUNT_RANGE.from && x < OUTSIDE_ACCOUNT_RANGE.to && x <= MAX_ACCOUNT));
});

test("a temp folder too long for a Unix socket's path stops the server with a message that names TMPDIR and the fix", { timeout: 60_000 }, async (t) => {
  // Linux takes 107 bytes for a socket's path, macOS 103: a long TMPDIR (an HPC job's scratch folder) put the probe's
  // socket past it, and the server stopped with "listen EINVAL: invalid argument".
  const long = mkdtempSync(path.join(os.tmpdir(), `${'t'.repeat(100)}-`));
  const before = process.env['TMPDIR'];
  process.env['TMPDIR'] = long;
  t.after(() => {
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
    rmSync(long, { recursive: true, force: true });
  });
  await assert.rejects(
    startServerProcess('chunked', 1, SOLUTION),
    /^ChildStartError: the event-loop server's Unix socket for the harness's probe, .*event-loop-\d+\.sock, is \d+ bytes, over the 103 a socket's path may have: set TMPDIR to a shorter folder \(export TMPDIR=\/tmp\) and run again/,
  );
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
  assert.match(chunked?.reason ?? '', /^the chunked handler does not let \/ping through while it serves requests: the harness's own \/ping requests.* Look at exercises\/event-loop\/handlers\.ts\.$/s);
  assert.ok(outcome.correctness.find((e) => e.variant === 'inline')?.passed);
});

test('a threadpool handler on the main thread and a pool created per request fail the check, each with its reason', { timeout: 90_000 }, async () => {
  const threadpool = await check(TRAPS, 'threadpool');
  assert.equal(threadpool.passed, false);
  assert.match(threadpool.reason ?? '', /^the threadpool handler does not let \/ping through while it serves requests: the harness's own \/ping requests/);
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

test("the judge's side (judgeProperty, in the harness's process): its own probe from outside, then the server's report; a forged or malformed report fails", () => {
  const chunked = lab.cases(ctx(SOLUTION)).find((d) => d.variant === 'chunked');
  assert.ok(chunked?.judgeProperty);
  const ring = deriveRingSync(PROBE_ACCOUNT);
  // The judge's own probe from outside: /pings answered within a key (free) or one held for each ring (blocked):
  // beyond 2 keys (5 ms), 70 ms of a 90 ms window, over half of it, and every ring closed (handMadeWindow, below).
  const [freeWindow, heldWindow] = [handMadeWindow('free'), handMadeWindow('held')];
  // Contention alone: /pings as slow, but answered during every ring.
  const slowWindow: OutsideWindow = { ...freeWindow, pingWaitsMs: Array.from({ length: 9 }, () => 20), pingAnswersMs: Array.from({ length: 9 }, (_, i) => 10 * (i + 1)), pingLagsMs: Array.from({ length: 9 }, () => 0.5) };
  const probe = (...windows: OutsideWindow[]): OutsideProbe => ({ windows });
  const [free, held, slow] = [probe(freeWindow), probe(heldWindow, heldWindow, heldWindow), probe(slowWindow)];
  assert.equal(chunked.judgeProperty(report({ body: ring, turns: 7 }), slow), null);
  assert.equal(chunked.judgeProperty(report({ body: ring, turns: 7 }), free), null);
  // What the judge saw from outside decides first, whatever the server's report says.
  assert.match(chunked.judgeProperty(report({ body: ring, turns: 7 }), held) ?? '', /^the chunked handler does not let \/ping through while it serves requests: .*waited 70\.0 ms in all beyond 2 keys' time \(longest 22\.5 ms\), and 4 of the 4 rings went by with at most one \/ping answered \(one key takes about 2\.50 ms here; 3 of 3 windows read so\)/);
  assert.equal(chunked.judgeProperty(report({ body: ring, turns: 7 }), probe({ ...freeWindow, wrongRings: [1234] })), "wrong body for account 1234 in the harness's probe from outside");
  // Then the server's report (self-reported): its rule, and the ring the judge derives itself.
  assert.match(chunked.judgeProperty(report({ body: ring, turns: 0 }), free) ?? '', /^the chunked handler does not let \/ping through while it serves a request: the event loop turned 0 times/);
  assert.equal(chunked.judgeProperty(report({ body: 'forged', turns: 7 }), free), `wrong body for account ${PROBE_ACCOUNT} in the property check`);
  assert.throws(() => chunked.judgeProperty!({ ...report({ body: ring }), turns: '7' }, free), /the server's probe report's turns is not a whole number >= 0: got "7"/);
  assert.throws(() => chunked.judgeProperty!('ok', free), /the server's probe report is not an object of body, error, turns/);
  // No probe from outside: no verdict.
  assert.throws(() => chunked.judgeProperty!(report({ body: ring }), undefined), /the harness's probe from outside did not run for this case/);
  assert.equal(lab.cases(ctx(SOLUTION)).find((d) => d.variant === 'inline')?.judgeProperty, undefined);
});

/**
 * A window of four 22.5 ms rings (one key 2.5 ms) whose /pings, each sent `lagMs` after it was due, read: free (one
 * answered every 3 ms), held (each for its ring) or barely held (one answered during each ring after 14 ms: every
 * ring closed, but 4 x 9 ms beyond 2 keys, 0.4 of the window, is under half of it).
 */
function handMadeWindow(kind: 'free' | 'held' | 'barely', lagMs = 0.5): OutsideWindow {
  const rings = [0, 1, 2, 3].map((k) => ({ sent: 22.5 * k, answered: 22.5 * (k + 1) }));
  const base = { keyMs: 2.5, tickMs: 1.25, windowMs: 90, ringsMs: rings, wrongRings: [] };
  const lags = (n: number) => Array.from({ length: n }, () => lagMs);
  if (kind === 'held') return { ...base, pingWaitsMs: [22.5, 22.5, 22.5, 22.5], pingAnswersMs: [22.6, 45.1, 67.6, 90.1], pingLagsMs: lags(4) };
  if (kind === 'barely') return { ...base, pingWaitsMs: [14, 14, 14, 14], pingAnswersMs: [16, 38.5, 61, 83.5], pingLagsMs: lags(4) };
  return { ...base, pingWaitsMs: Array.from({ length: 30 }, () => 3), pingAnswersMs: Array.from({ length: 30 }, (_, i) => 3 * (i + 1)), pingLagsMs: lags(30) };
}

test("a window counts as free only when the judge's own pinger was on time in it: a late one reads void, and a blocked loop behind it still fails (issue 42)", () => {
  const judge = (...windows: OutsideWindow[]) => judgeOutside('chunked', { windows });
  const [free, held] = [handMadeWindow('free'), handMadeWindow('held')];
  assert.equal(judge(held, free), null);
  assert.match(judge(held, held, held) ?? '', /^the chunked handler does not let \/ping through .* 3 of 3 windows read so\)/);
  // A window whose rings closed but whose /pings went out late (each 9 ms after it was due, against one key of 2.5 ms:
  // 4 x 6.5 ms of a 90 ms window, over its fifth) did not see the loop while none waited: void, not free (the old
  // rule passed at the first window that looked free, as a fresh-clone run's busy machine once let one through).
  const lagged = handMadeWindow('barely', 9);
  assert.deepEqual(outsideVerdict([lagged, held, held, held]).readings, ['void', 'blocked', 'blocked', 'blocked']);
  assert.match(judge(lagged, held, held, held) ?? '', /^the chunked handler does not let \/ping through .* 3 of 4 windows read so\)/);
  assert.deepEqual(outsideVerdict([handMadeWindow('held', 10), handMadeWindow('barely')]).readings, ['void', 'free']);
  // Within its fifth (4 x 2.5 ms: 0.11), but the stall it may have missed could lift it over half (0.4 + 0.11): void too.
  assert.deepEqual(outsideVerdict([handMadeWindow('barely', 5), handMadeWindow('barely', 3)]).readings, ['void', 'free']);
  // Rings a late pinger saw open were open: a blocked loop answers at most one /ping a ring whenever they come.
  assert.equal(outsideVerdict([handMadeWindow('free', 9)]).readings[0], 'free');
});

test("a probe whose windows all lagged fails the case, saying the machine was too busy and to run again with nothing else running (never a pass)", () => {
  const lagged = handMadeWindow('barely', 9);
  const windows = Array.from({ length: MAX_WINDOWS }, () => lagged);
  assert.equal(outsideVerdict(windows).verdict, 'open');
  assert.equal(
    judgeOutside('threadpool', { windows, outOfTime: true }),
    `the harness could not judge whether the threadpool handler lets /ping through: the machine was too busy. Of its ${MAX_WINDOWS} windows from outside (20.0 s at most), ` +
      `${MAX_WINDOWS} had its own /pings sent late (the harness's thread waited for a CPU) and 0 read blocked, where one free window passes and 3 blocked ones fail. ` +
      'Run it again with nothing else running (close other programs and runs); this is no verdict on your handler.',
  );
});

test("a window's /pings go at the pinger's pace, not as fast as the server answers (review finding 13)", { timeout: 60_000 }, async (t) => {
  // A server that answers /ping at once and takes 100 ms a ring: the old window sent a /ping the moment the last was
  // answered, thousands in its 400 ms (and for 20 s a ring to a server that never finished one).
  const folder = mkdtempSync(path.join(os.tmpdir(), 'pace-'));
  const socketPath = path.join(folder, 's.sock');
  let pings = 0;
  const server = http.createServer((request, response) => {
    if (request.url === '/ping') {
      pings++;
      response.end('pong');
    } else setTimeout(() => response.end('not a ring'), 100);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.after(() => {
    server.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const window = await oneWindow(socketPath, [1000, 1001, 1002, 1003]);
  assert.equal(window.wrongRings.length, 4);
  assert.ok(window.tickMs >= window.keyMs / 2 - 1e-9, JSON.stringify({ tickMs: window.tickMs, keyMs: window.keyMs }));
  // One /ping each tickMs at most (and the one that opens the connection).
  assert.ok(pings <= window.windowMs / window.tickMs + 2, `${pings} /pings in ${window.windowMs.toFixed(0)} ms at most one each ${window.tickMs.toFixed(2)} ms`);
  assert.equal(window.pingLagsMs.length, window.pingWaitsMs.length);
});

test("a blocking handler whose threads starve the judge's CPUs between its rings still fails: the judge's key is its fastest, and a lagging pinger's windows count for nothing (issue 42)", { timeout: 120_000 }, async () => {
  // 8 threads that spin whenever no ring is derived: the window's own key, timed meanwhile, read longer than a ring, so
  // every held /ping read within its allowance, and 3 in 10 probes of the old judge passed (the first window read free).
  const entry = await check(fileURLToPath(new URL('./fixtures/starver', import.meta.url)), 'chunked');
  assert.equal(entry.passed, false, JSON.stringify(entry));
  assert.match(entry.reason ?? '', /^the (chunked handler does not let \/ping through while it serves requests: the harness's own \/ping requests|harness could not judge whether the chunked handler lets \/ping through: the machine was too busy)/);
});
