/**
 * The lab as the harness runs it: a tiny-sampling smoke run of the solution through runLab (valid results, CPU
 * labelled, every variant correct), the shipped exercise failing kindly, no device process left behind, and the GPU
 * node script checked without a GPU (syntax, and shellcheck where it is installed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runLab, runningProcesses } from '@parallel-course/harness/testing.ts';
import { fileURLToPath } from 'node:url';
import { parseAnalysisValuesJson, parseResultsJson } from '@parallel-course/core';
import { gpuBatchingAnalysis } from '../src/analysis.ts';
import * as batching from '../../../exercises/gpu-batching/batching.ts';
import * as chunks from '../../../exercises/gpu-batching/chunks.ts';
import * as pipeline from '../../../exercises/gpu-batching/pipeline.ts';
import type { Model } from '../src/session.ts';
import type { SampleSource } from '../src/dataset.ts';

const SCRIPT = fileURLToPath(new URL('../scripts/gpu-node.sh', import.meta.url));
const ANALYSE = fileURLToPath(new URL('../../harness/src/tools/analyse-cli.ts', import.meta.url));
const DOUBLE = fileURLToPath(new URL('./fixtures/bin/nvidia-smi', import.meta.url));
const TINY = { warmupSamples: 0, rounds: 1, samplesPerRound: 1 };
/**
 * The same case list on any machine: the sweep planned for 2 CPUs (forced, as --cpus 2 does), and no GPU visible
 * (an empty CUDA_VISIBLE_DEVICES hides every GPU from the lab, as a scheduler's empty allocation would).
 */
const MACHINE = { cpus: 2 } as const;
async function withoutGpus<T>(run: () => Promise<T>): Promise<T> {
  const saved = process.env.CUDA_VISIBLE_DEVICES;
  process.env.CUDA_VISIBLE_DEVICES = '';
  try {
    return await run();
  } finally {
    if (saved === undefined) delete process.env.CUDA_VISIBLE_DEVICES;
    else process.env.CUDA_VISIBLE_DEVICES = saved;
  }
}

function deviceProcesses(): string[] {
  return runningProcesses(fileURLToPath(new URL('../src/device-main.ts', import.meta.url)));
}

