/**
 * Fresh passes (issue 42): every measured sample of this lab ran on the same data set, so a variant that kept its
 * logits (by the input array, by folder, by size) or computed a quarter of them and kept the rest passed. Now each
 * sample runs on a pass of its own (fresh-inputs.ts freshPasses, numbered by the runner) and its logits are checked
 * (checkPass). The attacks run as the runner runs them (runner.ts sampleInputs, measure.ts measureCases), on a pass of
 * 16 images whose "model" is the float64 reference, so the file needs no ONNX Runtime but the last test.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { drawFreshIndices, measureCases, sampleInputs } from '@parallel-course/harness/testing.ts';
import { type CaseInstance, FRESH_INPUT_INDICES, type LabContext } from '@parallel-course/harness';
import lab from '../src/lab.ts';
import { devicesCase, type InferenceInput } from '../src/cases.ts';
import { ensureDataset, loadAllSync, PIXELS, sampleFile } from '../src/dataset.ts';
import { checkPass, freshPasses, SPOT_IMAGES } from '../src/fresh-inputs.ts';
import { buildLayers } from '../src/model-spec.ts';
import { resolveTarget } from '../src/target.ts';
import { forwardWithBound, expectedWithBound } from '../src/tolerance.ts';

const COUNT = 16;
const SEED = 11;
const root = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-fresh-'));
after(() => rmSync(root, { recursive: true, force: true }));
const dataset = ensureDataset(SEED, COUNT, root);
const measure: InferenceInput = { dataset, samples: loadAllSync(dataset) };
const layers = buildLayers();
const PLAN = { warmupSamples: 1, rounds: 2, samplesPerRound: 1 };

/** The logits a correct variant gives: the float64 reference rounded to float32 (within every bound). */
const logitsOf = (input: InferenceInput) => forwardWithBound(layers, input.samples, input.dataset.count).values;

type Failure = { stage: string; reason: string; sample: number | null };

/** The case's measured input checked as the runner checks it, then measured on fresh passes as the runner does. */
async function checkAndMeasure(instance: CaseInstance<InferenceInput, Float32Array>): Promise<Failure[]> {
  const expected = expectedWithBound(layers, measure.samples, COUNT);
  const first = lab.comparator.compare(expected, await instance.run(measure));
  assert.equal(first.equal, true, `the check stage passes: ${JSON.stringify(first)}`);
  const indices = drawFreshIndices(1, PLAN.warmupSamples + PLAN.rounds * PLAN.samplesPerRound)[0]!;
  const failures: Failure[] = [];
  await measureCases(
    [{ key: 'attack', label: 'attack', instance: instance as CaseInstance<unknown, unknown>, sampleLimitMs: 60_000, ...sampleInputs(lab as never, measure, expected, freshPasses(measure, SEED) as never, indices) }],
    PLAN,
    { onCaseFailed: (_i, stage, reason, sample) => failures.push({ stage, reason, sample }) },
  );
  return failures;
}

test('the lab gives a fresh pass per sample: no image repeats in a run, files and memory agree, one folder at a time', async () => {
  const ctx: LabContext = { impl: 'solution', implDir: '', rootDir: '', quick: true, availableParallelism: 2, seed: 3 };
  assert.ok((await lab.inputs({}, ctx)).measureAt, "the lab's inputs have a measureAt");
  const passAt = freshPasses(measure, SEED);
  const seen = new Set<string>();
  const image = (samples: Float32Array, i: number) => samples.subarray(i * PIXELS, (i + 1) * PIXELS).join(',');
  for (let i = 0; i < COUNT; i++) seen.add(image(measure.samples, i));
  let last: string | null = null;
  const indices = drawFreshIndices(1, 12)[0]!;
  for (const index of indices) {
    const pass = passAt(index);
    assert.equal(pass.dataset.count, COUNT);
    for (let i = 0; i < COUNT; i++) seen.add(image(pass.samples, i));
    // The files hold the same images as the array.
    for (const i of [0, COUNT - 1]) assert.deepEqual(loadAllSync(pass.dataset).subarray(i * PIXELS, (i + 1) * PIXELS), pass.samples.subarray(i * PIXELS, (i + 1) * PIXELS));
    if (last) assert.equal(existsSync(last), false, "the last pass's folder is gone");
    assert.notEqual(pass.dataset.dir, last);
    last = pass.dataset.dir;
    assert.equal(readFileSync(sampleFile(pass.dataset.dir, 0)).length, PIXELS);
  }
  assert.equal(seen.size, COUNT * (indices.length + 1), 'every image of every pass is new');
  assert.doesNotThrow(() => passAt(FRESH_INPUT_INDICES - 1));
  assert.throws(() => passAt(0), /a fresh pass number must be an integer in 1 \.\. 2\^20 - 1, got 0/);
});

