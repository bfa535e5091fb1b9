/**
 * The output checks in the judge's process (issue 42): the runner only sends what a call returned; the judge checks it
 * on its own copy of the input (judge-outputs.ts), whole or, for an output too large to send each sample, at positions
 * it draws once the answer is in. The runners here are fakes that answer as a runner whose learner code writes any
 * message it likes on the channel. No timing is asserted, so this file runs beside others.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { giveFaultyLabNumberedInputs } from './support/numbered-inputs.ts';
import { replaceOnce } from './support/replace-once.ts';
import { tempRoot } from './support/temp-root.ts';
import { writeLargeLab } from './support/large-lab.ts';
import { type Answered, JudgeChannel, RefusedAnswer } from '../src/measure/judge-channel.ts';
import type { JudgedCase } from '../src/measure/judged-case.ts';
import { judgeSamples } from '../src/measure/judge-sampler.ts';
import { callsPerSample, MAX_CALLS_PER_SAMPLE, MAX_SAMPLE_BYTES, MIN_SAMPLE_TRIPS, PAIR_SAMPLE_TRIPS, PAIR_SLOWDOWN, pairedCalls, TARGET_SAMPLE_TRIPS } from '../src/measure/sample-limits.ts';
import { labOutputJudge } from '../src/measure/judge-outputs.ts';
import { drawPositions, MISS_PROBABILITY, positionsPerSample, WRONG_FRACTION } from '../src/measure/output-positions.ts';
import { withinTolerance } from '../src/comparators.ts';
import type { LabContext, LabDefinition } from '../src/lab-definition.ts';
import type { JudgeRequest, RunnerMessage, SampleOutput } from '../src/measure/run-protocol.ts';
import { OUTPUT_BYTES_BOUND, outputOf, serveSamples, sharedOutput, shownValues, valuesAt, valuesIn, type ServedCase } from '../src/measure/sample-server.ts';
import { copyInput } from '../src/measure/copy-input.ts';
import { drawWholeCheck, WHOLE_BLOCK_ELEMENTS, WHOLE_CHECK_BYTES, wholeCheckChance, wholeFetchMs } from '../src/measure/whole-output.ts';

const CTX: LabContext = { impl: 'exercise', implDir: '/nowhere', rootDir: '/nowhere', quick: true, availableParallelism: 2, seed: 1 };
const PLAN = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };
const CASE: JudgedCase = { key: 'learner', label: 'learner', sampleLimitMs: 10_000, baseline: false, trusted: false, inputKey: '' };

/** A lab of sums of squares with fresh inputs (input k carries k in xs[0]), checked by checkSample, as faulty's. */
function sumsLab(): LabDefinition<Float64Array, number[]> {
  const sum = (xs: Float64Array) => xs.reduce((s, x) => s + x * x, 0);
  const make = (k: number) => Float64Array.from({ length: 100 }, (_, i) => (i === 0 ? k : (i % 13) - 6));
  return {
    inputParams: [],
    inputs: () => ({ check: [], measure: make(0), measureAt: (k: number) => make(k) }),
    expected: (xs: Float64Array) => [sum(xs)],
    comparator: withinTolerance({ abs: 1e-9, rel: 0 }),
    checkSample: (xs: Float64Array, out: number[]) => withinTolerance({ abs: 1e-9, rel: 0 }).compare([sum(xs)], out),
  } as unknown as LabDefinition<Float64Array, number[]>;
}

/**
 * A runner that answers every request at once, its outputs for each sample's prepared fresh numbers (one per call)
 * from `answer`; its samples stamped `tripMs` plus `callMs` a call later than they are answered (no real waiting, so
 * the judge reads the same times on a busy machine).
 */
function scriptedRunner(
  answer: (fresh: number[]) => SampleOutput[],
  { show = () => new Float64Array(0), after, tripMs = 0, callMs = 0 }: { show?: (positions: number[]) => Float64Array; after?: (seq: number) => RunnerMessage | null; tripMs?: number; callMs?: number | ((caseKey: string) => number) } = {},
) {
  const callMsOf = typeof callMs === 'number' ? () => callMs : callMs;
  const asked: JudgeRequest[] = [];
  let fresh: number[] = [];
  const channel: JudgeChannel = new JudgeChannel(
    (request) =>
      queueMicrotask(() => {
        asked.push(request);
        const now = performance.now();
        if (request.type === 'prepare') {
          fresh = request.fresh;
          channel.deliver({ type: 'prepared', seq: request.seq, error: null }, now);
        }
        if (request.type === 'between') channel.deliver({ type: 'ok', seq: request.seq }, now);
        // A block (the whole check, whole-output.ts) is shown as the positions it spans.
        const shownAt = (r: JudgeRequest & { type: 'show' }) => (r.block ? Array.from({ length: r.block.count }, (_, i) => r.block!.from + i) : r.positions);
        if (request.type === 'show') channel.deliver({ type: 'shown', seq: request.seq, values: show(shownAt(request)) }, now);
        if (request.type === 'sample') {
          const at = now + tripMs + (request.caseKey === null ? 0 : callMsOf(request.caseKey) * fresh.length);
          channel.deliver({ type: 'sampled', seq: request.seq, runnerMs: Math.max(0, at - now - tripMs) }, at);
          const instead = after?.(request.seq) ?? null;
          if (instead) return channel.deliver(instead as never, at);
          channel.deliver({ type: 'output', seq: request.seq, outputs: request.caseKey === null ? [{ kind: 'whole', value: null }] : answer(fresh) }, at);
        }
      }),
    () => {},
  );
  return { channel, asked };
}

/** scriptedRunner answering each call alone, at once. */
function fakeRunner(answer: (fresh: number) => SampleOutput, show?: (positions: number[]) => Float64Array, after?: (seq: number) => RunnerMessage | null) {
  return scriptedRunner((fresh) => fresh.map(answer), { ...(show ? { show } : {}), ...(after ? { after } : {}) });
}

