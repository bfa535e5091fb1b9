/**
 * The clock and the inputs on the judge's side (issue 42): the supervisor times each sample from its own process
 * (judge-sampler.ts), refuses any answer it did not ask for, and reveals a sample's fresh input only when it asks for
 * that sample. No timing is asserted here, so this file runs beside others.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { JudgeChannel, RefusedAnswer } from '../src/measure/judge-channel.ts';
import { chargeAfterAnswer, MAX_TRIP_BOUND_MS, recordedCallMs, upperTrip } from '../src/measure/judge-clock.ts';
import { judgeSamples } from '../src/measure/judge-sampler.ts';
import { multiCallLimitMs, sampleLimitMs } from '../src/measure/sample-limits.ts';
import { freshDraw, type OutputJudge } from '../src/measure/judge-outputs.ts';
import { runLab } from '../src/run/run-lab.ts';
import type { JudgeRequest, RunnerMessage } from '../src/measure/run-protocol.ts';
import { REQUESTS_CLOSED } from '../src/measure/seal.ts';
import { FRAME_SOURCE } from './support/channel-frame.ts';
import { giveFaultyLabNumberedInputs } from './support/numbered-inputs.ts';
import { replaceOnce } from './support/replace-once.ts';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupSamples: 2, rounds: 4, samplesPerRound: 3 };
const RIGHT = `export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`;

/** An output judge that accepts every output (for tests of the clock and the plan alone). */
const ACCEPT_ALL: OutputJudge = {
  next: (_key, calls = 1) => Array.from({ length: calls }, () => ({ fresh: 1, input: null })),
  check: () => ({ equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null }),
  positions: () => [],
  checkAt: () => ({ equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null }),
};

/**
 * A runner that answers every request at once, each sample of a case stamped `caseMs` long (the judge's time of it),
 * an empty one at once; `sampled` hears each sample asked (its case key, null for an empty one).
 */
function answeringRunner(caseMs: number, sampled: (caseKey: string | null) => void): JudgeChannel {
  let calls = 1;
  const judge: JudgeChannel = new JudgeChannel(
    (request) =>
      queueMicrotask(() => {
        if (request.type === 'sample') sampled(request.caseKey);
        const now = performance.now();
        if (request.type === 'prepare') {
          calls = request.fresh.length;
          judge.deliver({ type: 'prepared', seq: request.seq, error: null }, now);
        }
        if (request.type === 'between') judge.deliver({ type: 'ok', seq: request.seq }, now);
        if (request.type === 'sample') {
          const at = request.caseKey === null ? now : now + caseMs;
          judge.deliver({ type: 'sampled', seq: request.seq, runnerMs: at - now }, at);
          judge.deliver({ type: 'output', seq: request.seq, outputs: Array.from({ length: request.caseKey === null ? 1 : calls }, () => ({ kind: 'whole' as const, value: null })) }, at);
        }
      }),
    () => {},
  );
  return judge;
}

function channel() {
  const sent: JudgeRequest[] = [];
  const watched: unknown[] = [];
  return { sent, watched, channel: new JudgeChannel((r) => sent.push(r), (w) => watched.push(w)) };
}