test('the shipped exercise says what to write and where', async () => {
  const model = { features: 784, outputs: 10 } as Model;
  const source = { count: 3, features: 784 } as SampleSource;
  await assert.rejects(batching.inferInBatches(model, new Float32Array(0), 3, 2), /^NotImplementedError: not implemented: inferInBatches in exercises\/gpu-batching\/batching\.ts \(run 3 samples in batches\)$/);
  await assert.rejects(batching.inferWithSessions([model], new Float32Array(0), 3, 2), /not implemented: inferWithSessions in exercises\/gpu-batching\/batching\.ts/);
  await assert.rejects(pipeline.inferPipelined(model, source, 2, 4), /not implemented: inferPipelined in exercises\/gpu-batching\/pipeline\.ts \(read ahead 4 batches of 3 samples/);
  assert.throws(() => chunks.chunkRanges(10, 4), /not implemented: chunkRanges in exercises\/gpu-batching\/chunks\.ts \(split 10 samples into 4 ranges\)/);
});

test('a tiny-sampling run of the solution through runLab: valid results, every case correct, CPU labelled', { timeout: 180_000 }, async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-smoke-'));
  try {
    const outcome = await withoutGpus(() => runLab({ lab: 'gpu-batching', impl: 'solution', quick: true, outDir: out, sampling: TINY, silent: true, cpus: MACHINE.cpus }));
    assert.equal(outcome.exitCode, 0, outcome.summary + JSON.stringify(outcome.correctness.filter((c) => !c.passed)));
    const results = parseResultsJson(readFileSync(path.join(outcome.runDir!, 'results.json'), 'utf8'), 'results.json');
    assert.ok(results.correctness.every((c) => c.passed));
    assert.ok(results.correctness.every((c) => c.params.ep === 'cpu'), 'every case says it ran on the CPU');
    assert.match(results.title, /CPU execution provider/);
    assert.deepEqual(results.headline?.params, { ep: 'cpu', batch: 256 });
    const variants = new Set(results.cases.map((c) => c.variant));
    assert.deepEqual([...variants].sort(), ['batched', 'devices', 'one-at-a-time', 'pipeline', 'processes-per-device', 'read-then-infer', 'sessions']);
    assert.ok(results.cases.every((c) => c.workPerSample.unit === 'samples' && c.workPerSample.amount === 512));
    const twoDevices = results.cases.find((c) => c.variant === 'devices' && c.params.devices === 2)!;
    assert.deepEqual(Object.keys(twoDevices.observations).filter((k) => k.endsWith('samples')).sort(), ['device 0 samples', 'device 1 samples']);
    const analysis = gpuBatchingAnalysis(results);
    assert.equal(analysis.ep, 'cpu');
    assert.equal(analysis.pipeline.length, 1);
    assert.equal(analysis.devices.length, 2);
    assert.equal(analysis.devices[0]?.efficiency, 1);
    // The harness ran the lab's analysis after the run; the one analyse command redoes it into a new folder.
    assert.match(readFileSync(path.join(outcome.runDir!, 'analysis', 'analysis.md'), 'utf8'), /^Execution provider that ran: CPU$/m);
    // The numbers episode 08 renders, in values.json: labelled CPU fallback, a device process's memory measured.
    const values = parseAnalysisValuesJson(readFileSync(path.join(outcome.runDir!, 'analysis', 'values.json'), 'utf8'));
    assert.equal(values.values.gpusUsed?.value, 0);
    assert.match(values.values.perCallUsOneAtATime?.what ?? '', /CPU fallback: no GPU used/);
    assert.ok(values.values.speedupBatch256 && values.values.pipelineRatioPrefetch4, Object.keys(values.values).join(', '));
    assert.ok((values.values.deviceResidentMiB?.value ?? 0) > 0, 'each device process reports its resident memory');
    assert.deepEqual(Object.keys(values.tables).sort(), ['batchSweep', 'devices', 'pipeline', 'sessions', 'sharing']);
    const cli = spawnSync(process.execPath, [ANALYSE, outcome.runDir!], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /best: batch \d+, [\d.]+x the one-at-a-time throughput/);
    assert.match(cli.stdout, /Written: .*analysis-2\/analysis\.md, .*analysis-2\/analysis\.json/);
    const bad = spawnSync(process.execPath, [ANALYSE, path.join(out, 'nope.json')], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /nope\.json does not exist/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  assert.deepEqual(deviceProcesses(), []);
});

test('the shipped exercise is reported as not implemented and never timed; the lab-side variants still run', { timeout: 120_000 }, async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-exercise-'));
  try {
    const outcome = await withoutGpus(() => runLab({ lab: 'gpu-batching', impl: 'exercise', quick: true, outDir: out, sampling: TINY, silent: true, cpus: MACHINE.cpus }));
    assert.equal(outcome.exitCode, 1);
    // What passed (the baseline and read-then-infer, which are lab code) is measured; nothing unfinished is timed.
    assert.deepEqual([...new Set(outcome.results?.cases.map((c) => c.variant))].sort(), ['one-at-a-time', 'read-then-infer']);
    const byVariant = (v: string) => outcome.correctness.filter((c) => c.variant === v);
    assert.ok(byVariant('one-at-a-time').every((c) => c.passed));
    assert.ok(byVariant('read-then-infer').every((c) => c.passed));
    for (const [variant, fn] of [['batched', 'inferInBatches'], ['sessions', 'inferWithSessions'], ['pipeline', 'inferPipelined'], ['devices', 'chunkRanges'], ['processes-per-device', 'chunkRanges']]) {
      for (const entry of byVariant(variant!)) {
        assert.equal(entry.notImplemented, true, `${variant} ${JSON.stringify(entry.params)}: ${entry.reason}`);
        assert.match(entry.reason ?? '', new RegExp(`^not implemented: ${fn} in exercises/gpu-batching/`));
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  assert.deepEqual(deviceProcesses(), []);
});

test('the GPU node script parses, is shellcheck-clean where shellcheck exists, and stops kindly without a GPU', (t) => {
  for (const file of [SCRIPT, DOUBLE]) {
    const syntax = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
    assert.equal(syntax.status, 0, syntax.stderr);
  }
  const shellcheck = spawnSync('shellcheck', [SCRIPT, DOUBLE], { encoding: 'utf8' });
  if (shellcheck.error) t.diagnostic('shellcheck is not installed: only bash -n was checked');
  else assert.equal(shellcheck.status, 0, shellcheck.stdout);
  const noGpu = spawnSync('bash', [SCRIPT], { encoding: 'utf8', env: { ...process.env, PATH: '/usr/bin:/bin' } });
  assert.equal(noGpu.status, 1);
  assert.match(noGpu.stderr, /gpu-node\.sh: nvidia-smi not found: this is not a GPU node/);
});