test('a forged right-looking answer is checked by the judge on its own input: a wrong output fails the case (issue 42)', async () => {
  const lab = sumsLab();
  const outputs = () => labOutputJudge(lab as never, CTX, [{ key: 'learner', definition: { variant: 'learner', params: {} }, samples: 7, checked: 7 }]);
  // Right on every input but the fresh ones (a kernel that does part of its work): the runner says nothing of whether
  // it is right, and the judge's own check finds it on the first sample. Before, the runner's verdict decided.
  const wrong = fakeRunner(() => ({ kind: 'whole', value: [42] }));
  const result = await judgeSamples([CASE], PLAN, wrong.channel, await outputs());
  assert.match(result.failed.get('learner')?.reason ?? '', /^wrong output on warm-up sample #0 at \[0\]: expected \d+, got 42/);
  // The same fake, right: every sample passes, on the fresh input the judge revealed (each sum carries its k^2).
  const sum = (k: number) => k * k + Array.from({ length: 99 }, (_, i) => (((i + 1) % 13) - 6) ** 2).reduce((a, b) => a + b, 0);
  const right = fakeRunner((k) => ({ kind: 'whole', value: [sum(k)] }));
  const ok = await judgeSamples([CASE], PLAN, right.channel, await outputs());
  assert.equal(ok.failed.size, 0, JSON.stringify([...ok.failed]));
  assert.equal(ok.samples.get('learner')?.samplesMs.length, 6);
  // A call that threw, an output in no form the protocol has: failed too, never taken as right.
  const threw = await judgeSamples([CASE], PLAN, fakeRunner(() => ({ kind: 'threw', error: 'boom' })).channel, await outputs());
  assert.match(threw.failed.get('learner')?.reason ?? '', /threw while it was measured \(warm-up\): boom/);
  const odd = await judgeSamples([CASE], PLAN, fakeRunner(() => ({ kind: 'equal' }) as never).channel, await outputs());
  assert.match(odd.failed.get('learner')?.reason ?? '', /no form the protocol has/);
});

test("a runner's own verdict, or an output or 'shown' the judge did not ask for, is refused (issue 42)", async () => {
  // The message a runner used to send after 'sampled': no longer an answer the judge takes.
  const channel = new JudgeChannel(() => {}, () => {});
  const answered = channel.ask({ type: 'sample', caseKey: 'learner' }, null);
  channel.deliver({ type: 'sampled', seq: 1, runnerMs: 0 }, 0);
  assert.throws(
    () => channel.deliver({ type: 'verdict', seq: 1, equal: true, reason: null, checkMs: 0 } as never, 1),
    (e) => e instanceof RefusedAnswer && /'verdict' #1.*waited for 'output' #1/.test(e.message) && e.caseKey === 'learner',
  );
  channel.deliver({ type: 'output', seq: 1, outputs: [{ kind: 'whole', value: [0] }] }, 1);
  await answered;
  // An output with nothing asked, a 'shown' with no 'show' in flight.
  assert.throws(() => channel.deliver({ type: 'output', seq: 1, outputs: [{ kind: 'whole', value: [0] }] }, 2), (e) => e instanceof RefusedAnswer && /did not ask for/.test(e.message));
  assert.throws(() => channel.deliver({ type: 'shown', seq: 2, values: new Float64Array(1) }, 2), (e) => e instanceof RefusedAnswer && /'shown'.*did not ask for/.test(e.message));
  const shown = channel.ask({ type: 'show', caseKey: 'learner', positions: [0] }, null);
  assert.throws(() => channel.deliver({ type: 'output', seq: 2, outputs: [{ kind: 'whole', value: [0] }] }, 3), (e) => e instanceof RefusedAnswer && /waited for 'shown' #2/.test(e.message));
  channel.deliver({ type: 'shown', seq: 2, values: new Float64Array([0]) }, 3);
  await shown;
});

/** A lab whose output is 2^20 doubles (8 MiB, over the bound): entry p is p + k for fresh input k. */
function largeLab(length: number): LabDefinition<{ k: number }, Float64Array> {
  return {
    name: 'large',
    inputParams: [],
    inputs: () => ({ check: [], measure: { k: 0 }, measureAt: (k: number) => ({ k }) }),
    expected: () => new Float64Array(0),
    comparator: withinTolerance({ abs: 0, rel: 0 }),
    checkSample: (input: { k: number }, output: Float64Array) => withinTolerance({ abs: 0, rel: 0 }).compare(Float64Array.from({ length }, (_, p) => p + input.k), output),
    outputLength: () => length,
    expectedAtPositions: (input: { k: number }, positions: readonly number[]) => Float64Array.from(positions, (p) => p + input.k),
  } as unknown as LabDefinition<{ k: number }, Float64Array>;
}

test('positions per sample: a kernel leaving 0.1% of its output wrong escapes every sample of a run with probability at most 1e-6', () => {
  for (const samples of [1, 2, 7, 13, 50, 200, 10_000]) {
    const p = positionsPerSample(samples);
    assert.ok((1 - WRONG_FRACTION) ** (p * samples) <= MISS_PROBABILITY, `${samples} samples x ${p} positions`);
  }
  // Reference: ln(1e-6) / ln(0.999) = 13,809.6, so a 7-sample run needs ceil(13,809.6 / 7) = 1,973 positions a sample.
  assert.equal(positionsPerSample(7), 1973);
  const drawn = drawPositions(10_000, 1000);
  assert.ok(drawn.every((p) => Number.isInteger(p) && p >= 0 && p < 1000));
  assert.ok(new Set(drawn).size > 990, 'spread over the output');
});

test('an output too large to send is checked at positions drawn after the answer: a kernel that computes 99.9% of it is caught (issue 42)', async () => {
  const length = 2 ** 20;
  assert.ok(length * 8 > OUTPUT_BYTES_BOUND);
  const lab = largeLab(length);
  const judge = () => labOutputJudge(lab as never, CTX, [{ key: 'learner', definition: { variant: 'learner', params: {} }, samples: 7, checked: 7 }]);
  // The kernel computes every entry but the last 0.1% (1,049 entries), which it leaves from an earlier sample.
  const computed = Math.floor(length * (1 - WRONG_FRACTION));
  let k = 0;
  const partial = fakeRunner(
    (fresh) => ((k = fresh), { kind: 'large', length }),
    (positions) => Float64Array.from(positions, (p) => (p < computed ? p + k : p)),
  );
  const caught = await judgeSamples([CASE], PLAN, partial.channel, await judge());
  assert.match(caught.failed.get('learner')?.reason ?? '', /^wrong output on (warm-up|measured) sample #\d+ at \[\d+\]/);
  const at = Number(/at \[(\d+)\]/.exec(caught.failed.get('learner')!.reason)?.[1]);
  assert.ok(at >= computed, 'the position named is one of the output, in the part left wrong');
  // Each 'show' came after the sample's output had arrived, and asked for the planned number of positions.
  // (Those of positions: blocks of the whole check may follow, whole-output.ts.)
  const shows = partial.asked.filter((r): r is JudgeRequest & { type: 'show' } => r.type === 'show' && r.block === undefined);
  assert.ok(shows.length >= 1 && shows.every((s) => s.positions.length === positionsPerSample(7)));
  // The whole output, right: every sample passes. A length not the input's: failed without asking.
  const right = fakeRunner((fresh) => ((k = fresh), { kind: 'large', length }), (positions) => Float64Array.from(positions, (p) => p + k));
  assert.equal((await judgeSamples([CASE], PLAN, right.channel, await judge())).failed.size, 0);
  const short = await judgeSamples([CASE], PLAN, fakeRunner(() => ({ kind: 'large', length: length - 1 })).channel, await judge());
  assert.match(short.failed.get('learner')?.reason ?? '', /at \[length\]: expected 1048576, got 1048575/);
  // A small output sent as if it were large (to be checked at positions only): refused.
  const small = await labOutputJudge(largeLab(1000) as never, CTX, [{ key: 'learner', definition: { variant: 'learner', params: {} }, samples: 7, checked: 7 }]);
  const dodged = await judgeSamples([CASE], PLAN, fakeRunner(() => ({ kind: 'large', length: 1000 })).channel, small);
  assert.match(dodged.failed.get('learner')?.reason ?? '', /expected the whole output, got only its length \(1000 elements\)/);
  // A lab with no position check cannot take a large output.
  const none = await labOutputJudge({ ...lab, expectedAtPositions: undefined } as never, CTX, [{ key: 'learner', definition: { variant: 'learner', params: {} }, samples: 7, checked: 7 }]);
  const refused = await judgeSamples([CASE], PLAN, fakeRunner(() => ({ kind: 'large', length })).channel, none);
  assert.match(refused.failed.get('learner')?.reason ?? '', /too large to send whole and the large lab has no position check/);
});

test('a large output is also fetched whole, block by block after its positions, and checked whole: one wrong entry of 2^20 is caught (issue 42)', async () => {
  const length = 2 ** 20;
  const judge = await labOutputJudge(largeLab(length) as never, CTX, [{ key: 'learner', definition: { variant: 'learner', params: {} }, samples: 7, checked: 7 }]);
  // 8 MiB: within WHOLE_CHECK_BYTES, so every sample is checked whole. Wrong at the last entry only.
  assert.equal(wholeCheckChance(length), 1);
  let k = 0;
  const runner = fakeRunner((fresh) => ((k = fresh), { kind: 'large', length }), (positions) => Float64Array.from(positions, (p) => (p === length - 1 ? -1 : p + k)));
  const caught = await judgeSamples([CASE], PLAN, runner.channel, judge);
  assert.match(caught.failed.get('learner')?.reason ?? '', new RegExp(`^wrong output on warm-up sample #0 at \\[${length - 1}\\]: expected \\d+, got -1`));
  // The positions first, then each block of the output once, in the order the judge drew.
  const shows = runner.asked.filter((r): r is JudgeRequest & { type: 'show' } => r.type === 'show');
  assert.equal(shows[0]?.block, undefined);
  assert.equal(shows[0]?.positions.length, positionsPerSample(7));
  const blocks = shows.slice(1).map((s) => s.block!);
  assert.equal(blocks.length, length / WHOLE_BLOCK_ELEMENTS);
  assert.deepEqual(blocks.map((b) => b.from).sort((a, b) => a - b), Array.from({ length: blocks.length }, (_, i) => i * WHOLE_BLOCK_ELEMENTS));
  // A right one passes; the run's note says how many outputs were checked whole, and what it took.
  const right = fakeRunner((fresh) => ((k = fresh), { kind: 'large', length }), (positions) => Float64Array.from(positions, (p) => p + k));
  const passed = await judgeSamples([CASE], PLAN, right.channel, await labOutputJudge(largeLab(length) as never, CTX, [{ key: 'learner', definition: { variant: 'learner', params: {} }, samples: 7, checked: 7 }]));
  assert.equal(passed.failed.size, 0);
  const samples = PLAN.warmupSamples + PLAN.rounds * PLAN.samplesPerRound;
  assert.ok(passed.notes.some((n) => new RegExp(`^Outputs over 4 MiB were checked at positions drawn after each answer \\(${samples}\\), and whole in ${samples} of them .*: 56 MiB fetched in .* and checked in `).test(n)), passed.notes.join('\n'));
  // A triad of 2^26 doubles (512 MiB) is checked whole one sample in 16, drawn after its answer.
  assert.equal(wholeCheckChance(2 ** 26), 1 / 16);
  const drawn = Array.from({ length: 4000 }, () => drawWholeCheck(2 ** 26)).filter(Boolean).length;
  // The plan's share (plan.ts): min(size, 32 MiB) at 5 ns a byte in the check and per sample; nothing for an output
  // sent whole. Reference: 8 MiB x 5 ns = 41.94 ms; 32 MiB x 5 ns = 167.77 ms.
  assert.deepEqual(wholeFetchMs(2 * 2 ** 20), { checkMs: 0, sampleMs: 0 });
  assert.equal(wholeFetchMs(8 * 2 ** 20).sampleMs.toPrecision(4), '41.94');
  assert.deepEqual(wholeFetchMs(2 ** 29), wholeFetchMs(WHOLE_CHECK_BYTES));
  assert.equal(wholeFetchMs(2 ** 29).checkMs.toPrecision(5), '167.77');
  // 250 expected, a standard deviation of 15.3: outside 170-330 once in about 10^6 runs.
  assert.ok(drawn > 170 && drawn < 330, `${drawn} of 4000 drawn`);
});

test('the runner sends outputs up to the bound whole, a larger typed array by the values the judge asks for', async () => {
  assert.deepEqual(outputOf([1, 2]), { kind: 'whole', value: [1, 2] });
  assert.deepEqual(outputOf(new Float64Array(OUTPUT_BYTES_BOUND / 8)).kind, 'whole');
  assert.deepEqual(outputOf(new Float64Array(OUTPUT_BYTES_BOUND / 8 + 1)), { kind: 'large', length: OUTPUT_BYTES_BOUND / 8 + 1 });
  assert.deepEqual([...valuesAt(Float64Array.of(5, 6, 7), [2, 0, 3, -1, 1.5])], [7, 5, Number.NaN, Number.NaN, Number.NaN]);
  // Served end to end: the large output stays in the runner and 'show' reads it.
  const big = Float64Array.from({ length: OUTPUT_BYTES_BOUND / 8 + 10 }, (_, i) => i);
  const sent: RunnerMessage[] = [];
  await serveSamples([{ key: 'k', instance: { run: () => big, teardown() {} }, inputAt: () => null, freshInputs: false, measured: () => ({ type: 'measured', caseKey: 'k', observations: {}, workPerSample: { amount: 1, unit: 'x' }, sample: { item: 'sample', itemsPerSample: 1 } }) }], {
    send: (m) => void sent.push(m),
    listen: (handler) => {
      for (const r of [
        { type: 'prepare', seq: 1, caseKey: 'k', fresh: [1] },
        { type: 'sample', seq: 2, caseKey: 'k' },
        { type: 'show', seq: 3, caseKey: 'k', positions: [3, big.length - 1] },
        // A block (the whole check): from an element on, NaN past the end.
        { type: 'show', seq: 4, caseKey: 'k', positions: [], block: { from: big.length - 2, count: 4 } },
        { type: 'finish', seq: 5, caseKeys: [] },
      ]) handler(r);
      return () => {};
    },
  });
  assert.deepEqual(sent.find((m) => m.type === 'output'), { type: 'output', seq: 2, outputs: [{ kind: 'large', length: big.length }] });
  const shown = sent.filter((m) => m.type === 'shown').map((m) => [...(m as { values: Float64Array }).values]);
  assert.deepEqual(shown, [[3, big.length - 1], [big.length - 2, big.length - 1, Number.NaN, Number.NaN]]);
  // A block that is not one gets no values; one larger than the bound, at most the bound's.
  assert.equal(valuesIn(big, { from: -1, count: 2 }).length, 0);
  assert.equal(valuesIn(big, { from: 0, count: big.length }).length, OUTPUT_BYTES_BOUND / 8);
});

test('a block of a BigInt64Array output reads as its positions do (Number() of each), where Float64Array.set threw', () => {
  for (const output of [BigInt64Array.of(-3n, 0n, 2n ** 53n), BigUint64Array.of(3n, 0n, 2n ** 53n)]) {
    const positions = [0, 1, 2];
    const asPositions = [...valuesAt(output as unknown as ArrayLike<number>, positions)];
    assert.deepEqual([...valuesIn(output as unknown as ArrayLike<number>, { from: 0, count: 4 })], [...asPositions, Number.NaN]);
    assert.deepEqual([...shownValues(output as unknown as ArrayLike<number>, { positions: [], block: { from: 1, count: 2 } })], asPositions.slice(1));
  }
});

/** Serves `requests` to one case and returns what the runner sent and what the case did, in order. */
async function serveOne(instance: ServedCase<Float64Array, number[]>['instance'], requests: unknown[]): Promise<RunnerMessage[]> {
  const sent: RunnerMessage[] = [];
  await serveSamples(
    [
      {
        key: 'k',
        instance,
        inputAt: (_sample, fresh) => Float64Array.of(fresh),
        freshInputs: true,
        measured: () => ({ type: 'measured', caseKey: 'k', observations: {}, workPerSample: { amount: 1, unit: 'x' }, sample: { item: 'sample', itemsPerSample: 1 } }),
      },
    ],
    {
      send: (m) => void sent.push(m),
      listen: (handler) => {
        for (const r of requests) handler(r);
        return () => {};
      },
    },
  );
  return sent;
}

test("a case's beforeSample runs with the sample's input after 'prepare', before the timed calls (gpu-batching's passes loaded into device memory)", async () => {
  const did: string[] = [];
  const instance = {
    beforeSample: async (xs: Float64Array) => void did.push(`before ${xs[0]}`),
    run: (xs: Float64Array) => (did.push(`run ${xs[0]}`), [xs[0]!]),
    teardown() {},
  };
  const sent = await serveOne(instance, [
    { type: 'prepare', seq: 1, caseKey: 'k', fresh: [3] },
    { type: 'sample', seq: 2, caseKey: 'k' },
    { type: 'prepare', seq: 3, caseKey: 'k', fresh: [5] },
    { type: 'sample', seq: 4, caseKey: 'k' },
    { type: 'finish', seq: 5, caseKeys: [] },
  ]);
  assert.deepEqual(did, ['before 3', 'run 3', 'before 5', 'run 5']);
  assert.deepEqual(sent.filter((m) => m.type === 'prepared').map((m) => (m as { error: unknown }).error), [null, null]);
  // One that throws fails its 'prepare', naming it; one asked for a sample of several calls is refused.
  const failing = await serveOne({ ...instance, beforeSample: () => { throw new Error('no device'); } }, [
    { type: 'prepare', seq: 1, caseKey: 'k', fresh: [3] },
    { type: 'prepare', seq: 2, caseKey: 'k', fresh: [3, 4] },
    { type: 'finish', seq: 3, caseKeys: [] },
  ]);
  const errors = failing.filter((m) => m.type === 'prepared').map((m) => String((m as { error: unknown }).error));
  assert.match(errors[0]!, /beforeSample\) threw: .*no device/);
  assert.match(errors[1]!, /one call a sample/);
});

/**
 * The faults-root lab, made to lie in the runner's process alone: there its comparator and checkSample say every
 * output is right (as native code in the runner could make any verdict it sent say), in the judge's they are honest.
 */
function lyingRunner(t: Parameters<typeof tempRoot>[2] & object, numbered: boolean, learner: string): string {
  const root = tempRoot('faults-root', 'harness-judge-outputs-', t);
  if (numbered) giveFaultyLabNumberedInputs(root);
  const file = path.join(root, 'labs', 'faulty', 'src', 'lab.ts');
  const lie = '({ equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: 0 })';
  // Each planted change must apply (replaceOnce): a runner that did not lie would make these tests pass untested.
  let source = readFileSync(file, 'utf8');
  source = replaceOnce(
    source,
    "import { type CaseDefinition, type LabDefinition, withinTolerance } from '@parallel-course/harness';",
    "import { type CaseDefinition, type LabDefinition, withinTolerance } from '@parallel-course/harness';\nconst IN_RUNNER = (process.argv[1] ?? '').endsWith('run-child.ts');",
  );
  source = replaceOnce(source, 'comparator: withinTolerance({ abs: 1e-9, rel: 1e-12 }),', `comparator: IN_RUNNER ? { description: 'lies in the runner', compare: () => ${lie} } : withinTolerance({ abs: 1e-9, rel: 1e-12 }),`);
  // The numbered lab checks its samples with checkSample (numbered-inputs.ts): that lies in the runner too.
  if (numbered) source = replaceOnce(source, 'checkSample: (xs: Input, out: Output) =>', `checkSample: (xs: Input, out: Output) => IN_RUNNER ? ${lie} :`);
  writeFileSync(file, source);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), learner);
  return root;
}

