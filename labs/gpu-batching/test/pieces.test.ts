/**
 * The lab's pure pieces on hand-computed values: chunking, stability windows, the memory plan, nvidia-smi parsing,
 * the choice of execution provider, allocation halving, the data set.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { analyze, formatBytes, type Results } from '@parallel-course/core';
import { AllocationError, isAllocationError, withHalving } from '../src/allocation.ts';
import { gpuBatchingAnalysis, formatAnalysis } from '../src/analysis.ts';
import { describeEvent } from '../src/device-pool.ts';
import { decodeInto, ensureDataset, loadAllSync, PIXELS, samplePixels } from '../src/dataset.ts';
import { parseGpuQuery } from '../src/gpus.ts';
import { GiB, MiB, planDevice } from '../src/memory-plan.ts';
import { firstStableWindow, windowThroughputs, withinToleranceOfMean } from '@parallel-course/core';
import { deviceCounts, deviceSpecs, resolveTarget } from '../src/target.ts';
import { chunkRanges } from '../../../solutions/gpu-batching/chunks.ts';

/** No WebGPU adapter anywhere: these tests are about CUDA and CPU (webgpu.test.ts has WebGPU's). */
const NO_WEBGPU = () => ({ usable: false, adapter: null, env: {}, reason: 'no WebGPU adapter (test)' });

test('chunkRanges splits by ceiling division and covers every sample once', () => {
  // ceil(10 / 4) = 3: 3 + 3 + 3 + 1
  assert.deepEqual(chunkRanges(10, 4), [{ start: 0, count: 3 }, { start: 3, count: 3 }, { start: 6, count: 3 }, { start: 9, count: 1 }]);
  // ceil(9 / 4) = 3: only three chunks are needed
  assert.deepEqual(chunkRanges(9, 4), [{ start: 0, count: 3 }, { start: 3, count: 3 }, { start: 6, count: 3 }]);
  assert.deepEqual(chunkRanges(2, 8), [{ start: 0, count: 1 }, { start: 1, count: 1 }]);
  assert.deepEqual(chunkRanges(0, 3), []);
  assert.throws(() => chunkRanges(5, 0), /parts must be a positive integer, got 0/);
});

test('window throughputs and the stability rule (3 windows within 10% of their mean)', () => {
  // Windows of 2 samples of 100 units: (100 + 100) ms -> 200 units / 0.2 s = 1000 units/s; (50 + 50) ms -> 2000/s.
  assert.deepEqual(windowThroughputs([100, 100, 50, 50, 7], 2, 100), [1000, 2000]);
  // mean(90, 100, 110) = 100; every value within 10 of it.
  assert.equal(withinToleranceOfMean([90, 100, 110], 0.1), true);
  // mean(80, 100, 120) = 100; 80 is 20 away.
  assert.equal(withinToleranceOfMean([80, 100, 120], 0.1), false);
  // Windows 0-2 vary too much; 1-3 are (100, 105, 95), mean 100: stable, ending at index 3.
  assert.equal(firstStableWindow([50, 100, 105, 95, 100]), 3);
  assert.equal(firstStableWindow([50, 100, 150, 60]), null);
  assert.equal(firstStableWindow([100, 100]), null, 'fewer windows than the rule needs is never stable');
});

