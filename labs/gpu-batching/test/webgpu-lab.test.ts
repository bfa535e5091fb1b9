/**
 * The lab on WebGPU through the harness, as CI runs it: GPU_BATCHING_EP=webgpu and nothing else, on Debian's
 * SwiftShader (the emulated adapter the lab sets up itself). Every case must pass the check and every number must
 * say it came from an emulated GPU. No speed is asserted: an emulated GPU's times are the CPU's.
 * Skipped, in one line, where SwiftShader or the Vulkan loader is not installed, unless GPU_BATCHING_REQUIRE_WEBGPU=1
 * (set by .ci/run, which installs both), where that is a failure.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runLab, runningProcesses } from '@parallel-course/harness/testing.ts';
import { parseResultsJson } from '@parallel-course/core';
import { EMULATED_WARNING, SWIFTSHADER_ICD, vulkanLoaderFound } from '../src/webgpu.ts';

const TINY = { warmupSamples: 0, rounds: 1, samplesPerRound: 1 };
const missing = !existsSync(SWIFTSHADER_ICD) ? `SwiftShader (${SWIFTSHADER_ICD}, Debian's chromium)` : !vulkanLoaderFound() ? 'the Vulkan loader (libvulkan1)' : null;
const skip = missing !== null && process.env.GPU_BATCHING_REQUIRE_WEBGPU !== '1' ? `no emulated WebGPU adapter here: ${missing} is not installed (apt-get install chromium libvulkan1)` : false;

test('GPU_BATCHING_EP=webgpu alone: every case runs on the emulated adapter, passes its check and says so', { skip, timeout: 900_000 }, async () => {
  assert.equal(missing, null, `GPU_BATCHING_REQUIRE_WEBGPU=1 but ${missing} is not installed`);
  const saved = { ...process.env };
  for (const name of ['VK_ICD_FILENAMES', 'VK_DRIVER_FILES', 'CUDA_VISIBLE_DEVICES']) delete process.env[name];
  process.env.GPU_BATCHING_EP = 'webgpu';
  // No real GPU may be visible, so the run is the emulated one whatever machine runs the test.
  for (const name of ['XDG_CONFIG_HOME', 'XDG_CONFIG_DIRS', 'XDG_DATA_HOME', 'XDG_DATA_DIRS']) process.env[name] = '/nonexistent-webgpu-test';
  process.env.CUDA_VISIBLE_DEVICES = '';
  const out = mkdtempSync(path.join(os.tmpdir(), 'gpu-batching-webgpu-'));
  try {
    const outcome = await runLab({ lab: 'gpu-batching', impl: 'solution', quick: true, outDir: out, sampling: TINY, silent: true, cpus: 2 });
    assert.equal(outcome.exitCode, 0, outcome.summary + JSON.stringify(outcome.correctness.filter((c) => !c.passed)));
    const results = parseResultsJson(readFileSync(path.join(outcome.runDir!, 'results.json'), 'utf8'), 'results.json');
    assert.ok(results.correctness.length > 0 && results.correctness.every((c) => c.passed));
    assert.ok(results.correctness.every((c) => c.params.ep === 'webgpu' && c.params.adapter === 'emulated'), 'every case: ep=webgpu, adapter=emulated');
    assert.ok(results.title.includes(EMULATED_WARNING), results.title);
    assert.ok(results.notes.some((n) => n.includes(EMULATED_WARNING) && /SwiftShader/.test(n)), results.notes.join('\n'));
    assert.ok(results.environment.webgpuAdapters?.some((a) => a.emulated === true && /SwiftShader/.test(a.vendor)), 'the environment records the emulated adapter');
    const variants = new Set(results.cases.map((c) => c.variant));
    assert.deepEqual([...variants].sort(), ['batched', 'devices', 'one-at-a-time', 'pipeline', 'processes-per-device', 'read-then-infer', 'sessions']);
    assert.deepEqual(results.cases.filter((c) => c.variant === 'processes-per-device').map((c) => c.params.processes).sort(), [1, 2]);
    assert.deepEqual(results.cases.filter((c) => c.variant === 'devices').map((c) => c.params.devices), [1], 'one device: no per-process adapter choice');
    // Transfer measured apart from compute, on every batched case (a stand-in model with the same input and output sizes).
    assert.ok(results.cases.filter((c) => c.variant === 'batched').every((c) => (c.observations['transfer-only call']?.samples.length ?? 0) > 0));
    const report = readFileSync(path.join(outcome.runDir!, 'report.md'), 'utf8');
    assert.ok(report.includes(EMULATED_WARNING), 'the report names the emulated GPU');
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
    rmSync(out, { recursive: true, force: true });
  }
  assert.deepEqual(runningProcesses(fileURLToPath(new URL('../src/device-main.ts', import.meta.url))), []);
});
