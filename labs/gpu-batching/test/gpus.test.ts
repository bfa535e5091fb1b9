/**
 * GPU detection, the memory plan and the choice of execution provider against a stand-in `nvidia-smi`
 * (test/fixtures/bin/nvidia-smi: a TEST DOUBLE, not a GPU) put first on PATH. Nothing here pretends a GPU ran:
 * the CUDA probe is real and, on a machine without the CUDA provider, reports it unusable.
 * Also against misbehaving stand-ins (../../harness/test/support/fake-nvidia-smi.ts): one that hangs, one that prints
 * terminal escape sequences, one that records that it ran. Runs that could hang on a regression go in a child process.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fakeNvidiaSmi, garbage, HUNG } from '../../harness/test/support/fake-nvidia-smi.ts';
import { detectGpus, restrictToVisible, type GpuInfo } from '../src/gpus.ts';

const FAKE_BIN = fileURLToPath(new URL('./fixtures/bin', import.meta.url));
const SRC = fileURLToPath(new URL('../src', import.meta.url));
const withDouble = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH}`, ...extra });
const withoutGpus: NodeJS.ProcessEnv = { ...process.env, PATH: path.dirname(process.execPath) };
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function node(args: string[], env: NodeJS.ProcessEnv, timeout = 60_000) {
  return spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout });
}

/** Runs an ES module snippet in a child Node (so a hang is a failed test, not a hung test run) and parses the JSON it prints. */
function evaluate<T>(code: string, env: NodeJS.ProcessEnv, timeout: number): { value: T; ms: number } {
  const started = performance.now();
  const run = node(['--input-type=module', '-e', code], env, timeout);
  const ms = performance.now() - started;
  assert.equal(run.signal, null, `the child was killed after ${ms.toFixed(0)} ms (a hang?): ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  return { value: JSON.parse(run.stdout) as T, ms };
}

test('detectGpus reads the nvidia-smi test double', async () => {
  const { gpus, problems } = await detectGpus(withDouble());
  assert.deepEqual(problems, []);
  assert.deepEqual(gpus, [
    { index: 0, name: 'Test Double GPU 16GB', totalMiB: 16384, usedMiB: 1024, freeMiB: 15360 },
    { index: 1, name: 'Test Double GPU 16GB', totalMiB: 16384, usedMiB: 12288, freeMiB: 4096 },
  ]);
});

test('detectGpus says why there is no GPU: no nvidia-smi, or a failing driver', async () => {
  assert.deepEqual(await detectGpus(withoutGpus), { gpus: [], problems: ['nvidia-smi not found: no NVIDIA driver on this machine'] });
  const failing = await detectGpus(withDouble({ FAKE_NVIDIA_SMI_FAIL: '1' }));
  assert.equal(failing.gpus.length, 0);
  assert.deepEqual(failing.problems, ["nvidia-smi exited with status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver (test double)"]);
});

test('a hung nvidia-smi (ignores SIGTERM, its child holds the pipe) costs the time limit plus two grace periods and one line', (t) => {
  const { env } = fakeNvidiaSmi(t, HUNG);
  const gpus = JSON.stringify(path.join(SRC, 'gpus.ts'));
  const { value, ms } = evaluate<{ async: unknown; sync: unknown }>(
    `const m = await import(${gpus}); const probe = { timeoutMs: 500, graceMs: 300 };
     console.log(JSON.stringify({ async: await m.detectGpus(process.env, probe), sync: m.detectGpusSync(process.env, probe) }));`,
    env,
    20_000,
  );
  const expected = { gpus: [], problems: ['nvidia-smi did not finish within 0.5 s and was killed: is the driver hung? Run nvidia-smi by hand to see'] };
  assert.deepEqual(value.async, expected);
  assert.deepEqual(value.sync, expected);
  // Two detections of at most 0.5 + 2 x 0.3 s each, plus Node's start-up and a helper thread.
  assert.ok(ms < 6000, `took ${ms.toFixed(0)} ms`);
});

test('garbage from nvidia-smi never reaches a message raw: escape sequences go, unreadable lines are quoted clean', async (t) => {
  const { env } = fakeNvidiaSmi(t, garbage('0, Evil GPU, 16384, 1024, 15360'));
  const detection = await detectGpus(env);
  assert.deepEqual(detection.gpus, [{ index: 0, name: 'Evil GPU', totalMiB: 16384, usedMiB: 1024, freeMiB: 15360 }]);
  assert.deepEqual(detection.problems, []);
  const flood = fakeNvidiaSmi(t, `${garbage('not a gpu')}\nyes 'junk line' | head -n 500`);
  const messy = await detectGpus(flood.env);
  assert.equal(messy.gpus.length, 0);
  assert.deepEqual(messy.problems, [
    'cannot read nvidia-smi line "not a gpu": expected index, name, total, used, free',
    'cannot read nvidia-smi line "junk line": expected index, name, total, used, free',
    'cannot read nvidia-smi line "junk line": expected index, name, total, used, free',
    'and 498 more nvidia-smi line(s) that cannot be read',
  ]);
  for (const line of messy.problems) assert.doesNotMatch(line, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
});

test('importing the lab and listing the labs run no nvidia-smi; the first run that needs the provider does, once', (t) => {
  const { bin, env } = fakeNvidiaSmi(t, 'echo ran >> "$(dirname "$0")/calls"\necho "0, Test Double GPU, 16384, 1024, 15360"');
  const calls = path.join(bin, 'calls');
  const lab = JSON.stringify(path.join(SRC, 'lab.ts'));
  evaluate(`const m = await import(${lab}); console.log(JSON.stringify(m.default.summary));`, env, 60_000);
  const list = node([path.join(ROOT, 'labs/harness/src/cli.ts'), '--list'], env);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /^gpu-batching /m);
  assert.equal(existsSync(calls), false, 'nvidia-smi ran at import time');
  const { value } = evaluate<[string, string, string]>(
    `const m = await import(${lab}); const l = m.default; const ctx = { quick: true, availableParallelism: 2 };
     console.log(JSON.stringify([l.title, l.cases(ctx)[0].params.ep, l.notes(ctx)[0]]));`,
    env,
    60_000,
  );
  assert.deepEqual(value, [
    'Batched and multi-device inference (ONNX Runtime, CUDA execution provider)',
    'cuda',
    'Execution provider: CUDA: 1 GPU(s) listed by nvidia-smi (set GPU_BATCHING_EP=cpu or webgpu to measure those instead).',
  ]);
  assert.equal(readFileSync(calls, 'utf8'), 'ran\n', 'detected once per process');
});

test('the memory plan per GPU, with headroom, and an honest "CUDA not usable" where the provider is missing', () => {
  const run = node([path.join(SRC, 'plan-cli.ts'), '--json', '--headroom-gb', '3'], withDouble());
  assert.equal(run.status, 0, run.stderr);
  const plan = JSON.parse(run.stdout);
  assert.equal(plan.devices.length, 2);
  assert.equal(plan.headroomBytes, 3 * 1024 ** 3);
  const [roomy, tight] = plan.devices;
  // GPU 0: 15360 MiB free - 3072 MiB headroom = 12288 MiB usable.
  assert.equal(roomy.device, 'gpu 0 Test Double GPU 16GB');
  assert.equal(roomy.plan.usableBytes, 12288 * 1024 ** 2);
  assert.equal(roomy.plan.batch, 512);
  assert.ok(roomy.plan.processes >= 1 && roomy.plan.processes <= 4);
  // GPU 1: 4096 - 3072 = 1024 MiB usable, less than GPU 0 in every respect.
  assert.equal(tight.plan.usableBytes, 1024 * 1024 ** 2);
  assert.ok(tight.plan.processes <= roomy.plan.processes);
  assert.ok(plan.footprint.modelBytes >= 0 && plan.footprint.perSampleBytes > 0);
  // The probe is real: without the CUDA provider libraries it must say so, never claim a GPU ran.
  if (!plan.cuda.usable) assert.match(plan.cuda.reason, /CUDA execution provider is not usable/);
});

test('the plan on a machine without GPUs plans RAM and says so', () => {
  const run = node([path.join(SRC, 'plan-cli.ts'), '--no-probe'], withoutGpus);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /GPUs: none \(nvidia-smi not found: no NVIDIA driver on this machine\)\. Planning CPU "devices" in RAM\./);
  assert.match(run.stdout, /^cpu \(RAM\)\s+\S+ \S+\s+\S+ \S+\s+\S+ \S+\s+\d+\s+\d+$/m);
});

test('plan-cli rejects a bad headroom with the rule and exit 2', () => {
  const run = node([path.join(SRC, 'plan-cli.ts'), '--headroom-gb', 'lots'], withoutGpus);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--headroom-gb must be a number of GiB from 0 to 1024 \(2-3 is usual\), got 'lots'/);
});

test('the lab labels its execution provider from detection: CUDA with GPUs listed, CPU without, and on request', () => {
  const probe = (env: NodeJS.ProcessEnv) => {
    const run = node(['--input-type=module', '-e', `const m = await import(${JSON.stringify(path.join(SRC, 'lab.ts'))}); console.log(JSON.stringify([m.labTarget().ep, m.default.title, m.default.headline.params]));`], env);
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as [string, string, Record<string, unknown>];
  };
  const [ep, title, headline] = probe(withoutGpus);
  assert.equal(ep, 'cpu');
  assert.match(title, /CPU execution provider/);
  assert.deepEqual(headline, { ep: 'cpu', batch: 256 });
  assert.equal(probe(withDouble())[0], 'cuda');
  assert.match(probe(withDouble())[1], /CUDA execution provider/);
  assert.equal(probe(withDouble({ GPU_BATCHING_EP: 'cpu' }))[0], 'cpu');
});

test('with a GPU listed but no CUDA provider, the device processes refuse to start: no silent CPU fallback', { skip: (await detectGpus()).gpus.length > 0 && 'this machine has a real GPU' }, () => {
  const run = node([path.join(SRC, 'devices-cli.ts'), '--samples', '8', '--devices', '1'], withDouble());
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^Execution provider: CUDA \(CUDA: 2 GPU\(s\) listed by nvidia-smi/m);
  assert.match(run.stderr, /device 0 \(cuda\) did not start: the CUDA execution provider is not usable in this process/);
  assert.doesNotMatch(run.stdout, /samples\/s/);
});

test('restrictToVisible keeps only the GPUs a scheduler gave this job (CUDA_VISIBLE_DEVICES)', () => {
  const gpu = (index: number): GpuInfo => ({ index, name: 'g', totalMiB: 1, usedMiB: 0, freeMiB: 1 });
  const four = [0, 1, 2, 3].map(gpu);
  assert.deepEqual(restrictToVisible(four, undefined), { gpus: four, problems: [] });
  assert.deepEqual(restrictToVisible(four, '2,3'), { gpus: [gpu(2), gpu(3)], problems: [] });
  assert.deepEqual(restrictToVisible(four, ' 1 '), { gpus: [gpu(1)], problems: [] });
  assert.deepEqual(restrictToVisible(four, '1,7'), { gpus: [gpu(1)], problems: ['CUDA_VISIBLE_DEVICES lists GPU 7, which nvidia-smi does not show'] });
  for (const none of ['', '-1']) {
    assert.deepEqual(restrictToVisible(four, none), { gpus: [], problems: [`CUDA_VISIBLE_DEVICES is "${none}": no GPU is visible to this job`] });
  }
  const uuid = restrictToVisible(four, 'GPU-8d1c0a3e-1234');
  assert.equal(uuid.gpus.length, 0);
  assert.match(uuid.problems[0] ?? '', /by UUID or MIG instance; this lab maps devices by index only/);
});

test('detectGpus applies CUDA_VISIBLE_DEVICES to what nvidia-smi lists', async () => {
  assert.deepEqual((await detectGpus(withDouble({ CUDA_VISIBLE_DEVICES: '1' }))).gpus.map((g) => g.index), [1]);
  assert.deepEqual((await detectGpus(withDouble({ CUDA_VISIBLE_DEVICES: '' }))).gpus, []);
});