test('checkPass passes right logits and names an unwritten row, NaN, the wrong length, stale rows and wrong spots', () => {
  const pass = freshPasses(measure, SEED)(12345);
  const right = logitsOf(pass);
  assert.equal(checkPass(layers, pass, right).equal, true);
  const zeroed = right.slice();
  zeroed.fill(0, 7 * 10, 8 * 10);
  assert.deepEqual(checkPass(layers, pass, zeroed).firstMismatch, { index: 'image 7', expected: 'its logits', actual: 'all zeros (never written?)' });
  const nan = right.slice();
  nan[33] = Number.NaN;
  assert.equal(checkPass(layers, pass, nan).firstMismatch?.index, 'image 3 logit 3');
  assert.equal(checkPass(layers, pass, right.subarray(10)).firstMismatch?.index, 'length');
  // The measured pass's logits for a fresh pass: every image is off, so every spot finds it.
  assert.match(String(checkPass(layers, pass, logitsOf(measure)).firstMismatch?.index), /^image \d+ logit \d$/);
  // The same array again on the next pass, one row rewritten: the others are the pass before's.
  const next = freshPasses(measure, SEED)(54321);
  const kept = right.slice();
  assert.equal(checkPass(layers, pass, kept).equal, true);
  kept.set(logitsOf(next).subarray(0, 10), 0);
  assert.equal(checkPass(layers, next, kept).firstMismatch?.index, 'image 1');
  assert.equal(SPOT_IMAGES, 4);
});

test('a variant that keeps its logits by input array or by size fails its first measured sample (issue 42)', async () => {
  for (const keyOf of [(x: InferenceInput) => x.samples, (x: InferenceInput) => x.dataset.count] as const) {
    const kept = new Map<unknown, Float32Array>();
    const failures = await checkAndMeasure({
      run(input) {
        let logits = kept.get(keyOf(input));
        if (!logits) kept.set(keyOf(input), (logits = logitsOf(input)));
        return logits;
      },
      teardown() {},
    });
    // Keyed by size: the measured pass's logits on warm-up sample 0. Keyed by the array: the fresh passes share one
    // refilled array, so the first fresh pass computes and the next one gets its logits back.
    assert.equal(failures.length, 1, JSON.stringify(failures));
    assert.ok(failures[0]!.sample !== null && failures[0]!.sample <= 1, JSON.stringify(failures));
    assert.match(failures[0]!.reason, /^wrong output on (warm-up|measured) sample #[01] at \[image \d+/);
  }
});

test('a variant that computes a quarter of the images fails its first measured sample, the rest left zero or kept (issue 42)', async () => {
  for (const keep of [false, true]) {
    let out: Float32Array | null = null;
    const failures = await checkAndMeasure({
      run(input) {
        // The first call (the check) computes every image; later ones a quarter, the rest zero (a new array each
        // time) or as the last call left them (one array kept).
        const part = out === null ? COUNT : Math.ceil(COUNT / 4);
        if (out === null || !keep) out = new Float32Array(COUNT * 10);
        out.set(forwardWithBound(layers, input.samples.subarray(0, part * PIXELS), part).values);
        return out;
      },
      teardown() {},
    });
    assert.equal(failures.length, 1, `${keep ? 'kept' : 'zero'} rest: ${JSON.stringify(failures)}`);
    assert.ok(failures[0]!.sample !== null && failures[0]!.sample <= 1, JSON.stringify(failures));
  }
});

test('the devices case on data in memory loads each fresh pass into its processes before the clock starts', async (t) => {
  const cpu = resolveTarget({ GPU_BATCHING_EP: 'cpu' }, { gpus: [], problems: [] }, () => { throw new Error('the CPU target looks for no WebGPU adapter'); });
  const implDir = fileURLToPath(new URL('../../../solutions/gpu-batching', import.meta.url));
  const ctx: LabContext = { impl: 'solution', implDir, rootDir: '', quick: true, availableParallelism: 2, seed: 3 };
  const instance = await devicesCase(cpu, 16, 2, 2, 'memory').setup(ctx);
  t.after(() => instance.teardown());
  assert.equal(typeof instance.beforeSample, 'function');
  assert.deepEqual(await checkAndMeasure(instance), []);
});
