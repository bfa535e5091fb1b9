/**
 * The check stage's verdicts, decided in the judge's process (check-verdicts.ts CheckVerdicts, out of the supervisor's
 * attempt since session 18): a case stands as the runner reports it only when the judge found every check output it
 * sent right and had one for every check input. A lab of three check inputs (two check inputs and the measured one),
 * whose expected output is each input doubled, compared exactly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CorrectnessEntry } from '@parallel-course/core';
import { CheckJudge } from '../src/measure/check-judge.ts';
import { CheckVerdicts, type CheckVerdictHooks } from '../src/measure/check-verdicts.ts';
import { withinTolerance } from '../src/comparators.ts';
import type { LabContext, LabDefinition } from '../src/lab-definition.ts';
import { readEvidence } from '../src/property-evidence.ts';
import { probeSocketRefusal } from '../src/supervise/attempt-messages.ts';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const CTX: LabContext = { impl: 'solution', implDir: '/nowhere', rootDir: '/nowhere', quick: true, availableParallelism: 2, seed: 1 };
const INPUTS = [[1, 2], [3, 4], [5, 6]];

const lab = {
  name: 'doubling',
  inputParams: ['n'],
  inputs: () => ({ check: INPUTS.slice(0, 2), measure: INPUTS[2] }),
  expected: (input: number[]) => input.map((v) => 2 * v),
  comparator: withinTolerance({ abs: 0, rel: 0 }),
} as unknown as LabDefinition<unknown, unknown>;

const KEY = 'double n=2';
const passed: CorrectnessEntry = {
  variant: 'double', params: { n: 2 }, passed: true, comparator: 'the runner\'s', reason: null, notImplemented: false,
  firstMismatch: null, maxAbsError: null, maxRelError: null, inputsChecked: 3, failedAt: null,
};

/**
 * The hooks a supervisor gives, recording what they are asked: the entries decided, the positions shown, each probe's
 * error. A failed entry's reason ends with `fileText` (the learner's file, as the supervisor names it).
 */
function recordingHooks(fileText = '. Look at exercises/doubling/double.ts.') {
  const decided = new Map<string, CorrectnessEntry>();
  const shown: number[][] = [];
  const probed: (string | null)[] = [];
  const hooks: CheckVerdictHooks = {
    show: async (_key, _input, { positions }) => {
      shown.push(positions);
      return [];
    },
    failed: (_key, reason, previous) => ({ ...passed, ...previous, passed: false, reason: `${reason}${fileText}`, failedAt: { stage: 'check', sample: null } }),
    decided: (key, entry) => void decided.set(key, entry),
    probed: (_key, error) => void probed.push(error),
  };
  return { hooks, decided, shown, probed };
}

/** Verdicts over the lab above, with the hooks a supervisor gives, recording what they are asked. */
function verdicts(): { verdicts: CheckVerdicts; decided: Map<string, CorrectnessEntry>; shown: number[][] } {
  const { hooks, decided, shown } = recordingHooks();
  const checks = new CheckJudge(lab, CTX, new Map([[KEY, { params: { n: 2 } }]]));
  return { verdicts: new CheckVerdicts(checks, hooks), decided, shown };
}

const whole = (value: number[]) => ({ kind: 'whole', value });

test('every check output right and one for every check input: the runner\'s entry stands, with the judge\'s errors', async () => {
  const { verdicts: v, decided } = verdicts();
  INPUTS.forEach((input, i) => v.output(KEY, i, whole(input.map((x) => 2 * x))));
  v.checked(KEY, passed);
  await v.settled();
  assert.deepEqual(decided.get(KEY), { ...passed, maxAbsError: 0, maxRelError: 0 });
});

