/**
 * Multi-device orchestration on CPU "devices" (one child process each): output equal to a single in-process run and
 * in order; a failed chunk is retried, not dropped; a dead device is restarted; an out-of-memory batch is halved;
 * the learner's unfinished code is reported without retries; no process is left behind.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { withinTolerance } from '@parallel-course/harness';
import { ensureDataset, loadAllSync, type Dataset } from '../src/dataset.ts';
import { startDevicePool, type DevicePoolOptions, type PoolEvent } from '../src/device-pool.ts';
import { TOLERANCE } from '../src/lab.ts';
import { ensureModelFile } from '../src/model-file.ts';
import { openModel } from '../src/session.ts';
import { deviceSpecs, resolveTarget } from '../src/target.ts';
import { inferInBatches } from '../../../solutions/gpu-batching/batching.ts';
import { chunkRanges } from '../../../solutions/gpu-batching/chunks.ts';

const SOLUTION = fileURLToPath(new URL('../../../solutions/gpu-batching', import.meta.url));
const EXERCISE = fileURLToPath(new URL('../../../exercises/gpu-batching', import.meta.url));
const COUNT = 150;
const cpu = resolveTarget({ GPU_BATCHING_EP: 'cpu' }, { gpus: [], problems: [] }, () => { throw new Error('the CPU target looks for no WebGPU adapter'); });
const root = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-devices-'));
const compare = withinTolerance(TOLERANCE).compare;
let dataset: Dataset;
let single: Float32Array;
const pids: number[] = [];

before(async () => {
  dataset = ensureDataset(5, COUNT, root);
  const model = await openModel({ modelPath: ensureModelFile().path, ep: 'cpu', threads: 1 });
  single = await inferInBatches(model, loadAllSync(dataset), COUNT, 64);
  await model.release();
});

after(() => rmSync(root, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function runPool(devices: number, extra: Partial<DevicePoolOptions> = {}, implDir = SOLUTION, batch = 32) {
  const events: PoolEvent[] = [];
  const pool = await startDevicePool({
    devices: deviceSpecs(cpu, devices, 1),
    modelPath: ensureModelFile().path,
    implDir,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  pids.push(...pool.devices.map((d) => d.pid));
  try {
    const info = pool.devices;
    const result = await pool.run({ dir: dataset.dir, datasetCount: COUNT, ranges: chunkRanges(COUNT, devices * 4), outputs: 10, batch, prefetch: 2 });
    return { result, events, info };
  } finally {
    await pool.close();
  }
}

test('two CPU devices give the single-process output, in order, from disk and from memory, and each sees no GPU', async () => {
  const events: PoolEvent[] = [];
  const pool = await startDevicePool({ devices: deviceSpecs(cpu, 2, 1), modelPath: ensureModelFile().path, implDir: SOLUTION, onEvent: (e) => events.push(e) });
  pids.push(...pool.devices.map((d) => d.pid));
  try {
    assert.deepEqual(pool.devices.map((d) => [d.device, d.ep, d.visibleDevices]), [[0, 'cpu', ''], [1, 'cpu', '']]);
    for (const source of ['disk', 'memory'] as const) {
      const result = await pool.run({ source, dir: dataset.dir, datasetCount: COUNT, ranges: chunkRanges(COUNT, 8), outputs: 10, batch: 32, prefetch: 2 });
      assert.equal(compare(single, result.logits).equal, true, source);
      assert.equal(result.retries, 0);
      assert.equal(result.devices.reduce((n, d) => n + d.samples, 0), COUNT);
    }
  } finally {
    await pool.close();
  }
  // Progress is reported per device, and each run ends with every sample done.
  const totals = events.filter((e) => e.type === 'progress').map((e) => e.type === 'progress' && e.totalDone);
  assert.equal(totals.filter((t) => t === COUNT).length, 2);
});

test('a chunk that fails is reported and retried, not dropped; an out-of-memory batch is halved and said', async () => {
  const { result, events } = await runPool(2, { faults: { failChunks: [2, 5], oomAbove: 10 } });
  assert.equal(compare(single, result.logits).equal, true);
  assert.equal(result.retries, 2);
  const retries = events.filter((e) => e.type === 'retry');
  assert.deepEqual(retries.map((e) => e.type === 'retry' && [e.chunk, e.attempt, e.reason]).sort(), [
    [2, 2, 'injected failure of chunk 2'],
    [5, 2, 'injected failure of chunk 5'],
  ]);
  // Chunks hold ceil(150 / 8) = 19 samples, so a batch is 19 (< 32); more than 10 does not fit: each device halves
  // 19 to 9 once, says so, and keeps 9 for its later chunks.
  const halved = events.filter((e) => e.type === 'halved').map((e) => e.type === 'halved' && `device ${e.device}: ${e.from}->${e.to}`);
  assert.deepEqual(halved.sort(), ['device 0: 19->9', 'device 1: 19->9']);
});

test('a device process that dies is restarted and its chunk retried', async () => {
  const { result, events } = await runPool(1, { faults: { crashChunks: [1] } });
  assert.equal(compare(single, result.logits).equal, true);
  const restart = events.find((e) => e.type === 'restart');
  assert.ok(restart && restart.type === 'restart');
  assert.match(restart.reason, /device 0 process \d+ exited \(code 70, signal null\)/);
  assert.ok(events.some((e) => e.type === 'retry' && e.chunk === 1));
});

test('a chunk that keeps failing stops the run with its range and reason', async () => {
  await assert.rejects(
    runPool(1, { faults: { failChunks: [0] }, maxAttempts: 1 }),
    /chunk 0 \(samples 0\.\.37\) failed 1 times, last on device 0: injected failure of chunk 0/,
  );
});

test("the learner's unfinished pipeline is reported as not implemented, without retries", async () => {
  const events: PoolEvent[] = [];
  await assert.rejects(runPool(1, { onEvent: (e) => events.push(e) }, EXERCISE), /^DevicePoolError: not implemented: inferPipelined in exercises\/gpu-batching\/pipeline\.ts/);
  assert.equal(events.filter((e) => e.type === 'retry').length, 0);
});

test('a device that cannot load the model fails the start with the reason, leaving nothing running', async () => {
  await assert.rejects(
    startDevicePool({ devices: deviceSpecs(cpu, 1, 1), modelPath: path.join(root, 'missing.onnx'), implDir: SOLUTION }),
    /device \d \(cpu\) did not start: could not load the model .*missing\.onnx on CPU/,
  );
});

test('no device process is left behind', async () => {
  assert.ok(pids.length >= 5);
  // Give the kernel a moment to reap the last exits.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(pids.filter(alive), []);
});