async function runFaulty(root: string) {
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: { warmupSamples: 1, rounds: 2, samplesPerRound: 2 }, silent: true, rootDir: root });
  return outcome.correctness.find((e) => e.variant === 'learner');
}

test("the check stage's outputs are compared in the judge: a runner that says every output is right does not pass a wrong one (issue 42)", async (t) => {
  // Wrong on every input. Before, the runner compared and its word was the check's (and every sample's): PASS.
  const entry = await runFaulty(lyingRunner(t, false, 'export function sumSquares(xs: Float64Array): number {\n  return xs.length;\n}\n'));
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.match(entry?.reason ?? '', /^wrong output on check input #0 at \[0\]: expected \d+, got 10\. Look at exercises\/faulty\/faulty\.ts/);
  assert.equal(entry?.comparator, '|actual - expected| <= 1e-9 + 1e-12·|expected|');
});

test("the measured samples' outputs are checked in the judge: a runner that says every sample is right does not pass a wrong one (issue 42)", async (t) => {
  // Right on the check inputs, wrong on every fresh measured input (xs[0] = its number, above the inputs' 6 but for
  // a chance of 6 in 2^20). Before, the runner's checkSample gave the verdict of each sample: PASS. Wrong by 1,000:
  // by 1, an input numbered above about 10^6 (4.6% of them) passed, its sum near 10^12 and the tolerance 1e-12 of it
  // (the first sample passing "seen once in CI" of session 17's closing note).
  const learner = `export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return xs[0]! > 6 ? s + 1000 : s;
}
`;
  const entry = await runFaulty(lyingRunner(t, true, learner));
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  // The first sample the judge checks fails: the warm-up's.
  assert.match(entry?.reason ?? '', /^wrong output on warm-up sample #0 at \[0\]: expected \d+, got \d+ .*Look at exercises\/faulty\/faulty\.ts/);
  assert.equal(entry?.failedAt?.sample, 0, JSON.stringify(entry));
});

test("a check output too large to send is checked whole in the judge: a runner that says it is right does not pass a wrong one (issue 42)", { timeout: 120_000 }, async (t) => {
  // A lab whose output is 2^20 doubles (8 MiB, over the bound): entry p = p + the input's first number. The learner
  // gets 1% of its entries wrong, and the runner's comparator says every output is right. Before, the runner's word
  // was the check's: the case passed.
  const root = tempRoot('faults-root', 'harness-judge-large-', t);
  writeLargeLab(root, 'export function sumSquares(xs: Float64Array): Float64Array {\n  return Float64Array.from({ length: 2 ** 20 }, (_, p) => (p % 100 === 99 ? -1 : p + xs[0]!));\n}\n', { lyingRunner: true });
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), silent: true, rootDir: root });
  const entry = outcome.correctness.find((e) => e.variant === 'learner');
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  // Fetched whole (whole-output.ts) and checked at positions of it, then whole: a wrong entry is named.
  assert.match(entry?.reason ?? '', /^wrong output on check input #0 at \[\d*99\]: expected \d+, got -1\. Look at exercises\/faulty\/faulty\.ts/);
  // The right variants pass the same checks, and are measured (every sample checked at positions and whole too).
  assert.ok(outcome.correctness.filter((e) => e.variant !== 'learner').every((e) => e.passed), JSON.stringify(outcome.correctness));
  assert.deepEqual(outcome.results?.cases.map((c) => c.variant).sort(), ['loop', 'steady']);
});

