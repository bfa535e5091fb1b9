/**
 * Fresh products (issue 42): every measured sample multiplied the same matrices. Now each sample multiplies matrices
 * of its own (fresh-inputs.ts freshProduct, numbered by the runner) and its product is checked by Freivalds' test
 * modulo MODULUS (checkChain). The graph API already refuses an answer from outside this sample's graph, so the
 * attack here is a case instance that keeps its answer, run as the runner runs it (runner.ts sampleInputs,
 * measure.ts measureCases), on a product of 8 matrices of 12 x 12.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawFreshIndices, measureCases, sampleInputs } from '@parallel-course/harness/testing.ts';
import { type CaseInstance, FRESH_INPUT_INDICES, type LabContext } from '@parallel-course/harness';
import lab from '../src/lab.ts';
import { checkChain, freshProduct } from '../src/fresh-inputs.ts';
import type { LabInput, LabOutput } from '../src/inputs.ts';
import { MODULUS, productSerial, seededMatrices } from '../src/matrix.ts';

const ctx: LabContext = { impl: 'solution', implDir: '', rootDir: '', quick: true, availableParallelism: 2, seed: 4 };
const params = { count: 8, size: 12 };
const PLAN = { warmupSamples: 1, rounds: 2, samplesPerRound: 2 };
const matricesOf = (input: LabInput) => (input.kind === 'product' ? input.matrices : assert.fail('a product input'));

test('each measured sample multiplies matrices of its own, as many and as large as the measured ones', async () => {
  const inputs = await lab.inputs(params, ctx);
  assert.ok(inputs.measureAt, 'the products have a fresh input per sample');
  const firsts = new Set<string>([matricesOf(inputs.measure)[0]!.join(',')]);
  const indices = drawFreshIndices(3, 9).flat();
  for (const index of indices) {
    const matrices = matricesOf(inputs.measureAt(index));
    assert.deepEqual([matrices.length, matrices[0]!.length], [8, 144]);
    firsts.add(matrices[0]!.join(','));
  }
  assert.equal(firsts.size, indices.length + 1, 'no two samples share a first matrix');
  assert.equal(matricesOf(inputs.measureAt(FRESH_INPUT_INDICES - 1)).length, 8);
  assert.equal((await lab.inputs({ tasks: 37 }, ctx)).measureAt, undefined, 'the empty tasks have nothing to vary');
});

test('checkChain passes the product and catches one entry off, a product one matrix short, NaN and a wrong length', () => {
  const matrices = freshProduct(4, 99, 8, 12);
  const right = productSerial(matrices);
  assert.deepEqual(checkChain(matrices, right), { equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: null });
  const off = right.slice();
  off[77] = ((off[77] as number) + 1) % MODULUS;
  assert.match(String(checkChain(matrices, off).firstMismatch?.index), /^row \d+ \(P r mod 1000003, random r\)$/);
  assert.equal(checkChain(matrices, productSerial(matrices.slice(0, -1))).equal, false);
  const nan = right.slice();
  nan[0] = Number.NaN;
  assert.equal(checkChain(matrices, nan).equal, false);
  assert.equal(checkChain(matrices, right.subarray(1)).firstMismatch?.index, 'length');
  assert.equal(checkChain(seededMatrices(1, 1, 5), seededMatrices(1, 1, 5)[0]!).equal, true, 'a product of one matrix is that matrix');
});

test('a case that keeps its answer fails its first measured sample (issue 42)', async () => {
  const inputs = await lab.inputs(params, ctx);
  let kept: LabOutput | null = null;
  const instance: CaseInstance<LabInput, LabOutput> = { run: (input) => (kept ??= productSerial(matricesOf(input))), teardown() {} };
  const expected = productSerial(matricesOf(inputs.measure));
  assert.equal(lab.comparator.compare(expected, await instance.run(inputs.measure)).equal, true, 'the check stage passes');
  const failures: { stage: string; sample: number | null; reason: string }[] = [];
  await measureCases(
    [{ key: 'kept', label: 'kept', instance: instance as CaseInstance<unknown, unknown>, sampleLimitMs: 60_000, ...sampleInputs(lab as never, inputs.measure, expected, inputs.measureAt as never, drawFreshIndices(1, 5)[0]!) }],
    PLAN,
    { onCaseFailed: (_i, stage, reason, sample) => failures.push({ stage, sample, reason }) },
  );
  assert.deepEqual(failures.map((f) => [f.stage, f.sample]), [['warm-up', 0]]);
  assert.match(failures[0]!.reason, /^wrong output on warm-up sample #0 at \[row \d+ \(P r mod 1000003, random r\)\]/);
});