test('the memory plan: largest power-of-two batch that fits, then as many processes as fit', () => {
  const footprint = { processBytes: 512 * MiB, modelBytes: 64 * MiB, perSampleBytes: 1 * MiB };
  // 16 GiB free - 2 GiB headroom = 14 GiB usable. Batch 512: 512 + 64 + 512 = 1088 MiB per process.
  // floor(14336 / 1088) = 13 processes, capped at 4.
  const roomy = planDevice(16 * GiB, footprint, { maxProcesses: 4 });
  assert.equal(roomy.usableBytes, 14 * GiB);
  assert.equal(roomy.batch, 512);
  assert.equal(roomy.perProcessBytes, 1088 * MiB);
  assert.equal(roomy.processes, 4);
  // 3 GiB free - 2 GiB = 1024 MiB usable: 576 + b MiB <= 1024 -> b <= 448 -> batch 256, 832 MiB, 1 process.
  const tight = planDevice(3 * GiB, footprint, { maxProcesses: 4 });
  assert.deepEqual([tight.batch, tight.perProcessBytes, tight.processes], [256, 832 * MiB, 1]);
  assert.match(tight.note, /batch 256 \(limited by memory\), 1 process\(es\) of 832 MiB each, limited by memory/);
  // A 3 GiB headroom on 4 GiB free leaves 1 GiB.
  assert.equal(planDevice(4 * GiB, footprint, { maxProcesses: 4, headroomBytes: 3 * GiB }).batch, 256);
  const none = planDevice(2 * GiB, footprint, { maxProcesses: 4 });
  assert.equal(none.processes, 0);
  assert.match(none.note, /not even one process with a batch of 1 fits in 0 B/);
  assert.throws(() => planDevice(Number.NaN, footprint, { maxProcesses: 1 }), /freeBytes must be a non-negative number/);
  assert.equal(formatBytes(1536 * MiB), '1.5 GiB');
  assert.equal(formatBytes(300 * MiB), '300 MiB');
  assert.equal(formatBytes(512), '512 B');
});

test('nvidia-smi output is parsed, names with commas included, bad lines reported', () => {
  const { gpus, problems } = parseGpuQuery('0, NVIDIA A100-SXM4-40GB, 40960, 1024, 39936\n1, Weird, Name, 8192, 0, 8192\n\nnot a gpu\n2, X, lots, 0, 1\n');
  assert.deepEqual(gpus, [
    { index: 0, name: 'NVIDIA A100-SXM4-40GB', totalMiB: 40960, usedMiB: 1024, freeMiB: 39936 },
    { index: 1, name: 'Weird, Name', totalMiB: 8192, usedMiB: 0, freeMiB: 8192 },
  ]);
  assert.equal(problems.length, 2);
  assert.match(problems[0]!, /cannot read nvidia-smi line "not a gpu": expected index, name, total, used, free/);
  assert.match(problems[1]!, /index and memory \(MiB\) must be numbers/);
});