test('a wrong check output fails the case whatever the runner says, naming the input, the mismatch and the file', async () => {
  const { verdicts: v, decided } = verdicts();
  v.output(KEY, 0, whole([2, 4]));
  v.output(KEY, 1, whole([6, 9]));
  v.output(KEY, 2, whole([10, 12]));
  v.checked(KEY, passed);
  await v.settled();
  const entry = decided.get(KEY);
  assert.equal(entry?.passed, false);
  assert.match(entry?.reason ?? '', /^wrong output on check input #1.*Look at exercises\/doubling\/double\.ts\.$/);
  assert.deepEqual(entry?.firstMismatch, { index: 1, expected: '8', actual: '9' });
  assert.equal(entry?.comparator, lab.comparator.description);
  assert.equal(entry?.inputsChecked, 2);
  assert.deepEqual(entry?.failedAt, { stage: 'check', sample: null });
});

test('a case the runner says passed, with an output missing, fails: its outputs did not all reach the harness', async () => {
  const { verdicts: v, decided } = verdicts();
  v.output(KEY, 0, whole([2, 4]));
  v.checked(KEY, passed);
  await v.settled();
  const entry = decided.get(KEY);
  assert.equal(entry?.passed, false);
  assert.match(entry?.reason ?? '', /its check outputs did not all reach the harness \(1 of 3\): lab or learner code wrote to the harness's channel/);
});

test('after a wrong output, a large one is still asked for (with no positions), so the runner goes on; the first failure stands', async () => {
  const { verdicts: v, decided, shown } = verdicts();
  v.output(KEY, 0, whole([0, 0]));
  v.output(KEY, 1, { kind: 'large', length: 2 ** 20 });
  v.checked(KEY, passed);
  await v.settled();
  assert.deepEqual(shown, [[]]);
  assert.match(decided.get(KEY)?.reason ?? '', /^wrong output on check input #0/);
});

// A case with a property (CaseDefinition.judgeProperty): its evidence must show at least 7 turns.
const PROPERTY_KEY = 'double n=3';
const judgeTurns = (evidence: unknown) => {
  const { turns } = readEvidence(evidence, { turns: 'count' }, 'the report');
  return turns >= 7 ? null : `turned ${turns} times, where it needs 7`;
};

/** Verdicts over the lab above where PROPERTY_KEY has a property: its outputs all right and sent. */
function propertyVerdicts(): ReturnType<typeof verdicts> {
  const { hooks, decided, shown } = recordingHooks();
  const checks = new CheckJudge(lab, CTX, new Map([[PROPERTY_KEY, { params: { n: 3 }, judgeProperty: judgeTurns }]]));
  const v = new CheckVerdicts(checks, hooks);
  INPUTS.forEach((input, i) => v.output(PROPERTY_KEY, i, whole(input.map((x) => 2 * x))));
  return { verdicts: v, decided, shown };
}

test("a runner that says 'passed' over evidence that shows the property missing fails: the judge's judgeProperty decides", async () => {
  const { verdicts: v, decided } = propertyVerdicts();
  v.property(PROPERTY_KEY, { turns: 0 });
  v.checked(PROPERTY_KEY, passed);
  await v.settled();
  const entry = decided.get(PROPERTY_KEY);
  assert.equal(entry?.passed, false);
  assert.equal(entry?.reason, 'turned 0 times, where it needs 7. Look at exercises/doubling/double.ts.');
  assert.equal(entry?.inputsChecked, 3);
  assert.deepEqual(entry?.failedAt, { stage: 'check', sample: null });
});

test("a runner that says 'passed' and sends no property evidence fails: the verdict is not the runner's to give", async () => {
  const { verdicts: v, decided } = propertyVerdicts();
  v.checked(PROPERTY_KEY, passed);
  await v.settled();
  assert.match(decided.get(PROPERTY_KEY)?.reason ?? '', /^its property evidence did not reach the harness: lab or learner code wrote to the harness's channel/);
});

test('malformed property evidence fails, naming the field; a second one fails, and one over 64 KiB; evidence that shows the property passes', async () => {
  const malformed = propertyVerdicts();
  malformed.verdicts.property(PROPERTY_KEY, { turns: -1 });
  malformed.verdicts.checked(PROPERTY_KEY, passed);
  await malformed.verdicts.settled();
  assert.match(malformed.decided.get(PROPERTY_KEY)?.reason ?? '', /^its property evidence could not be judged: the report's turns is not a whole number >= 0: got -1/);

  const twice = propertyVerdicts();
  twice.verdicts.property(PROPERTY_KEY, { turns: 9 });
  twice.verdicts.property(PROPERTY_KEY, { turns: 9 });
  twice.verdicts.checked(PROPERTY_KEY, passed);
  await twice.verdicts.settled();
  assert.match(twice.decided.get(PROPERTY_KEY)?.reason ?? '', /^a second property evidence arrived/);

  const huge = propertyVerdicts();
  huge.verdicts.property(PROPERTY_KEY, { turns: 9, dump: 'x'.repeat(100_000) });
  huge.verdicts.checked(PROPERTY_KEY, passed);
  await huge.verdicts.settled();
  assert.match(huge.decided.get(PROPERTY_KEY)?.reason ?? '', /^its property evidence is \d+ bytes, over the 65536 the harness reads/);

  const holds = propertyVerdicts();
  holds.verdicts.property(PROPERTY_KEY, { turns: 7 });
  holds.verdicts.checked(PROPERTY_KEY, passed);
  await holds.verdicts.settled();
  assert.deepEqual(holds.decided.get(PROPERTY_KEY), { ...passed, maxAbsError: 0, maxRelError: 0 });
});

test('evidence for a case with no judge of its property fails it: a lab that gathers evidence must judge it', async () => {
  const { verdicts: v, decided } = verdicts();
  INPUTS.forEach((input, i) => v.output(KEY, i, whole(input.map((x) => 2 * x))));
  v.property(KEY, { turns: 7 });
  v.checked(KEY, passed);
  await v.settled();
  assert.match(decided.get(KEY)?.reason ?? '', /^sent property evidence, but the case has no judge of its property \(judgeProperty\)/);
});

/** A Unix socket server at `socketPath` that writes `greeting` to every connection (a stand-in for a lab's server). */
async function greeter(socketPath: string, greeting: string): Promise<net.Server> {
  const server = net.createServer((socket) => socket.end(greeting));
  server.listen(socketPath);
  await once(server, 'listening');
  return server;
}

/** What the server at `socketPath` greets a connection with (a stand-in for a lab's probe from outside). */
function greetingAt(socketPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    net.connect(socketPath).on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString())).on('error', reject);
  });
}

test("a case the judge probes from outside: its probe's result reaches judgeProperty; a case that never asked for it fails", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-socket-'));
  const server = await greeter(path.join(dir, 'server.sock'), 'the runner');
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const outsideKey = 'double n=4';
  const run = (ask: boolean) => {
    const { hooks, decided, probed } = recordingHooks('');
    const definition = {
      params: { n: 4 },
      probeFromOutside: async (socketPath: string) => ({ seen: await greetingAt(socketPath) }),
      judgeProperty: (_evidence: unknown, outside: unknown) => ((outside as { seen?: string } | undefined)?.seen === 'the runner' ? null : 'not probed'),
    };
    const v = new CheckVerdicts(new CheckJudge(lab, CTX, new Map([[outsideKey, definition]])), hooks);
    INPUTS.forEach((input, i) => v.output(outsideKey, i, whole(input.map((x) => 2 * x))));
    if (ask) v.outsideProbe(outsideKey, path.join(dir, 'server.sock'));
    v.property(outsideKey, {});
    v.checked(outsideKey, passed);
    return v.settled().then(() => ({ entry: decided.get(outsideKey), probed }));
  };
  const asked = await run(true);
  assert.deepEqual(asked.probed, [null]);
  assert.equal(asked.entry?.passed, true, JSON.stringify(asked.entry));
  const never = await run(false);
  assert.equal(never.entry?.passed, false);
  assert.match(never.entry?.reason ?? '', /^never asked the harness to probe it from outside/);
});