/** A runner whose samples take 0.1 ms plus 0.05 ms a call, as the judge reads them. */
function timedRunner(answer: (fresh: number[]) => SampleOutput[]) {
  return scriptedRunner(answer, { tripMs: 0.1, callMs: 0.05 });
}

/** The sums lab's right output for fresh input k (xs[0] = k, the rest (i % 13) - 6). */
const rightSum = (k: number) => k * k + Array.from({ length: 99 }, (_, i) => (((i + 1) % 13) - 6) ** 2).reduce((a, b) => a + b, 0);
const sumsJudge = () => labOutputJudge(sumsLab() as never, CTX, [{ key: 'learner', definition: { variant: 'learner', params: {} }, samples: PLAN.warmupSamples, checked: 7 }]);

test('calls per sample: the smallest count that makes a sample 100 round trips long, within the caps', () => {
  // Reference: a 0.05 ms call and a 0.1 ms round trip: ceil(110 x 0.1 / 0.05) = 220 calls, an 11 ms sample (100
  // round trips and 10% headroom).
  assert.deepEqual(callsPerSample(0.05, 0.1, 0), { calls: 220, shortBy: null });
  // Long enough alone: one call, nothing changes.
  assert.deepEqual(callsPerSample(12, 0.1, 1e9), { calls: 1, shortBy: null });
  // A call that reads as nothing at all: the cap.
  assert.deepEqual(callsPerSample(0, 0.1, 0), { calls: MAX_CALLS_PER_SAMPLE, shortBy: 'cap' });
  // Memory: 64 MiB over 1 MiB a call is 64 calls.
  assert.deepEqual(callsPerSample(0.05, 0.1, 2 ** 20), { calls: MAX_SAMPLE_BYTES / 2 ** 20, shortBy: 'memory' });
  // The lab's inputs cannot be copied per call (oneCallPerSample): one.
  assert.deepEqual(callsPerSample(0.05, 0.1, null), { calls: 1, shortBy: 'lab' });
  assert.equal(MIN_SAMPLE_TRIPS, 100);
  // Just under the target alone: 2 calls; at it: 1.
  assert.deepEqual(callsPerSample(10.9, 0.1, 0), { calls: 2, shortBy: null });
  assert.deepEqual(callsPerSample(11, 0.1, 0), { calls: 1, shortBy: null });
});

