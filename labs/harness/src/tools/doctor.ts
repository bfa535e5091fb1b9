/**
 * `npm run doctor`: can this machine run the course, and what will its numbers mean? Each check has a level
 * (ok / warn / fail) and advice. Only a `fail` (the course cannot run) makes the exit code non-zero.
 * `diagnose` is a pure function of the probe, so the advice is tested without the machine it describes.
 */
import type { Environment } from '@parallel-course/core';
import type { OrtProbe } from './ort-probe.ts';
import { describeAdapter, describeIgnored, type IgnoredDriver, type WebGpuAdapter } from '../machine/webgpu-adapters.ts';

/** The course runs TypeScript directly, which needs Node >= 22.18 (type stripping on by default); it pins 24. */
const REQUIRED_NODE_MAJOR = 24;

export interface DoctorProbe {
  nodeVersion: string;
  /** The Node binary path: the pinned runtime lives in node_modules. */
  execPath: string;
  /** `c++ --version` first line, or null when no compiler answered. */
  cxx: string | null;
  cpuCount: number;
  availableParallelism: number;
  cpuAffinity: string | null;
  cgroupCpuQuota: number | null;
  uvThreadpoolSize: string | null;
  /** GPUs from nvidia-smi; null when nvidia-smi is not on PATH. */
  gpus: Environment['gpus'] | null;
  /** Why nvidia-smi, though on PATH, gave no GPU list (it failed, overran its time limit, printed garbage), in one line; null otherwise. */
  gpuProblem: string | null;
  ort: OrtProbe | null;
  /** WebGPU adapters Dawn can find (recordedWebGpuAdapters); absent: not looked for. */
  webgpuAdapters?: WebGpuAdapter[];
  /** GPU drivers installed without their device (lookUpWebGpuAdapters), left out of the adapters. */
  webgpuIgnored?: IgnoredDriver[];
  /** Packages the harness needs, each with the error of loading it (null = loaded). */
  packages: Record<string, string | null>;
  slurm: Record<string, string>;
  /** What each lab's own probe found (labs/<lab>/src/doctor-probe.ts, e.g. the native addon and its BLAS rung). */
  labFindings?: Finding[];
}

export type Level = 'ok' | 'warn' | 'fail';

export interface Finding {
  check: string;
  level: Level;
  value: string;
  advice: string;
}

