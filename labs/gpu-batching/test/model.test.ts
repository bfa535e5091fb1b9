/**
 * The model and the in-process variants: generation is deterministic and ONNX Runtime loads it; ONNX Runtime's
 * outputs match the plain-JS reference; batched, pipelined and multi-session outputs equal per-sample outputs
 * within the lab's tolerance; CUDA never falls back to CPU silently.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { withinTolerance } from '@parallel-course/harness';
import { createFileSource, ensureDataset, loadAllSync, startReaderThread, type Dataset, type SampleSource } from '../src/dataset.ts';
import { detectGpus } from '../src/gpus.ts';
import { TOLERANCE } from '../src/lab.ts';
import { ensureModelFile, sha256 } from '../src/model-file.ts';
import { generateModelBytes } from '../src/model-onnx.ts';
import { buildLayers, expectedLogits } from '../src/model-spec.ts';
import { CUDA_FIX, openModel, SessionError, type Model } from '../src/session.ts';
import { inferInBatches, inferWithSessions } from '../../../solutions/gpu-batching/batching.ts';
import { inferPipelined } from '../../../solutions/gpu-batching/pipeline.ts';

/** The SHA-256 of the model bytes for MODEL_SPEC: changes only when the spec or the encoder changes, on purpose. */
const MODEL_SHA256 = '0e6cde0abdb591acac278f1521a879fe557d6f3c6740ccdd719550a073cd3944';
const compare = withinTolerance(TOLERANCE).compare;

let dataset: Dataset;
let samples: Float32Array;
let models: Model[] = [];
let perSample: Float32Array;
const root = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-model-'));

before(async () => {
  dataset = ensureDataset(99, 37, root);
  samples = loadAllSync(dataset);
  const model = ensureModelFile();
  models = [await openModel({ modelPath: model.path, ep: 'cpu', threads: 1 }), await openModel({ modelPath: model.path, ep: 'cpu', threads: 1 })];
  const m = models[0]!;
  perSample = new Float32Array(37 * m.outputs);
  for (let i = 0; i < 37; i++) perSample.set(await m.infer(samples.subarray(i * m.features, (i + 1) * m.features), 1), i * m.outputs);
});

after(async () => {
  for (const m of models) await m.release();
  rmSync(root, { recursive: true, force: true });
});

test('model generation is deterministic: the same bytes every time, pinned by SHA-256', () => {
  const a = generateModelBytes();
  const b = generateModelBytes();
  assert.deepEqual(Buffer.from(a), Buffer.from(b));
  assert.equal(sha256(a), MODEL_SHA256);
});

test('the model file is written once, reused, and rewritten when damaged', () => {
  const dir = path.join(root, 'models');
  const first = ensureModelFile(undefined, dir);
  assert.equal(first.generated, true);
  assert.equal(first.sha256, MODEL_SHA256);
  assert.equal(ensureModelFile(undefined, dir).generated, false);
  writeFileSync(first.path, 'half a model');
  const repaired = ensureModelFile(undefined, dir);
  assert.equal(repaired.generated, true);
  assert.equal(repaired.sha256, MODEL_SHA256);
});

test('ONNX Runtime runs the model on CPU and matches the plain-JS reference within the tolerance', () => {
  const reference = expectedLogits(buildLayers(), samples, 37);
  const result = compare(reference, perSample);
  assert.equal(result.equal, true, JSON.stringify(result));
  assert.ok((result.maxAbsError ?? 1) < 1e-5, `max abs error ${result.maxAbsError}`);
  assert.equal(models[0]!.ep, 'cpu');
});

test('batched outputs equal per-sample outputs, for batch sizes that do and do not divide the count', async () => {
  for (const batch of [1, 4, 37, 64]) {
    const batched = await inferInBatches(models[0]!, samples, 37, batch);
    assert.equal(compare(perSample, batched).equal, true, `batch ${batch}`);
  }
});

test('several sessions at once give the per-sample outputs, in order', async () => {
  const out = await inferWithSessions(models, samples, 37, 5);
  assert.equal(compare(perSample, out).equal, true);
});

test('the pipeline gives the per-sample outputs with a reader thread and with fs.promises', async () => {
  const reader = startReaderThread();
  try {
    for (const prefetch of [1, 3]) {
      const viaThread = await inferPipelined(models[0]!, reader.source(dataset), 8, prefetch);
      assert.equal(compare(perSample, viaThread).equal, true, `reader thread, prefetch ${prefetch}`);
    }
    const viaThreadpool = await inferPipelined(models[0]!, createFileSource(dataset), 8, 2);
    assert.equal(compare(perSample, viaThreadpool).equal, true, 'fs.promises');
  } finally {
    await reader.close();
  }
});

test('a read that fails while an earlier batch computes surfaces as an error, not an unhandled rejection', async () => {
  const good = createFileSource(dataset);
  const failing: SampleSource = {
    count: good.count,
    features: good.features,
    readBatch: (start, count) => (start >= 16 ? Promise.reject(new Error(`disk error at sample ${start}`)) : good.readBatch(start, count)),
  };
  await assert.rejects(inferPipelined(models[0]!, failing, 8, 4), /disk error at sample 16/);
});

test('a CUDA session that cannot load fails loudly with the fix, never falling back to CPU', { skip: (await detectGpus()).gpus.length > 0 && 'this machine has a GPU' }, async () => {
  await assert.rejects(openModel({ modelPath: ensureModelFile().path, ep: 'cuda', threads: 1 }), (error: unknown) => {
    assert.ok(error instanceof SessionError);
    assert.ok(error.message.startsWith('the CUDA execution provider is not usable in this process ('), error.message);
    assert.ok(error.message.endsWith(CUDA_FIX));
    return true;
  });
});