test('the execution provider: CUDA only with a GPU, CPU labelled as such, bad settings named', () => {
  const gpu = { index: 3, name: 'G', totalMiB: 1, usedMiB: 0, freeMiB: 1 };
  const none = { gpus: [], problems: ['nvidia-smi not found: no NVIDIA driver on this machine'] };
  assert.equal(resolveTarget({}, none, NO_WEBGPU).ep, 'cpu');
  assert.match(resolveTarget({}, none, NO_WEBGPU).reason, /^CPU: no GPU \(nvidia-smi not found/);
  assert.equal(resolveTarget({}, { gpus: [gpu], problems: [] }, NO_WEBGPU).ep, 'cuda');
  assert.equal(resolveTarget({ GPU_BATCHING_EP: 'cpu' }, { gpus: [gpu], problems: [] }, NO_WEBGPU).ep, 'cpu');
  assert.match(resolveTarget({ GPU_BATCHING_EP: 'cuda' }, none, NO_WEBGPU).error ?? '', /GPU_BATCHING_EP=cuda but no GPU was found/);
  assert.match(resolveTarget({ GPU_BATCHING_EP: 'tpu' }, none, NO_WEBGPU).error ?? '', /GPU_BATCHING_EP must be auto, cpu, cuda or webgpu, got 'tpu'/);
  // One process per GPU, each seeing only its own GPU by its nvidia-smi index; CPU devices see none.
  const cuda = resolveTarget({}, { gpus: [gpu, { ...gpu, index: 5 }], problems: [] }, NO_WEBGPU);
  assert.deepEqual(deviceSpecs(cuda, 2, 1).map((d) => d.visibleDevices), ['3', '5']);
  assert.deepEqual(deviceSpecs(resolveTarget({}, none, NO_WEBGPU), 2, 1).map((d) => [d.ep, d.visibleDevices]), [['cpu', ''], ['cpu', '']]);
  assert.throws(() => deviceSpecs(cuda, 3, 1), /3 CUDA devices asked for, but only 2 GPU\(s\) are listed/);
  assert.deepEqual(deviceCounts(cuda, 2), [1, 2]);
  assert.deepEqual(deviceCounts(resolveTarget({}, none, NO_WEBGPU), 2), [1, 2]);
  assert.deepEqual(deviceCounts(resolveTarget({}, none, NO_WEBGPU), 16), [1, 2, 3, 4, 8, 16]);
  assert.deepEqual(deviceCounts(resolveTarget({}, none, NO_WEBGPU), 16, 4), [1, 2, 3, 4], 'P / threads per session processes');
});

/** A fake model of 2 features -> 1 output (the sum), that runs out of memory above `limit` samples. */
function fakeInfer(limit: number, calls: number[]) {
  return async (samples: Float32Array, count: number) => {
    calls.push(count);
    if (count > limit) throw new Error(`Failed to allocate memory for requested buffer of size ${count * 8}`);
    return Float32Array.from({ length: count }, (_, i) => (samples[2 * i] as number) + (samples[2 * i + 1] as number));
  };
}

test('an allocation failure halves the batch, says so, keeps the order and remembers the smaller batch', async () => {
  const calls: number[] = [];
  const said: string[] = [];
  const halving = withHalving(fakeInfer(100, calls), { features: 2, outputs: 1, onHalve: (from, to) => said.push(`${from}->${to}`) });
  const samples = Float32Array.from({ length: 2 * 300 }, (_, i) => i);
  const out = await halving.infer(samples, 300);
  // 300 fails -> pieces of 150; the first 150 fails -> pieces of 75: 75 + 75 (first half), then 75 + 75 (second half).
  assert.deepEqual(said, ['300->150', '150->75']);
  assert.deepEqual(calls, [300, 150, 75, 75, 75, 75]);
  assert.equal(halving.cap, 75);
  assert.deepEqual([...out.subarray(0, 3)], [1, 5, 9]); // (0+1), (2+3), (4+5): in order
  assert.equal(out[299], 598 + 599);
  // Later calls start at the remembered size: no new failure.
  calls.length = 0;
  await halving.infer(samples.subarray(0, 2 * 80), 80);
  assert.deepEqual(calls, [75, 5]);
  assert.deepEqual(said, ['300->150', '150->75']);
});

test('other errors pass through, and a batch of one that does not fit is an AllocationError with the fix', async () => {
  const broken = withHalving(async () => Promise.reject(new Error('shape mismatch')), { features: 2, outputs: 1, onHalve: () => assert.fail('no halving') });
  await assert.rejects(broken.infer(new Float32Array(4), 2), /shape mismatch/);
  const tiny = withHalving(fakeInfer(0, []), { features: 2, outputs: 1, onHalve: () => {} });
  await assert.rejects(tiny.infer(new Float32Array(4), 2), (error: unknown) => {
    assert.ok(error instanceof AllocationError);
    assert.match(error.message, /a batch of 1 does not fit in memory: .*npm run memory-plan -w labs\/gpu-batching/);
    return true;
  });
  assert.equal(isAllocationError(new Error('CUDA failure 2: out of memory')), true);
  assert.equal(isAllocationError(new Error('std::bad_alloc')), true);
  assert.equal(isAllocationError(new Error('WebGPU: OutOfMemory while creating a buffer')), true);
  assert.equal(isAllocationError(new Error('Buffer size (2147483648 bytes) exceeds the limit (1073741824 bytes) of maxBufferSize')), true);
  assert.equal(isAllocationError(new Error('invalid input')), false);
});

test('the data set is deterministic, one file per sample, decoded to [0, 1]', () => {
  assert.deepEqual(samplePixels(7, 3), samplePixels(7, 3));
  assert.notDeepEqual(samplePixels(7, 3), samplePixels(7, 4));
  const out = new Float32Array(PIXELS + 1);
  const pixels = new Uint8Array(PIXELS);
  pixels[0] = 255;
  pixels[1] = 51;
  decodeInto(pixels, out, 1);
  assert.deepEqual([out[0], out[1], out[2], out[3]], [0, 1, 0.20000000298023224, 0]); // 51 / 255 = 0.2 in float32
  assert.throws(() => decodeInto(new Uint8Array(3), out, 0), /a sample file must hold 784 bytes, got 3/);
  const root = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-data-'));
  try {
    const a = ensureDataset(11, 5, root);
    assert.equal(readdirSync(a.dir).filter((f) => f.endsWith('.u8')).length, 5);
    const again = ensureDataset(11, 5, root);
    assert.equal(again.dir, a.dir);
    const samples = loadAllSync(a);
    assert.equal(samples.length, 5 * PIXELS);
    assert.equal(samples[PIXELS * 4 + 10], Math.fround((samplePixels(11, 4)[10] as number) / 255));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('ensureDataset: runs at once each get the whole set, none removes another\'s; a leftover without a manifest is replaced', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-data-race-'));
  try {
    // Four threads ask for the same set at once, each then reads every sample (the lab's set-up does the same).
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.module).then(({ ensureDataset, loadAllSync }) => {
        const set = ensureDataset(21, 2000, workerData.root);
        parentPort.postMessage(loadAllSync(set).length);
      }).catch((error) => parentPort.postMessage(String(error)));`;
    const module = new URL('../src/dataset.ts', import.meta.url).href;
    const lengths = await Promise.all(
      [0, 1, 2, 3].map(
        () =>
          new Promise((done, fail) => {
            const worker = new Worker(code, { eval: true, workerData: { module, root } });
            worker.once('message', done);
            worker.once('error', fail);
          }),
      ),
    );
    assert.deepEqual(lengths, [2000 * PIXELS, 2000 * PIXELS, 2000 * PIXELS, 2000 * PIXELS]);
    const sets = readdirSync(root);
    assert.equal(sets.length, 1, `one set, no staging folder left: ${sets.join(', ')}`);
    assert.match(sets[0]!, /-seed21-n2000$/);
    // An interrupted write of an older version: samples but no manifest. It is replaced, not trusted.
    const leftover = path.join(root, sets[0]!.replace('n2000', 'n3'));
    mkdirSync(leftover);
    writeFileSync(path.join(leftover, 'stale.u8'), 'x');
    const set = ensureDataset(21, 3, root);
    assert.equal(set.dir, leftover);
    const files = readdirSync(leftover);
    assert.equal(files.length, 4, files.join(', '));
    assert.ok(files.includes('manifest.json') && !files.includes('stale.u8'), files.join(', '));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** A case as results.json holds it, with only the fields the analysis reads filled in meaningfully. */
function fakeCase(variant: string, params: Record<string, number | string>, samplesMs: number[], observations: Record<string, number[]> = {}) {
  return {
    variant,
    params,
    // The devices case declares its device count as workers, so the harness computes its efficiency.
    ...(variant === 'devices' ? { workers: Number(params.devices) } : {}),
    samplesMs,
    workPerSample: { amount: 1000, unit: 'samples' },
    observations: Object.fromEntries(Object.entries(observations).map(([k, samples]) => [k, { unit: 'ms', description: k, samples, p50: null, p99: null, max: null }])),
  };
}

test('the lab analysis on hand-computed values: best batch, percentiles, pipeline ratio, device efficiency', () => {
  const results = {
    cases: [
      fakeCase('one-at-a-time', { ep: 'cpu' }, [1000, 1000, 1000, 1000, 1000, 1000]),
      // 1000 samples in 100 ms = 10,000 samples/s: 10x the baseline's 1,000/s.
      fakeCase('batched', { ep: 'cpu', batch: 64 }, [100, 100, 100, 100, 100, 100], { 'call latency': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }),
      // 125 ms median: 8x. Windows of 2 samples: 200 ms / 2000 samples, then 400 ms, then 200 ms: never stable.
      fakeCase('batched', { ep: 'cpu', batch: 512 }, [100, 100, 200, 200, 100, 150]),
      fakeCase('read-then-infer', { ep: 'cpu', batch: 64, reader: 'worker' }, [300, 300], { 'read ms': [100, 100], 'compute ms': [200, 200] }),
      // 230 ms / max(100, 200) ms = 1.15.
      fakeCase('pipeline', { ep: 'cpu', batch: 64, prefetch: 4, reader: 'worker' }, [230, 230]),
      fakeCase('pipeline', { ep: 'cpu', batch: 64, prefetch: 4, reader: 'threadpool' }, [400]),
      fakeCase('devices', { ep: 'cpu', batch: 64, devices: 2 }, [125, 125], { 'device 1 busy fraction': [0.5, 0.7], 'device 0 busy fraction': [0.8, 0.8] }),
      fakeCase('devices', { ep: 'cpu', batch: 64, devices: 1 }, [200, 200]),
      // From memory: 1 device 10,000/s; 2 devices 1000 / 0.0625 s = 16,000/s = 0.8 x 2 x 10,000.
      fakeCase('devices', { ep: 'cpu', batch: 64, devices: 2, source: 'memory' }, [62.5]),
      fakeCase('devices', { ep: 'cpu', batch: 64, devices: 1, source: 'memory' }, [100]),
    ],
  } as unknown as Results;
  // Efficiency is the harness's (computed once, for every case that declares workers); the lab only reads it.
  results.speedups = analyze(results.cases, {
    baseline: 'one-at-a-time',
    headline: { variant: 'batched', params: { ep: 'cpu', batch: 64 } },
    seed: 1,
    resamples: 100,
    availableParallelism: 4,
  }).speedups;
  const a = gpuBatchingAnalysis(results);
  assert.equal(a.ep, 'cpu');
  assert.deepEqual(a.best, { batch: 64, speedup: 10 });
  const b64 = a.batches.find((b) => b.batch === 64)!;
  assert.equal(b64.throughput, 10_000);
  // R-7 quantiles of 1..11: p50 = 6, p95 = 1 + 0.95 x 10 = 10.5, p99 = 1 + 0.99 x 10 = 10.9.
  assert.deepEqual(b64.latency, { p50: 6, p95: 10.5, p99: 10.9 });
  assert.equal(b64.stableAtWindow, 2);
  assert.equal(a.batches.find((b) => b.batch === 512)!.stableAtWindow, null);
  assert.equal(a.pipeline.length, 1);
  assert.equal(a.pipeline[0]!.ratio, 1.15);
  assert.match(a.notes.join('\n'), /reader=threadpool.*no read-then-infer case with the same batch and reader/);
  // From disk (no source param means disk): 1 device 5,000/s; 2 devices 8,000/s = 0.8 x 2 x 5,000.
  assert.deepEqual(a.devices.map((d) => [d.source, d.devices, d.throughput, d.efficiency]), [
    ['disk', 1, 5000, 1],
    ['disk', 2, 8000, 0.8],
    ['memory', 1, 10_000, 1],
    ['memory', 2, 16_000, 0.8],
  ]);
  assert.deepEqual(a.devices[1]!.busy, [0.8, 0.6]); // medians, device 0 first
  assert.match(a.notes.join('\n'), /Execution provider: CPU\. The "devices" are CPU processes/);
  assert.match(formatAnalysis(a), /best: batch 64, 10\.0x the one-at-a-time throughput/);
});

test('pool events are said in one line with what happens next', () => {
  assert.equal(
    describeEvent({ type: 'retry', device: 1, chunk: 3, range: { start: 60, count: 20 }, attempt: 2, maxAttempts: 3, reason: 'boom' }),
    'chunk 3 (samples 60..79) failed on device 1: boom; retrying (attempt 2 of 3)',
  );
  assert.equal(describeEvent({ type: 'restart', device: 0, reason: 'device 0 process 42 exited (code 70, signal null)' }), 'device 0 process 42 exited (code 70, signal null): restarting device 0');
  assert.equal(
    describeEvent({ type: 'halved', device: 2, from: 512, to: 256, reason: 'out of memory' }),
    'device 2: allocation failed for a batch of 512 (out of memory): halving to 256 and retrying',
  );
  assert.equal(describeEvent({ type: 'progress', device: 0, samplesDone: 64, samplesAssigned: 128, totalDone: 100, total: 400 }), 'device 0: 64/128 samples, total 100/400');
});