test('the judge takes one answer per request, of its type and number, and refuses any other', async () => {
  const { sent, channel: judge } = channel();
  const sampled = (seq: number): RunnerMessage & { type: 'sampled' } => ({ type: 'sampled', seq, runnerMs: 0 });
  const output = (seq: number): RunnerMessage & { type: 'output' } => ({ type: 'output', seq, outputs: [{ kind: 'whole', value: [1] }] });
  // An answer with no request in flight.
  assert.throws(() => judge.deliver(sampled(1), 0), (e) => e instanceof RefusedAnswer && /did not ask for/.test(e.message) && e.caseKey === null);
  const answer = judge.ask({ type: 'sample', caseKey: 'k' }, null);
  assert.deepEqual(sent, [{ type: 'sample', seq: 1, caseKey: 'k' }]);
  // Another number, another type: refused, naming the case asked about.
  assert.throws(() => judge.deliver(sampled(2), 1), (e) => e instanceof RefusedAnswer && e.caseKey === 'k' && /waited for 'sampled' #1/.test(e.message));
  assert.throws(() => judge.deliver({ type: 'prepared', seq: 1, error: null }, 1), RefusedAnswer);
  // The output before the answer it follows.
  assert.throws(() => judge.deliver(output(1), 1), (e) => e instanceof RefusedAnswer && /waited for 'sampled' #1/.test(e.message));
  const received = performance.now();
  judge.deliver(sampled(1), received);
  // A second 'sampled' where the output is awaited, and a 'shown' nobody asked for.
  assert.throws(() => judge.deliver(sampled(1), received), (e) => e instanceof RefusedAnswer && /waited for 'output' #1/.test(e.message));
  assert.throws(() => judge.deliver({ type: 'shown', seq: 1, values: new Float64Array(1) }, received), (e) => e instanceof RefusedAnswer && /'shown' #1.*waited for 'output' #1/.test(e.message));
  judge.deliver(output(1), received + 1);
  const got = await answer;
  assert.deepEqual(got.receivedAt, [received, received + 1]);
  assert.ok(got.sentAt <= received);
  // A second answer to the same request.
  assert.throws(() => judge.deliver(output(1), received), (e) => e instanceof RefusedAnswer && /did not ask for/.test(e.message));
});

test('fresh input numbers are drawn distinct, in 1 .. 2^20 - 1, when asked', () => {
  const draw = freshDraw();
  const drawn = Array.from({ length: 1000 }, draw);
  assert.equal(new Set(drawn).size, drawn.length);
  assert.ok(drawn.every((k) => Number.isInteger(k) && k >= 1 && k < 2 ** 20));
});

async function check(t: Parameters<typeof tempRoot>[2] & object, source: string, root = tempRoot('faults-root', 'harness-judge-', t)) {
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), source);
  return runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root });
}

