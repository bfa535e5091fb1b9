/**
 * Fresh triad inputs (issue 42): every measured triad sample had the same b, c and s, so a triad that kept its last
 * answer, or rewrote only part of it, passed every per-sample check. Now each sample has a scalar of its own
 * (freshTriadInput, numbered by the runner) over the same, already placed arrays, and is checked in one pass
 * (checkTriadSample: random entries and exact weighted block sums). The cases run as the runner runs them
 * (runner.ts sampleInputs, measure.ts measureCases), on a small length so the file takes well under a second.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawFreshIndices, measureCases, sampleInputs } from '@parallel-course/harness/testing.ts';
import { type CaseInstance, FRESH_INPUT_INDICES, type LabContext } from '@parallel-course/harness';
import lab from '../src/lab.ts';
import { rungStatus } from '../src/addon.ts';
import { checkTriadSample, freshTriadInput, makeTriadInput, TRIAD_PARAM, expectedTriad, triadArraysKey, triadSources, triadTyped, type TriadInput } from '../src/triad.ts';

const ctx: LabContext = { impl: 'solution', implDir: '', rootDir: '', quick: true, availableParallelism: 2, seed: 5 };
/** Small enough to be quick, odd so no split is even. */
const LENGTH = 100_003;
const params = { [TRIAD_PARAM]: LENGTH };
const PLAN = { warmupSamples: 1, rounds: 2, samplesPerRound: 2 };

type Failure = { stage: string; reason: string; sample: number | null };

/** Checks the instance on the lab's check inputs and the measured one, then measures it as the runner does. */
async function checkAndMeasure(instance: CaseInstance<TriadInput, Float64Array>): Promise<Failure[]> {
  const inputs = (await lab.inputs(params, ctx)) as { check: TriadInput[]; measure: TriadInput; measureAt?: (sample: number) => TriadInput };
  for (const input of [...inputs.check, inputs.measure]) {
    const comparison = lab.comparator.compare(expectedTriad(input), (await instance.run(input)) as Float64Array);
    assert.equal(comparison.equal, true, `the check stage passes: ${JSON.stringify(comparison)}`);
  }
  const indices = drawFreshIndices(1, PLAN.warmupSamples + PLAN.rounds * PLAN.samplesPerRound)[0]!;
  const expected = expectedTriad(inputs.measure);
  const failures: Failure[] = [];
  await measureCases(
    // The lab's own types: the runner calls sampleInputs with the lab as it is.
    [{ key: 'triad', label: 'triad', instance: instance as CaseInstance<unknown, unknown>, sampleLimitMs: 60_000, ...sampleInputs(lab as never, inputs.measure, expected, inputs.measureAt as never, indices) }],
    PLAN,
    { onCaseFailed: (_i, stage, reason, sample) => failures.push({ stage, reason, sample }) },
  );
  return failures;
}

test('each measured triad sample has a scalar of its own over the same arrays; the largest sample number stays exact', async () => {
  const inputs = await lab.inputs(params, ctx);
  assert.ok(inputs.measureAt, 'the triad gives a fresh input per sample');
  const indices = drawFreshIndices(4, 9).flat();
  const fresh = indices.map((i) => inputs.measureAt!(i) as TriadInput);
  const measure = inputs.measure as TriadInput;
  assert.equal(new Set([measure.s, ...fresh.map((x) => x.s)]).size, indices.length + 1, 'no two samples share a scalar');
  assert.ok(fresh.every((x) => triadArraysKey(x) === triadArraysKey(measure)), "b and c are the measured input's (its seed): no new arrays, no new placement");
  const last = freshTriadInput(makeTriadInput(1000, 3), FRESH_INPUT_INDICES - 1);
  assert.ok(expectedTriad(last).every((v) => (v | 0) === v), 'b + s c stays an exact int32 at the largest s');
  assert.throws(() => freshTriadInput(measure, 0), /a fresh triad sample number must be an integer in 1 \.\. 2\^20 - 1, got 0/);
});

test('checkTriadSample passes the right answer and catches one entry off anywhere, a fraction, NaN and a wrong length', () => {
  const input = freshTriadInput(makeTriadInput(LENGTH, 9), 77);
  const right = expectedTriad(input);
  assert.deepEqual(checkTriadSample(input, right), { equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: null });
  // Off by one at each of a few positions: the random entries will almost never land there, the checksum always does.
  for (const [i, delta] of [[0, 1], [LENGTH - 1, -1], [54_321, 2 ** 31]] as const) {
    const wrong = right.slice();
    wrong[i] = (wrong[i] as number) + delta;
    assert.equal(checkTriadSample(input, wrong).equal, false, `a[${i}] + ${delta}`);
  }
  for (const bad of [0.5, Number.NaN]) {
    const wrong = right.slice();
    wrong[4242] = (wrong[4242] as number) + bad;
    const result = checkTriadSample(input, wrong);
    assert.equal(result.equal, false, `a[4242] + ${bad}`);
  }
  assert.equal(checkTriadSample(input, right.subarray(1)).firstMismatch?.index, 'length');
});

test('a triad that keeps its last answer fails its first measured sample (issue 42)', async () => {
  let kept: Float64Array | null = null;
  const failures = await checkAndMeasure({
    run(input) {
      // Computes once per array length, then answers from memory: the measured input's answer on every sample.
      if (kept?.length !== input.length || input.length !== LENGTH) {
        kept = new Float64Array(input.length);
        const { b, c } = triadSources(input);
        triadTyped(kept, b, c, input.s);
      }
      return kept;
    },
    teardown() {},
  });
  assert.deepEqual(failures.map((f) => [f.stage, f.sample]), [['warm-up', 0]]);
  assert.match(failures[0]!.reason, /^wrong output on warm-up sample #0 at \[\d+\]: expected -?\d+, got -?\d+/);
});

test('a triad that rewrites a quarter of a kept array fails its first measured sample (issue 42)', async () => {
  const outputs = new Map<string, Float64Array>();
  const failures = await checkAndMeasure({
    run(input) {
      let a = outputs.get(triadArraysKey(input));
      // Its first call with these arrays computes all of a; later calls only the first quarter.
      const part = a ? Math.ceil(input.length / 4) : input.length;
      if (!a) outputs.set(triadArraysKey(input), (a = new Float64Array(input.length)));
      const { b, c } = triadSources(input);
      triadTyped(a.subarray(0, part), b.subarray(0, part), c.subarray(0, part), input.s);
      return a;
    },
    teardown() {},
  });
  assert.deepEqual(failures.map((f) => [f.stage, f.sample]), [['warm-up', 0]]);
});

test("the lab's own triad cases pass every fresh sample and place their arrays once", { skip: rungStatus('solution', 'march').available ? false : 'the addon is not built here (npm run build -w labs/native-kernel)' }, async () => {
  const cases = lab.cases(ctx).filter((c) => c.params[TRIAD_PARAM] !== undefined);
  assert.deepEqual(cases.map((c) => c.variant), ['ts-typed', 'triad', 'triad']);
  for (const definition of cases) {
    const instance = (await definition.setup(ctx)) as CaseInstance<TriadInput, Float64Array>;
    try {
      const outputs = new Set<Float64Array>();
      const failures = await checkAndMeasure({ run: (input) => { const a = instance.run(input) as Float64Array; if (input.length === LENGTH) outputs.add(a); return a; }, teardown() {} });
      assert.deepEqual(failures, [], `${definition.variant} ${JSON.stringify(definition.params)}`);
      assert.equal(outputs.size, 1, 'every sample of the measured length wrote the one output the first call placed');
    } finally {
      await instance.teardown();
    }
  }
});
