/**
 * The batched case checks that inferInBatches batches (batching-property.ts), not only that its outputs are right:
 * a loop of one call per sample and a copy per batch both give the right logits and both miss the lesson (issue 44).
 * A stand-in model (zeros, no ONNX Runtime) records the calls; the solution passes, each trap fails, named.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkBatching, judgeBatching, recordBatching } from '../src/batching-property.ts';
import { batchedCase } from '../src/cases.ts';
import type { Model } from '../src/session.ts';
import { inferInBatches as solution } from '../../../solutions/gpu-batching/batching.ts';

function standIn(): Model {
  return {
    ep: 'cpu',
    features: 4,
    outputs: 2,
    infer: async (_samples, count) => new Float32Array(count * 2),
    latenciesMs: [],
    busyMs: 0,
    resetStats() {},
    release: async () => {},
  };
}

/** The trap: right outputs, one call per sample. */
async function perSample(model: Model, samples: Float32Array, count: number): Promise<Float32Array> {
  const out = new Float32Array(count * model.outputs);
  for (let i = 0; i < count; i++) out.set(await model.infer(samples.subarray(i * model.features, (i + 1) * model.features), 1), i * model.outputs);
  return out;
}

/** The other trap: batches of the right size, each copied first. */
async function copying(model: Model, samples: Float32Array, count: number, batchSize: number): Promise<Float32Array> {
  const out = new Float32Array(count * model.outputs);
  for (let start = 0; start < count; start += batchSize) {
    const n = Math.min(batchSize, count - start);
    out.set(await model.infer(samples.slice(start * model.features, (start + n) * model.features), n), start * model.outputs);
  }
  return out;
}

test("the solution's inferInBatches passes; one call per sample and a copy per batch fail, each with its reason", async () => {
  assert.equal(await checkBatching(solution, standIn(), 8), null);
  assert.match(
    (await checkBatching(perSample, standIn(), 8)) ?? '',
    /^inferInBatches made 17 model\.infer calls for 17 samples in batches of 8, where 3 would do \(calls of 1 sample\): every call pays the fixed cost/,
  );
  assert.match((await checkBatching(copying, standIn(), 8)) ?? '', /^inferInBatches copied the samples of 3 of its 3 calls before model\.infer .*samples\.subarray\(start, end\)/);
});

test('the judge: at most batchSize per call, ceil(count / batchSize) calls, views only', () => {
  const view = (count: number) => ({ count, view: true });
  assert.equal(judgeBatching([view(8), view(8), view(1)], 17, 8), null);
  assert.match(judgeBatching([view(17)], 17, 8) ?? '', /passed 17 samples to one model\.infer call, over the batch size 8/);
  assert.match(judgeBatching([view(4), view(4), view(4), view(4), view(1)], 17, 8) ?? '', /made 5 model\.infer calls .* where 3 would do \(calls of 1, 4 samples\)/);
  assert.match(judgeBatching([view(8), { count: 8, view: false }, view(1)], 17, 8) ?? '', /copied the samples of 1 of its 3 calls/);
});

test("the judge's side (the batched case's judgeProperty, in the harness's process): the record of calls decides; a malformed one fails", async () => {
  const batched = batchedCase({ ep: 'cpu', gpus: [], reason: 'test', error: null }, 8);
  assert.ok(batched.judgeProperty);
  assert.equal(batched.judgeProperty(await recordBatching(solution, standIn(), 8)), null);
  // The judge knows the pass's count and batch size itself: a record of one call per sample fails.
  assert.match(batched.judgeProperty(await recordBatching(perSample, standIn(), 8)) ?? '', /^inferInBatches made 17 model\.infer calls for 17 samples in batches of 8/);
  // A record that does not cover the pass's 17 samples was not made by the pass.
  assert.match(batched.judgeProperty([{ count: 8, view: true }, { count: 8, view: true }]) ?? '', /^inferInBatches passed 16 samples to model\.infer in all, where the pass had 17/);
  assert.throws(() => batched.judgeProperty!([{ count: 8, view: 'yes' }]), /the record of model\.infer calls #0's view is not true or false/);
  assert.throws(() => batched.judgeProperty!(Array.from({ length: 35 }, () => ({ count: 1, view: true }))), /has 35 entries, over the 34 its judge reads/);
});