test("a 0.05 ms case's sample is several calls, at least 100 round trips long, recorded per call (issue 42)", async () => {
  // Before, every sample was one call: 0.15 ms as the judge timed it, the round trip 67% of it.
  const runner = timedRunner((fresh) => fresh.map((k) => ({ kind: 'whole', value: [rightSum(k)] })));
  const result = await judgeSamples([CASE], PLAN, runner.channel, await sumsJudge());
  assert.equal(result.failed.size, 0, JSON.stringify([...result.failed]));
  const s = result.samples.get('learner')!;
  assert.ok(s.callsPerSample >= 200, `calls per sample ${s.callsPerSample}`);
  // The judge's time of the whole sample (per call x calls) is at least 100 of the runner's 0.1 ms round trips (the
  // calibration reads it plus a few microseconds of this process's own work: still about 1%).
  assert.ok(s.samplesMs.every((ms) => ms * s.callsPerSample >= 100 * 0.1 && result.roundTripMs / (ms * s.callsPerSample) < 0.0102), JSON.stringify({ s, trip: result.roundTripMs }));
  // Per call: the 0.05 ms call, plus the round trip shared by the calls (about 1%, and this process's microseconds).
  // (The median: a sample this process was descheduled in reads longer.)
  const middle = [...s.samplesMs].sort((x, y) => x - y)[3]!;
  assert.ok(s.samplesMs.every((ms) => ms >= 0.05) && middle < 0.05 * 1.02, JSON.stringify(s.samplesMs));
  // Each measured sample was prepared with a fresh number per call, all distinct.
  const prepares = runner.asked.filter((r): r is JudgeRequest & { type: 'prepare' } => r.type === 'prepare');
  // The warm-up's one call, three discarded probes of the first guess's count (from the warm-up), then the measured samples.
  const guess = prepares[1]!.fresh.length;
  assert.deepEqual(prepares.map((p) => p.fresh.length), [1, guess, guess, guess, ...Array(6).fill(s.callsPerSample)]);
  assert.ok(prepares[1]!.fresh.length > 1);
  const numbers = prepares.flatMap((p) => p.fresh);
  assert.equal(new Set(numbers).size, numbers.length);
  assert.match(result.notes.join('\n'), new RegExp(`calls per sample: learner ${s.callsPerSample}\\.`));
});