test('a case that has failed on a check output is not probed from outside: the verdict stands, and the runner hears why', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-socket-'));
  const server = await greeter(path.join(dir, 'server.sock'), 'the runner');
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let probes = 0;
  const { hooks, decided, probed } = recordingHooks('');
  const definition = { params: { n: 4 }, probeFromOutside: async () => ++probes, judgeProperty: () => null };
  const v = new CheckVerdicts(new CheckJudge(lab, CTX, new Map([['double n=4', definition]])), hooks);
  // Input #1 wrong (the runner's own comparison let it through), then the probe asked for.
  INPUTS.forEach((input, i) => v.output('double n=4', i, whole(input.map((x) => (i === 1 ? 3 : 2) * x))));
  v.outsideProbe('double n=4', path.join(dir, 'server.sock'));
  v.checked('double n=4', passed);
  await v.settled();
  // Before, the judge probed it (up to 30 s) for a verdict it could not change.
  assert.equal(probes, 0);
  assert.deepEqual(probed, ['the case has already failed its check']);
  assert.match(decided.get('double n=4')?.reason ?? '', /^wrong output on check input #1/);
});

test("a link the runner puts in its socket's place after the supervisor's check never takes the judge's probe elsewhere (issue 42)", async (t) => {
  // The runner's temp folder and, outside it, another socket of the machine (a stand-in for a daemon's).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-socket-'));
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'probe-elsewhere-'));
  const runnerSocket = path.join(dir, 'server.sock');
  const servers = [await greeter(runnerSocket, 'the runner'), await greeter(path.join(elsewhere, 'daemon.sock'), 'a daemon')];
  t.after(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });
  const swap = () => {
    unlinkSync(runnerSocket);
    symlinkSync(path.join(elsewhere, 'daemon.sock'), runnerSocket);
  };
  const checks = new CheckJudge(lab, CTX, new Map([['double n=4', { params: { n: 4 }, probeFromOutside: greetingAt }]]));
  // Swapped between the supervisor's check and the probe: refused. Before, the judge's probe reached the daemon.
  assert.equal(probeSocketRefusal(runnerSocket, dir), null);
  swap();
  await assert.rejects(checks.probeFromOutside('double n=4', runnerSocket), /server\.sock is no longer a Unix socket \(something was put in its place after the harness checked it\)/);
  // Swapped once the probe has begun: the judge probes its own link to the socket it checked.
  unlinkSync(runnerSocket);
  servers[0]!.close();
  servers[0] = await greeter(runnerSocket, 'the runner');
  const swapping = new CheckJudge(lab, CTX, new Map([['double n=4', { params: { n: 4 }, probeFromOutside: (socketPath: string) => (swap(), greetingAt(socketPath)) }]]));
  assert.equal(await swapping.probeFromOutside('double n=4', runnerSocket), 'the runner');
});