test("an early answer written straight onto the channel's fd is refused, and the case fails naming the file (issue 42)", async (t) => {
  // The learner answers every sample of its case at once from the IPC pipe's fd (fs.writeSync works on it), numbered
  // as the judge numbers requests, hoping one lands before the runner's own. Each is an answer not asked for (or a
  // second one), so the case fails. Before the judge asked, 'sampled' was no message of the protocol and passed unseen.
  const outcome = await check(
    t,
    `${FRAME_SOURCE}
for (let seq = 1; seq < 400; seq++) frame({ type: 'sampled', seq, runnerMs: 0 });
${RIGHT}`,
  );
  const entry = outcome.correctness.find((e) => e.variant === 'learner');
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.match(entry?.reason ?? '', /did not ask for.*lab or learner code wrote to the harness's channel\. Look at exercises\/faulty\/faulty\.ts/);
  // The other cases were measured in a fresh process without it.
  assert.ok(outcome.correctness.filter((e) => e.variant !== 'learner').every((e) => e.passed));
});

test("learner code cannot listen to the supervisor's requests, so it never sees a fresh input before the harness (issue 42)", async (t) => {
  // The attack: a listener (prepended, so it runs first) that reads each 'prepare' (the next sample's fresh input
  // number) and works out that sample's answer while the harness's answer waits, outside the timed window. Before the
  // requests were sealed, the listener was added and ran; now adding it throws in the learner's module.
  const outcome = await check(
    t,
    `process.prependListener('message', (m: unknown) => { void m; });
${RIGHT}`,
  );
  const entry = outcome.correctness.find((e) => e.variant === 'learner');
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.ok((entry?.reason ?? '').includes(REQUESTS_CLOSED), entry?.reason ?? '');
  assert.match(entry?.reason ?? '', /exercises\/faulty\/faulty\.ts/);
});

test('a sample runs on the fresh input the judge reveals when it asks for that sample, not one the runner drew (issue 42)', async (t) => {
  // The runner alone, driven as the supervisor drives it: input k carries its number k in xs[0], and the learner is
  // wrong only on number 5, which the second request reveals. Before, the runner drew every number itself before
  // learner code loaded (and runJob took no requests).
  const root = tempRoot('faults-root', 'harness-judge-', t);
  giveFaultyLabNumberedInputs(root);
  writeFileSync(
    path.join(root, 'exercises', 'faulty', 'faulty.ts'),
    replaceOnce(RIGHT, 'return s;', 'return xs.length === 2000 && xs[0] === 5 ? s + 1 : s;'),
  );
  const { runJob } = await import('../src/measure/runner.ts');
  const messages: RunnerMessage[] = [];
  const learnerKey = JSON.stringify(['learner', []]);
  const run = runJob(
    { lab: 'faulty', impl: 'exercise', quick: true, seed: 1, rootDir: root, checkOnly: false, exclude: [], availableParallelism: 2 },
    {
      send: (m) => {
        messages.push(m);
      },
      // The requests the supervisor would send, in order, once the runner listens (after its 'measuring').
      listen: (handler) => {
        for (const request of [
          { type: 'prepare', seq: 1, caseKey: learnerKey, fresh: [777_777] },
          { type: 'sample', seq: 2, caseKey: learnerKey },
          { type: 'prepare', seq: 3, caseKey: learnerKey, fresh: [5] },
          { type: 'sample', seq: 4, caseKey: learnerKey },
          { type: 'finish', seq: 5, caseKeys: [] },
        ]) handler(request);
        return () => {};
      },
    },
  );
  await run;
  // The runner checks nothing: it sends what the call returned on the input it was given, for the judge to check.
  const outputs = messages.filter((m): m is RunnerMessage & { type: 'output' } => m.type === 'output');
  const numbered = (k: number) => {
    const xs = Float64Array.from({ length: 2000 }, (_, i) => ((i * 7 + 3 + 1) % 13) - 6);
    xs[0] = k;
    return xs.reduce((s, x) => s + x * x, 0);
  };
  assert.deepEqual(outputs.map((m) => [m.seq, m.outputs]), [[2, [{ kind: 'whole', value: [numbered(777_777)] }]], [4, [{ kind: 'whole', value: [numbered(5) + 1] }]]]);
  assert.ok(!messages.some((m) => (m as { type: string }).type === 'verdict'), 'no verdict from the runner');
});

test("work after the answer longer than the trusted case's on the same inputs is charged to the sample; trusted cases keep their call", () => {
  // Reference: the baseline's outputs arrive 1, 1, 3 ms after its answers (median 1), so that step may take
  // 2 x 1 + 1 = 3 ms; the learner's take 1, 5, 3.5 ms: charged 0, 2 and 0.5 ms.
  const cases = [
    { key: 'b', label: 'b', sampleLimitMs: 1, baseline: true, trusted: true, inputKey: 'n=1' },
    { key: 'l', label: 'l', sampleLimitMs: 1, baseline: false, trusted: false, inputKey: 'n=1' },
    { key: 'x', label: 'x', sampleLimitMs: 1, baseline: false, trusted: false, inputKey: 'n=2' },
  ];
  const taken = new Map([
    ['b', { callMs: [10, 10, 10], afterMs: [1, 1, 3], sampleRounds: [0, 1, 2] }],
    ['l', { callMs: [2, 2, 2], afterMs: [1, 5, 3.5], sampleRounds: [0, 1, 2] }],
    ['x', { callMs: [3, 3, 3], afterMs: [9, 9, 9], sampleRounds: [0, 1, 2] }],
  ]);
  const { samples, charged } = chargeAfterAnswer(cases, taken);
  assert.deepEqual(samples.get('b')?.samplesMs, [10, 10, 10]);
  assert.deepEqual(samples.get('l')?.samplesMs, [2, 4, 2.5]);
  assert.equal(charged.get('l'), 0.5);
  // No trusted case on its inputs: its call alone.
  assert.deepEqual(samples.get('x')?.samplesMs, [3, 3, 3]);
});

test("the two sides of a graded pair are charged alike for work after the answer, so equal code reads 1 (issue 42)", () => {
  // Reference: the baseline's and the copy's outputs arrive 1, 1, 1 and 1, 4, 1 ms after their answers (median of the
  // six 1 ms), so that step may take 2 x 1 + 1 = 3 ms. The learner's case and the copy run the same code and their
  // crossings are equally slow now and then (a busy machine: 4 ms once each): each is charged 1 ms on that sample, and
  // their medians stay equal. While only the learner's side was charged, the same samples read 10 / 11 = 0.91.
  const pair = 'graded';
  const cases = [
    { key: 'b', label: 'b', sampleLimitMs: 1, baseline: true, trusted: true, inputKey: 'n=1' },
    { key: 'l', label: 'l', sampleLimitMs: 1, baseline: false, trusted: false, inputKey: 'n=1', pair },
    { key: 's', label: 's', sampleLimitMs: 1, baseline: false, trusted: true, inputKey: 'n=1', pair },
  ];
  const taken = new Map([
    ['b', { callMs: [20, 20, 20], afterMs: [1, 1, 1], sampleRounds: [0, 1, 2] }],
    ['l', { callMs: [10, 10, 10], afterMs: [4, 1, 4], sampleRounds: [0, 1, 2] }],
    ['s', { callMs: [10, 10, 10], afterMs: [4, 1, 4], sampleRounds: [0, 1, 2] }],
  ]);
  const { samples, charged } = chargeAfterAnswer(cases, taken);
  assert.deepEqual(samples.get('l')?.samplesMs, [11, 10, 11]);
  assert.deepEqual(samples.get('s')?.samplesMs, [11, 10, 11]);
  assert.deepEqual([charged.get('l'), charged.get('s')], [1, 1]);
  // The baseline, trusted and in no pair, keeps its call.
  assert.deepEqual(samples.get('b')?.samplesMs, [20, 20, 20]);
});

test("in a graded run the solution's copy runs in a process that never loads the learner's module (issue 42)", async (t) => {
  // The learner's module changes something global at load (here a global the test's copy of the solution reads and
  // throws on; a real attack would slow the solution down through what they share). While the solution's copy ran
  // in the learner's process, it saw the change, failed, and the grade had no solution to compare with.
  const root = tempRoot('faults-root', 'harness-judge-', t);
  writeFileSync(
    path.join(root, 'solutions', 'faulty', 'faulty.ts'),
    `export function sumSquares(xs: Float64Array): number {
  if ((globalThis as { learnerWasHere?: boolean }).learnerWasHere) throw new Error('the learner module ran in this process');
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`,
  );
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), `(globalThis as { learnerWasHere?: boolean }).learnerWasHere = true;\n${RIGHT}`);
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  const solution = outcome.correctness.find((e) => e.variant === 'learner' && e.params['impl'] === 'solution');
  assert.equal(solution?.passed, true, JSON.stringify(solution));
  const results = outcome.runDir ? JSON.parse(readFileSync(path.join(outcome.runDir, 'results.json'), 'utf8')) : null;
  assert.ok(results?.cases.some((c: { params: Record<string, unknown> }) => c.params['impl'] === 'solution'), 'the solution copy was measured');
  assert.notEqual(results?.grade?.entries[0]?.ratio ?? null, null, JSON.stringify(results?.grade));
  assert.ok(results?.notes.some((n: string) => /^A graded run's own processes had round trips per sample of: the learner's graded cases' processes [\d.]+, [\d.]+ ms, the solution's processes [\d.]+, [\d.]+ ms/.test(n)), 'the note on their round trips');
  assert.ok(results?.notes.some((n: string) => /their speedups over the baseline, measured in the learner's process, compare two processes/.test(n)), "the note that a graded case's speedup crosses processes");
  // Every case records its calls per sample; the graded case and the solution's copy of it, the same code, make the same (equal work).
  const calls = (impl?: string) => results?.cases.find((c: { variant: string; params: Record<string, unknown> }) => c.variant === 'learner' && c.params['impl'] === impl)?.callsPerSample;
  assert.ok(results?.cases.every((c: { callsPerSample?: unknown }) => Number.isInteger(c.callsPerSample) && (c.callsPerSample as number) >= 1), JSON.stringify(results?.cases.map((c: { callsPerSample?: unknown }) => c.callsPerSample)));
  assert.equal(calls('solution'), calls(undefined));
  // Forks (forks: 2 here): the graded case and its copy each ran in two fresh processes, and every sample says which
  // (sampleProcesses, one per sample: round r in process r mod 2); every other case, in one process, says none.
  assert.match(results?.notes.find((n: string) => n.startsWith('Sandbox: ')) ?? '', /this graded run has 5 \(the learner's, and 2 forks each of its graded cases' and the solution's\)/);
  for (const c of results?.cases ?? []) {
    const pair = c.variant === 'learner';
    if (!pair) {
      assert.equal(c.sampleProcesses, undefined, `${c.variant}: one process`);
      continue;
    }
    assert.equal(c.sampleProcesses?.length, c.samplesMs.length, JSON.stringify(c.sampleProcesses));
    assert.deepEqual(c.sampleProcesses, c.sampleRounds.map((r: number) => (r - c.sampleRounds[0]) % 2), `${c.params['impl'] ?? 'learner'}: round r in fork r mod 2`);
  }
});

test("in a graded run the learner's graded case runs in a process of its own that mirrors the solution's, never beside the practice cases (issue 42)", async (t) => {
  // The 'steady' case (a practice case) marks the process it is set up in, and the learner's graded case throws in a
  // marked process. While the learner's graded cases ran in the process that runs every other case (whose inputs,
  // heap and caches read the solution graded against itself 10-15% off 1), the graded case failed here.
  const root = tempRoot('faults-root', 'harness-judge-', t);
  const labFile = path.join(root, 'labs', 'faulty', 'src', 'lab.ts');
  writeFileSync(labFile, replaceOnce(
    readFileSync(labFile, 'utf8'),
    "variant('steady', (xs) => [xs.reduce((s, x) => s + x * x, 0)]),",
    "{ ...variant('steady', (xs) => [xs.reduce((s, x) => s + x * x, 0)]), async setup() { (globalThis as { steadyHere?: boolean }).steadyHere = true; return { run: (xs: Input) => [xs.reduce((s, x) => s + x * x, 0)], teardown() {} }; } },",
  ));
  writeFileSync(
    path.join(root, 'exercises', 'faulty', 'faulty.ts'),
    `export function sumSquares(xs: Float64Array): number {
  if ((globalThis as { steadyHere?: boolean }).steadyHere) throw new Error("the graded case ran in the process of the lab's other cases");
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`,
  );
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  const entry = (variant: string, impl?: string) => outcome.correctness.find((e) => e.variant === variant && e.params['impl'] === impl);
  assert.equal(entry('learner')?.passed, true, JSON.stringify(entry('learner')));
  assert.equal(entry('steady')?.passed, true, 'the practice case ran too');
  const results = outcome.runDir ? JSON.parse(readFileSync(path.join(outcome.runDir, 'results.json'), 'utf8')) : null;
  assert.notEqual(results?.grade?.entries[0]?.ratio ?? null, null, JSON.stringify(results?.grade));
});

test("a graded case gets one discarded sample before each of its rounds; the plan's count is what is recorded", async () => {
  // A runner that answers every request at once, its case samples stamped 100 ms long (one call each, then): the judge
  // asks 51 calibration samples, then per case the warm-up (1) and 3 rounds of 2, plus for the rewarmed case one more
  // before each round (3).
  const asked = new Map<string | null, number>();
  const judge = answeringRunner(100, (key) => asked.set(key, (asked.get(key) ?? 0) + 1));
  const plain = { key: 'plain', label: 'plain', sampleLimitMs: 1000, baseline: true, trusted: true, inputKey: '' };
  const result = await judgeSamples([plain, { ...plain, key: 'graded', label: 'graded', baseline: false, trusted: false, rewarm: true }], { warmupSamples: 1, rounds: 3, samplesPerRound: 2 }, judge, ACCEPT_ALL);
  assert.deepEqual([asked.get(null), asked.get('plain'), asked.get('graded')], [51, 1 + 6, 1 + 3 + 6]);
  assert.equal(result.samples.get('graded')?.samplesMs.length, 6);
  assert.deepEqual(result.samples.get('graded')?.sampleRounds, [0, 0, 1, 1, 2, 2]);
});

// supervision.test plants faults by call number (one call a sample: the lab's oneCallPerSample); on a busy machine its
// fault planted at the first measured call fell in the warm-up: a slow warm-up call (over 110 round trips, under 300)
// made the judge probe 3 more warm-up samples for a count that stays 1 whatever they read. Here the warm-up call is
// 200 round trips (the runner stamps 20 ms on a 0.1 ms round trip): before, 3 probes were asked.
test('a case whose samples are one call each gets no probe samples, however slow its warm-up call', async () => {
  const asked = new Map<string | null, number>();
  const judge: JudgeChannel = new JudgeChannel(
    (request) =>
      queueMicrotask(() => {
        if (request.type === 'sample') asked.set(request.caseKey, (asked.get(request.caseKey) ?? 0) + 1);
        const now = performance.now();
        if (request.type === 'prepare') judge.deliver({ type: 'prepared', seq: request.seq, error: null }, now);
        if (request.type === 'between') judge.deliver({ type: 'ok', seq: request.seq }, now);
        if (request.type === 'sample') {
          const at = now + (request.caseKey === null ? 0.1 : 20);
          judge.deliver({ type: 'sampled', seq: request.seq, runnerMs: at - now }, at);
          judge.deliver({ type: 'output', seq: request.seq, outputs: [{ kind: 'whole' as const, value: null }] }, at);
        }
      }),
    () => {},
  );
  const one = { key: 'one', label: 'one', sampleLimitMs: 1000, baseline: true, trusted: true, inputKey: '' };
  // inputBytes null: the lab keeps its samples one call each (judge-outputs.ts).
  const result = await judgeSamples([one], { warmupSamples: 1, rounds: 3, samplesPerRound: 2 }, judge, { ...ACCEPT_ALL, inputBytes: () => null });
  assert.equal(asked.get('one'), 1 + 6, 'the warm-up and the measured samples, no probe');
  assert.equal(result.samples.get('one')?.samplesMs.length, 6);
});

test("a graded pair measured in forks: each fork warmed up, round r taken in fork r mod F on both sides, each sample's process recorded (issue 42)", async () => {
  // Three forks a side and a practice case in the learner's process. Fork f's runner stamps each of its case samples
  // 100 x (f + 1) ms long, so a sample's time says which process took it. Before forks every sample of the pair went
  // to one process (all 100 ms) and no sample recorded its process.
  const asked = new Map<string, number>();
  const runner = (name: string, ms: number) => answeringRunner(ms, (key) => void (key !== null && asked.set(`${name} ${key}`, (asked.get(`${name} ${key}`) ?? 0) + 1)));
  const F = 3;
  const learner = runner('learner', 50);
  const graded = Array.from({ length: F }, (_, f) => runner(`graded#${f}`, 100 * (f + 1)));
  const solution = Array.from({ length: F }, (_, f) => runner(`solution#${f}`, 100 * (f + 1)));
  const plain = { key: 'plain', label: 'plain', sampleLimitMs: 10_000, baseline: true, trusted: true, inputKey: '' };
  const pair = { sampleLimitMs: 10_000, baseline: false, inputKey: '', rewarm: true, pair: 'g', forks: F };
  const cases = [plain, { ...pair, key: 'g', label: 'g', trusted: false }, { ...pair, key: 'g|solution', label: 'g [solution]', trusted: true }];
  const route = {
    channels: [learner, ...graded, ...solution],
    names: ['learner', ...graded.map(() => 'graded'), ...solution.map(() => 'solution')],
    of: (key: string, fork = 0) => (key === 'plain' ? learner : key === 'g' ? graded[fork]! : solution[fork]!),
  };
  const result = await judgeSamples(cases, { warmupSamples: 1, rounds: 4, samplesPerRound: 2 }, route, ACCEPT_ALL);
  for (const key of ['g', 'g|solution']) {
    const s = result.samples.get(key);
    // Rounds 0..3 in forks 0, 1, 2, 0.
    assert.deepEqual(s?.samplesMs.map((ms) => Math.round(ms / 100) * 100), [100, 100, 200, 200, 300, 300, 100, 100], key);
    assert.deepEqual(s?.sampleProcesses, [0, 0, 1, 1, 2, 2, 0, 0], key);
    assert.equal(s?.sampleProcesses?.length, s?.samplesMs.length);
  }
  // Each fork: its own warm-up (1), then before each of its rounds one discarded sample and the round's 2.
  for (const side of ['graded', 'solution']) {
    const key = side === 'graded' ? 'g' : 'g|solution';
    assert.deepEqual([0, 1, 2].map((f) => asked.get(`${side}#${f} ${key}`)), [1 + 2 * 3, 1 + 3, 1 + 3], side);
  }
  assert.equal(result.samples.get('plain')?.sampleProcesses, undefined, 'a case in one process records none');
  assert.match(result.notes.find((n) => n.startsWith("A graded run's own processes")) ?? '', /the learner's graded cases' processes [\d.]+, [\d.]+, [\d.]+ ms, the solution's processes [\d.]+, [\d.]+, [\d.]+ ms.*3 fresh processes a side/);
});

test("a graded pair is measured side by side in each round, its samples ABBA, the side that goes first alternating by round (issue 42)", async () => {
  // The lab's order puts the solution's copy last. Before, the rotation took each case's samples in turn, the pair
  // apart: a a g g g b b s s s (each pair side after a case of its own, seconds apart in a real run).
  const asked: string[] = [];
  const runner = (name: string) => answeringRunner(100, (key) => void (key !== null && asked.push(`${name} ${key}`)));
  const learner = runner('learner');
  const graded = [runner('graded#0'), runner('graded#1')];
  const solution = [runner('solution#0'), runner('solution#1')];
  const plain = { sampleLimitMs: 10_000, baseline: false, trusted: true, inputKey: '' };
  const pair = { ...plain, rewarm: true, pair: 'g', forks: 2 };
  const cases = [{ ...plain, key: 'a', label: 'a' }, { ...pair, key: 'g', label: 'g', trusted: false }, { ...plain, key: 'b', label: 'b' }, { ...pair, key: 's', label: 's' }];
  const route = {
    channels: [learner, ...graded, ...solution],
    of: (key: string, fork = 0) => (key === 'g' ? graded[fork]! : key === 's' ? solution[fork]! : learner),
  };
  await judgeSamples(cases, { warmupSamples: 1, rounds: 2, samplesPerRound: 2 }, route, ACCEPT_ALL);
  const warmUps = ['learner a', 'graded#0 g', 'graded#1 g', 'learner b', 'solution#0 s', 'solution#1 s'];
  assert.deepEqual(asked.slice(0, warmUps.length), warmUps);
  // Each side's first sample of a round is the discarded one (rewarm), taken right before its measured ones.
  assert.deepEqual(asked.slice(warmUps.length), [
    // round 0 (fork 0): a, then the pair, the graded case first: rewarm g, g, rewarm s, s, s, g; then b
    'learner a', 'learner a',
    'graded#0 g', 'graded#0 g', 'solution#0 s', 'solution#0 s', 'solution#0 s', 'graded#0 g',
    'learner b', 'learner b',
    // round 1 (fork 1), rotated by one unit: the pair, the solution's copy first; b; a
    'solution#1 s', 'solution#1 s', 'graded#1 g', 'graded#1 g', 'graded#1 g', 'solution#1 s',
    'learner b', 'learner b',
    'learner a', 'learner a',
  ]);
});

test('a sample records the lab process time held within the round trip bound of the judge time (issue 42)', () => {
  // Honest: the runner's time lies between the judge's time less the round trip and the judge's time.
  assert.equal(recordedCallMs(0.17, 0.072, 0.12), 0.072);
  // A forged clock (the call "took" nothing): the judge's time less the bound, not less.
  assert.equal(recordedCallMs(0.17, 0, 0.12), 0.17 - 0.12);
  // A runner's time above the judge's cannot be: the judge's.
  assert.equal(recordedCallMs(0.17, 5, 0.12), 0.17);
  assert.equal(recordedCallMs(0.17, Number.NaN, 0.12), 0.17);
  // The bound: the calibration's 90th percentile, capped, never negative.
  // Reference: 10 round trips, h = 9 x 0.9 = 8.1: 0.11 + 0.1 x (0.2 - 0.11) = 0.119.
  assert.ok(Math.abs(upperTrip([0.2, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11]) - 0.119) < 1e-12);
  // Reference: the calibration's 51 round trips, h = 50 x 0.9 = 45: the 46th smallest, as the judge took it before.
  const trips = Array.from({ length: 51 }, (_, i) => (((i * 37) % 51) + 1) / 1000);
  assert.equal(upperTrip(trips), 0.046);
  assert.equal(upperTrip([-0.02, -0.01]), 0);
  assert.equal(upperTrip(Array.from({ length: 51 }, (_, i) => i / 10)), MAX_TRIP_BOUND_MS);
  assert.equal(upperTrip([]), 0);
});

test('a sample of several calls is limited once by the floor, then by its check time per further call (not the 10 s floor per call)', () => {
  // 1,000 calls of a 0.05 ms case: 10 s + 999 x 20 x 0.05 ms, where the floor per call gave 10,000 s.
  assert.equal(multiCallLimitMs(sampleLimitMs(0.05), 0.05, 1000), 10_000 + 999);
  assert.equal(multiCallLimitMs(sampleLimitMs(0.05), 0.05, 1), 10_000, 'one call: the one-call limit');
  assert.equal(multiCallLimitMs(10_000, null, 11), 11_000, 'no check time: a tenth of a second a further call');
});