test("a graded pair runs the larger of its two calls per sample while a sample stays within 10x its pair's or 440 round trips (issue 42)", () => {
  assert.equal(PAIR_SLOWDOWN, 10);
  assert.equal(PAIR_SAMPLE_TRIPS, 4 * TARGET_SAMPLE_TRIPS);
  // Reference: a 25 ms call, a 0.1 ms round trip, its own count 1, its pair's 220 calls of 0.05 ms (11 ms): the longer
  // of 10 x 11 ms and 440 x 0.1 ms is 110 ms, floor(110 / 25) = 4 calls, where equal work made it 220 (5.5 s a sample).
  assert.deepEqual(pairedCalls({ calls: 1, shortBy: null }, 25, { calls: 220, callMs: 0.05 }, 0.1), { calls: 4, shortBy: null });
  // forgery.test's learner: 6 ms a call against the solution's 1,000 calls (the cap) of 2 us: max(44, 10 x 2) ms / 6 = 7
  // (was 1,000: 6 s a sample).
  assert.deepEqual(pairedCalls({ calls: 2, shortBy: null }, 6, { calls: 1000, callMs: 0.002 }, 0.1), { calls: 7, shortBy: null });
  // 1.6x and 4x slower: 110 ms fits 1,375 and 550 calls, so the pair's 220 is kept (equal work).
  assert.deepEqual(pairedCalls({ calls: 138, shortBy: null }, 0.08, { calls: 220, callMs: 0.05 }, 0.1), { calls: 220, shortBy: null });
  assert.deepEqual(pairedCalls({ calls: 55, shortBy: null }, 0.2, { calls: 220, callMs: 0.05 }, 0.1), { calls: 220, shortBy: null });
  // Against a pair of 2 calls of 10 ms (10 x 20 ms = 200 ms): 2.5x slower (25 ms) fits 8, so the pair's 2 (where 440
  // round trips alone would fit 1); 12x slower (120 ms) fits 1, its own count.
  assert.deepEqual(pairedCalls({ calls: 1, shortBy: null }, 25, { calls: 2, callMs: 10 }, 0.1), { calls: 2, shortBy: null });
  assert.deepEqual(pairedCalls({ calls: 1, shortBy: null }, 120, { calls: 2, callMs: 10 }, 0.1), { calls: 1, shortBy: null });
  // Never over its pair's count; a count its memory or its lab holds stays.
  assert.deepEqual(pairedCalls({ calls: 220, shortBy: null }, 0.05, { calls: 2, callMs: 6 }, 0.1), { calls: 220, shortBy: null });
  assert.deepEqual(pairedCalls({ calls: 64, shortBy: 'memory' }, 0.01, { calls: 220, callMs: 0.05 }, 0.1), { calls: 64, shortBy: 'memory' });
  assert.deepEqual(pairedCalls({ calls: 1, shortBy: 'lab' }, 0.01, { calls: 220, callMs: 0.05 }, 0.1), { calls: 1, shortBy: 'lab' });
});