test('the judge connects only to a Unix socket directly in the runner\'s own temp folder, never a link or a path elsewhere', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-socket-'));
  const server = net.createServer();
  try {
    const socketPath = path.join(dir, 'server.sock');
    server.listen(socketPath);
    await once(server, 'listening');
    assert.equal(probeSocketRefusal(socketPath, dir), null);
    writeFileSync(path.join(dir, 'file'), '');
    symlinkSync(socketPath, path.join(dir, 'link.sock'));
    mkdirSync(path.join(dir, 'sub'));
    assert.match(probeSocketRefusal(path.join(dir, 'file'), dir) ?? '', /which is not a Unix socket$/);
    assert.match(probeSocketRefusal(path.join(dir, 'link.sock'), dir) ?? '', /which is not a Unix socket$/);
    assert.match(probeSocketRefusal(path.join(dir, 'none.sock'), dir) ?? '', /which does not exist$/);
    assert.match(probeSocketRefusal('/var/run/docker.sock', dir) ?? '', /^a path outside the run's temp folder/);
    assert.match(probeSocketRefusal(path.join(dir, 'sub', '..', '..', 'x.sock'), dir) ?? '', /^a path outside the run's temp folder/);
    assert.match(probeSocketRefusal(42, dir) ?? '', /^a path outside the run's temp folder \(42\)/);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