function major(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

export function diagnose(p: DoctorProbe): Finding[] {
  const out: Finding[] = [];
  const nodeMajor = major(p.nodeVersion);
  out.push(
    nodeMajor >= REQUIRED_NODE_MAJOR
      ? { check: 'Node.js', level: 'ok', value: `${p.nodeVersion} (${p.execPath})`, advice: 'the pinned runtime: every learner measures on the same V8' }
      : nodeMajor >= 22
        ? { check: 'Node.js', level: 'warn', value: p.nodeVersion, advice: `the course pins Node ${REQUIRED_NODE_MAJOR}: run commands through npm (npm run doctor), which puts node_modules/.bin first on PATH` }
        : { check: 'Node.js', level: 'fail', value: p.nodeVersion, advice: `Node ${p.nodeVersion} cannot run the course's TypeScript: run 'npm ci' in the repository, then use 'npm run ...' (it uses the pinned Node ${REQUIRED_NODE_MAJOR})` },
  );
  const missing = Object.entries(p.packages).filter(([, error]) => error !== null);
  out.push(
    missing.length === 0
      ? { check: 'packages', level: 'ok', value: Object.keys(p.packages).join(', '), advice: 'installed' }
      : { check: 'packages', level: 'fail', value: missing.map(([name]) => name).join(', '), advice: `cannot load ${missing.map(([n, e]) => `${n} (${e})`).join('; ')}: run 'npm ci' in the repository root (offline: see labs/harness/README.md, "Air-gapped installation")` },
  );
  out.push(
    p.cxx !== null
      ? { check: 'C++ compiler', level: 'ok', value: p.cxx, advice: 'the native-kernel lab can build its addon (npm run build -w labs/native-kernel)' }
      : { check: 'C++ compiler', level: 'warn', value: 'none found (c++, g++, clang++)', advice: "the native-kernel lab's C++ rungs will be skipped: install one (Debian: apt-get install g++; macOS: xcode-select --install) or load a compiler module on a cluster" },
  );
  out.push({
    check: 'CPUs',
    level: p.availableParallelism < 2 ? 'warn' : 'ok',
    value: `${p.cpuCount} seen by the OS, ${p.availableParallelism} available to this process`,
    advice:
      p.availableParallelism < 2
        ? 'with one CPU no parallel variant can be faster: the labs will run, but every speedup will be about 1 or below. Ask for more CPUs (Slurm: --cpus-per-task=4)'
        : p.availableParallelism < p.cpuCount
          ? 'an affinity mask (taskset, Slurm cpuset) limits this process: the labs size their pools to the available count'
          : 'pools are sized to this count; sweeps go one step beyond it to show oversubscription',
  });
  out.push({ check: 'CPU affinity', level: 'ok', value: p.cpuAffinity ?? 'unknown (not Linux?)', advice: 'the CPUs this process may run on (Cpus_allowed_list); os.availableParallelism() takes it into account, and every lab run records it' });
  if (p.cgroupCpuQuota !== null && p.cgroupCpuQuota < p.availableParallelism) {
    out.push({
      check: 'cgroup CPU quota',
      level: 'warn',
      value: `${p.cgroupCpuQuota} CPUs`,
      advice: `the container may use ${p.cgroupCpuQuota} CPUs of time but sees ${p.availableParallelism}: pools of ${p.availableParallelism} will be throttled and their speedups look poor. Set the container's --cpus to a whole number, or size pools to ${Math.max(1, Math.floor(p.cgroupCpuQuota))}`,
    });
  } else {
    out.push({ check: 'cgroup CPU quota', level: 'ok', value: p.cgroupCpuQuota === null ? 'none' : `${p.cgroupCpuQuota} CPUs`, advice: 'no quota below the visible CPUs' });
  }
  const uv = p.uvThreadpoolSize;
  const uvNumber = uv === null ? 4 : Number(uv);
  out.push(
    uv !== null && (!Number.isInteger(uvNumber) || uvNumber < 1 || uvNumber > 1024)
      ? { check: 'UV_THREADPOOL_SIZE', level: 'warn', value: uv, advice: "libuv clamps it rather than ignoring it ('abc' and '0' give 1 thread, '-3' and '2000' give 1024, '2.5' gives 2): unset it or set a whole number from 1 to 1024" }
      : {
          check: 'UV_THREADPOOL_SIZE',
          level: 'ok',
          value: uv ?? 'unset (libuv default: 4)',
          advice:
            uvNumber < p.availableParallelism
              ? `the event-loop lab's threadpool variant can use at most ${uvNumber} threads of ${p.availableParallelism} CPUs; set UV_THREADPOOL_SIZE=${p.availableParallelism} before starting Node to use them all`
              : "libuv's threadpool (fs, crypto.pbkdf2, zlib) can use every CPU",
        },
  );
  out.push(
    p.gpus === null
      ? { check: 'GPUs', level: 'ok', value: 'nvidia-smi not found', advice: "no NVIDIA GPU here: the gpu-batching lab runs its device cases on CPU 'devices' and says so" }
      : p.gpuProblem !== null
        ? { check: 'GPUs', level: 'warn', value: p.gpuProblem, advice: "nvidia-smi is installed but gave no GPU list: run it by hand to see why (a driver that is not loaded, or hung); meanwhile the gpu-batching lab runs on CPU 'devices'" }
        : p.gpus.length === 0
          ? { check: 'GPUs', level: 'warn', value: 'nvidia-smi found no GPU', advice: 'the driver answers but lists no device: on a cluster, ask for one (Slurm: --gpus=1)' }
          : { check: 'GPUs', level: 'ok', value: p.gpus.map((g) => `${g.name}${g.memoryMiB === null ? '' : ` ${g.memoryMiB} MiB`}`).join(', '), advice: 'visible to this process (CUDA_VISIBLE_DEVICES applies)' },
  );
  out.push(...ortFindings(p));
  if (p.webgpuAdapters) out.push(webgpuFinding(p.webgpuAdapters, p.webgpuIgnored ?? []));
  out.push(...(p.labFindings ?? []));
  if (Object.keys(p.slurm).length > 0) {
    out.push({ check: 'Slurm', level: 'ok', value: `job ${p.slurm['SLURM_JOB_ID'] ?? '?'}, ${p.slurm['SLURM_CPUS_PER_TASK'] ?? '?'} CPUs per task`, advice: 'recorded in every results.json' });
  }
  return out;
}

function ortFindings(p: DoctorProbe): Finding[] {
  const o = p.ort;
  if (o === null || !o.loaded) {
    return [{ check: 'ONNX Runtime', level: 'warn', value: `not loadable${o?.error ? `: ${o.error}` : ''}`, advice: "the gpu-batching lab cannot run: run 'npm ci' (onnxruntime-node's CPU binaries are inside the package; its install script may stay disabled)" }];
  }
  const listed = o.backends.map((b) => b.name).join(', ');
  const out: Finding[] = [];
  if (o.sessions === null) {
    out.push({ check: 'ONNX Runtime', level: 'ok', value: `providers built in: ${listed}`, advice: 'no session was tried' });
    return out;
  }
  const cpu = o.sessions['cpu'];
  const cuda = o.sessions['cuda'];
  out.push(
    cpu?.ok
      ? { check: 'ONNX Runtime cpu', level: 'ok', value: `session created (providers built in: ${listed})`, advice: 'the gpu-batching lab runs on CPU' }
      : { check: 'ONNX Runtime cpu', level: 'warn', value: cpu?.error ?? 'not tried', advice: "the gpu-batching lab cannot run: reinstall with 'npm ci'" },
  );
  out.push(
    cuda?.ok
      ? { check: 'ONNX Runtime cuda', level: 'ok', value: 'session created on CUDA', advice: 'the device cases can use the GPU' }
      : {
          check: 'ONNX Runtime cuda',
          level: p.gpus !== null && p.gpus.length > 0 ? 'warn' : 'ok',
          value: `not usable: ${cuda?.error ?? 'not tried'}`,
          advice:
            p.gpus !== null && p.gpus.length > 0
              ? "a GPU is here but ONNX Runtime has no CUDA provider libraries: onnxruntime-node's install script downloads them (ONNXRUNTIME_NODE_INSTALL=cuda12 npm rebuild onnxruntime-node on a connected machine), and CUDA 12 + cuDNN 9 must be installed"
              : 'expected without a GPU: the lab uses CPU devices',
        },
  );
  const webgpu = o.sessions['webgpu'];
  if (webgpu) {
    out.push(
      webgpu.ok
        ? { check: 'ONNX Runtime webgpu', level: 'ok', value: 'session created on WebGPU as this machine is set up', advice: 'the gpu-batching lab can run on WebGPU (see the WebGPU adapters line for real or emulated)' }
        : { check: 'ONNX Runtime webgpu', level: 'ok', value: `not usable as set up: ${webgpu.error ?? 'failed'}`, advice: "expected without a GPU's Vulkan, Metal or D3D12 driver; GPU_BATCHING_EP=webgpu sets up the emulated adapter where Debian's chromium and libvulkan1 are installed" },
    );
  }
  return out;
}

/** The WebGPU adapters, each said real or emulated, and what the gpu-batching lab does with them. */
export function webgpuFinding(adapters: WebGpuAdapter[], ignored: IgnoredDriver[] = []): Finding {
  const check = 'WebGPU adapters';
  const leftOut = ignored.length ? `; ${ignored.map(describeIgnored).join('; ')}` : '';
  if (adapters.length === 0) {
    return { check, level: 'ok', value: `none found${leftOut}`, advice: "the gpu-batching lab's webgpu target needs one: your GPU's Vulkan driver (Linux), Metal (macOS) or D3D12 (Windows); for the emulated one on Debian: apt-get install chromium libvulkan1" };
  }
  const value = `${adapters.map(describeAdapter).join('; ')}${leftOut}`;
  if (adapters.some((a) => a.emulated === false)) {
    return { check, level: 'ok', value, advice: 'with no CUDA GPU, the gpu-batching lab runs on WebGPU (GPU_BATCHING_EP=auto); GPU_BATCHING_EP=cpu measures the CPU instead' };
  }
  if (adapters.every((a) => a.emulated === true)) {
    if (!adapters.some((a) => /swiftshader/i.test(a.driver))) {
      return { check, level: 'ok', value, advice: "emulated only, and Dawn refuses lavapipe: for the emulated adapter the gpu-batching lab uses, apt-get install chromium libvulkan1 (Debian's SwiftShader)" };
    }
    return { check, level: 'ok', value, advice: "emulated only: GPU_BATCHING_EP=webgpu runs the gpu-batching lab on SwiftShader (correct, but its times are not a GPU's); auto never picks it" };
  }
  return { check, level: 'ok', value, advice: 'not known to be a real GPU: auto does not pick it; GPU_BATCHING_EP=webgpu uses it, labelled adapter=unknown' };
}

/** Exit status of the doctor: non-zero only when the course cannot run. */
export function doctorFailed(findings: Finding[]): boolean {
  return findings.some((f) => f.level === 'fail');
}

export function formatFindings(findings: Finding[]): string {
  const mark: Record<Level, string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };
  const lines = findings.map((f) => `${mark[f.level]}  ${f.check.padEnd(18)} ${f.value}\n${' '.repeat(25)}${f.advice}`);
  const fails = findings.filter((f) => f.level === 'fail').length;
  const warns = findings.filter((f) => f.level === 'warn').length;
  lines.push('', fails > 0 ? `${fails} problem(s) stop the course from running: fix them first.` : warns > 0 ? `The course can run; ${warns} warning(s) above say what will be missing or what the numbers will mean.` : 'The course can run here.');
  return lines.join('\n');
}