test("a learner 500x slower than the solution's copy on a fast case runs 10x its pair's sample, not the copy's calls (issue 42)", async () => {
  // The solution's copy: 0.05 ms a call; the learner: 25 ms (500x), or 0.2 ms (4x); the round trip 0.1 ms (stamped
  // times: nothing waits).
  const both = (learnerMs: number) => {
    const cases: JudgedCase[] = [
      { ...CASE, pair: 'p', rewarm: true },
      { ...CASE, key: 'solution', label: 'solution', trusted: true, pair: 'p', rewarm: true },
    ];
    const runner = scriptedRunner((fresh) => fresh.map(() => ({ kind: 'whole', value: [0] })), { tripMs: 0.1, callMs: (key) => (key === 'learner' ? learnerMs : 0.05) });
    const accept = { next: (_key: string, calls = 1) => Array.from({ length: calls }, (_, i) => ({ fresh: i + 1, input: null })), check: () => ({ equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null }), positions: () => [], checkAt: () => ({ equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null }) };
    return judgeSamples(cases, PLAN, runner.channel, accept);
  };
  const slow = await both(25);
  assert.equal(slow.failed.size, 0, JSON.stringify([...slow.failed]));
  const solution = slow.samples.get('solution')!.callsPerSample;
  // About 220 (the judge reads each time a few microseconds over the stamped one); 10 x its sample is 110-120 ms.
  assert.ok(solution >= 200 && solution < 240, `the copy's calls ${solution}`);
  // floor(10 x ~11.5 ms / 25 ms) = 4 calls (100 ms a sample), not the copy's ~220 (5.5 s a sample, as on the code before).
  assert.equal(slow.samples.get('learner')!.callsPerSample, 4);
  assert.match(slow.notes.join('\n'), new RegExp(`ran fewer calls per sample than its pair.*: learner 4 \\(its pair ${solution}\\)`));
  // 4x slower: the same count on both sides (equal work), and no such note.
  const near = await both(0.2);
  assert.equal(near.samples.get('learner')!.callsPerSample, near.samples.get('solution')!.callsPerSample);
  assert.doesNotMatch(near.notes.join('\n'), /fewer calls per sample than its pair/);
});

test('a sample answered without its outputs fails the case, in a probe too (it left the calls per sample at 1)', async () => {
  // A channel whose samples of several calls (the probes, then the measured ones) resolve with 'sampled' alone.
  const runner = timedRunner((fresh) => fresh.map((k) => ({ kind: 'whole', value: [rightSum(k)] })));
  let calls = 1;
  const channel = runner.channel;
  const ask = channel.ask.bind(channel);
  channel.ask = async (request, watch): Promise<Answered> => {
    if (request.type === 'prepare') calls = request.fresh.length;
    const answered = await ask(request, watch);
    return request.type === 'sample' && request.caseKey !== null && calls > 1 ? { ...answered, answers: answered.answers.slice(0, 1) } : answered;
  };
  const result = await judgeSamples([CASE], PLAN, channel, await sumsJudge());
  assert.deepEqual(result.failed.get('learner'), { reason: `answered warm-up sample #${PLAN.warmupSamples} without its outputs (each call's output is checked)`, stage: 'warm-up', sample: PLAN.warmupSamples });
});

