/**
 * GPU detection, the memory plan and the choice of execution provider against a stand-in `nvidia-smi`
 * (test/fixtures/bin/nvidia-smi: a TEST DOUBLE, not a GPU) put first on PATH. Nothing here pretends a GPU ran:
 * the CUDA probe is real and, on a machine without the CUDA provider, reports it unusable.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { detectGpus, restrictToVisible, type GpuInfo } from '../src/gpus.ts';

const FAKE_BIN = fileURLToPath(new URL('./fixtures/bin', import.meta.url));
const SRC = fileURLToPath(new URL('../src', import.meta.url));
const withDouble = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH}`, ...extra });
const withoutGpus: NodeJS.ProcessEnv = { ...process.env, PATH: path.dirname(process.execPath) };

function node(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 60_000 });
}

test('detectGpus reads the nvidia-smi test double', () => {
  const { gpus, problems } = detectGpus(withDouble());
  assert.deepEqual(problems, []);
  assert.deepEqual(gpus, [
    { index: 0, name: 'Test Double GPU 16GB', totalMiB: 16384, usedMiB: 1024, freeMiB: 15360 },
    { index: 1, name: 'Test Double GPU 16GB', totalMiB: 16384, usedMiB: 12288, freeMiB: 4096 },
  ]);
});

test('detectGpus says why there is no GPU: no nvidia-smi, or a failing driver', () => {
  assert.deepEqual(detectGpus(withoutGpus), { gpus: [], problems: ['nvidia-smi not found: no NVIDIA driver on this machine'] });
  const failing = detectGpus(withDouble({ FAKE_NVIDIA_SMI_FAIL: '1' }));
  assert.equal(failing.gpus.length, 0);
  assert.match(failing.problems[0] ?? '', /^nvidia-smi failed: /);
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
    const run = node(['--input-type=module', '-e', `const m = await import(${JSON.stringify(path.join(SRC, 'lab.ts'))}); console.log(JSON.stringify([m.TARGET.ep, m.default.title, m.default.headline.params]));`], env);
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

test('with a GPU listed but no CUDA provider, the device processes refuse to start: no silent CPU fallback', { skip: detectGpus().gpus.length > 0 && 'this machine has a real GPU' }, () => {
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

test('detectGpus applies CUDA_VISIBLE_DEVICES to what nvidia-smi lists', () => {
  assert.deepEqual(detectGpus(withDouble({ CUDA_VISIBLE_DEVICES: '1' })).gpus.map((g) => g.index), [1]);
  assert.deepEqual(detectGpus(withDouble({ CUDA_VISIBLE_DEVICES: '' })).gpus, []);
});