test("every call's output is checked: a runner wrong on the 3rd call, short of calls, or caching across calls fails (issue 42)", async () => {
  // Wrong on the third call of each sample (the warm-up, one call, is right).
  const third = timedRunner((fresh) => fresh.map((k, j) => ({ kind: 'whole', value: [j === 2 ? 42 : rightSum(k)] })));
  const wrong = await judgeSamples([CASE], PLAN, third.channel, await sumsJudge());
  assert.match(wrong.failed.get('learner')?.reason ?? '', /^wrong output on (warm-up|measured) sample #\d+, call #2 of \d+, at \[0\]: expected \d+, got 42/);
  // 'sampled' after one call fewer than asked: the outputs' count says so.
  const fewer = timedRunner((fresh) => fresh.slice(fresh.length > 1 ? 1 : 0).map((k) => ({ kind: 'whole', value: [rightSum(k)] })));
  const short = await judgeSamples([CASE], PLAN, fewer.channel, await sumsJudge());
  assert.match(short.failed.get('learner')?.reason ?? '', /^answered (warm-up|measured) sample #\d+ with (\d+) outputs for its (\d+) calls/);
  const [, got, asked] = /with (\d+) outputs for its (\d+) calls/.exec(short.failed.get('learner')!.reason)!;
  assert.equal(Number(got), Number(asked) - 1);
  // The first call's answer kept for the other calls of the sample: each call has its own input, so the second fails.
  const cached = timedRunner((fresh) => fresh.map(() => ({ kind: 'whole', value: [rightSum(fresh[0]!)] })));
  const kept = await judgeSamples([CASE], PLAN, cached.channel, await sumsJudge());
  assert.match(kept.failed.get('learner')?.reason ?? '', /^wrong output on (warm-up|measured) sample #\d+, call #1 of \d+, at \[0\]/);
});

test("the runner runs a sample's calls back to back, each on its own copy of the input, and sends every output", async () => {
  // inputAt refills one array (as native-kernel's measureAt does): without a copy per call, every call of a sample
  // would run on the last input prepared.
  const shared = new Float64Array(1);
  const sent: RunnerMessage[] = [];
  const ran: number[] = [];
  await serveSamples(
    [
      {
        key: 'k',
        instance: { run: (xs: Float64Array) => (ran.push(xs[0]!), [xs[0]! * 2]), teardown() {} },
        inputAt: (_sample, fresh) => ((shared[0] = fresh), shared),
        freshInputs: true,
        measured: () => ({ type: 'measured', caseKey: 'k', observations: {}, workPerSample: { amount: 1, unit: 'x' }, sample: { item: 'sample', itemsPerSample: 1 } }),
      },
    ],
    {
      send: (m) => void sent.push(m),
      listen: (handler) => {
        for (const r of [
          { type: 'prepare', seq: 1, caseKey: 'k', fresh: [3, 5, 7] },
          { type: 'sample', seq: 2, caseKey: 'k' },
          { type: 'prepare', seq: 3, caseKey: 'k', fresh: [] },
          { type: 'finish', seq: 4, caseKeys: [] },
        ]) handler(r);
        return () => {};
      },
    },
  );
  assert.deepEqual(ran, [3, 5, 7]);
  assert.deepEqual(sent.find((m) => m.type === 'output'), { type: 'output', seq: 2, outputs: [3, 5, 7].map((k) => ({ kind: 'whole', value: [2 * k] })) });
  // Two calls that return one array (a lab that reuses its output by size): the earlier call's output would be gone.
  const x = new Float64Array(4);
  assert.equal(sharedOutput([[1], [1], x, x.subarray(2), 3, 3]), null);
  assert.match(sharedOutput([x, new Float64Array(4), x]) ?? '', /^calls #0 and #2 of one sample returned the same output: .*an output of its own/);
  assert.match(sharedOutput([x.subarray(1), new Float64Array(x.buffer, 8)]) ?? '', /^calls #0 and #1 /);
  // A sample of no calls is refused at 'prepare'.
  assert.match((sent.filter((m) => m.type === 'prepared')[1] as { error: string }).error, /a sample of 0 calls was asked \(1 to 10000\)/);
});

test("each call's copy of an input shares no array with it and keeps its shape (typed arrays, number rows, plain objects)", () => {
  // As native-kernel's product input: typed matrices, the same as rows of numbers, a count, and C.
  const input = { n: 2, a: Float64Array.of(1.5, 2.5, 3.5, 4.5), rows: [[1.5, 2.5], [3.5, 4.5]], repeats: 3, c: new Float64Array(4), tag: new Map([['k', 1]]) };
  const copy = copyInput(input);
  assert.deepEqual(copy, input);
  assert.notEqual(copy.a.buffer, input.a.buffer);
  assert.ok(copy.a instanceof Float64Array && copy.c instanceof Float64Array);
  assert.notEqual(copy.rows, input.rows);
  assert.notEqual(copy.rows[0], input.rows[0]);
  assert.notEqual(copy.tag, input.tag);
  // Refilling the original (as measureAt does) leaves the copy as it was.
  input.a[0] = 9;
  input.rows[0]![0] = 9;
  assert.deepEqual([copy.a[0], copy.rows[0]![0]], [1.5, 1.5]);
  // A subarray keeps its own elements only.
  assert.deepEqual([...copyInput(input.a.subarray(2))], [3.5, 4.5]);
  // A Node Buffer (whose slice() is a view of the same memory) and a DataView into part of a buffer: copies of their own bytes.
  const buffer = Buffer.from([1, 2, 3]);
  const bufferCopy = copyInput(buffer);
  buffer[0] = 9;
  assert.ok(Buffer.isBuffer(bufferCopy));
  assert.deepEqual([...bufferCopy], [1, 2, 3]);
  const view = new DataView(Uint8Array.of(0, 1, 2, 3, 4, 5, 6, 7).buffer, 2, 4);
  const viewCopy = copyInput(view);
  assert.notEqual(viewCopy.buffer, view.buffer);
  assert.deepEqual([viewCopy.byteOffset, viewCopy.byteLength, viewCopy.getUint8(0)], [0, 4, 2]);
});
