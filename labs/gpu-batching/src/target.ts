/**
 * Which execution provider the lab runs on, decided once and recorded in every case's params (`ep`, and on WebGPU
 * `adapter`: real, emulated or unknown), the run's title and the report. GPU_BATCHING_EP chooses: `cpu`, `cuda`,
 * `webgpu`, or `auto` (the default: CUDA when nvidia-smi lists a GPU, else a real WebGPU adapter, else CPU; an
 * emulated adapter is never chosen by auto). There is no silent fallback: when the chosen provider does not load,
 * every case's setup fails and says how to fix it or how to run on CPU on purpose.
 */
import { workerSweep } from '@parallel-course/harness';
import type { GpuDetection, GpuInfo } from './gpus.ts';
import type { DeviceSpec } from './device-pool.ts';
import type { ExecutionProvider } from './session.ts';
import { EMULATED_WARNING, type WebGpuAdapter } from './webgpu.ts';
import type { WebGpuChoice } from './webgpu-probe.ts';

export interface Target {
  ep: ExecutionProvider;
  gpus: GpuInfo[];
  /** One line for people: what runs and why. */
  reason: string;
  /** Set when GPU_BATCHING_EP is not understood or asks for the impossible: every case's setup throws it. */
  error: string | null;
  /** On WebGPU: the adapter, as far as the lab can tell (onnxruntime-node does not say which one Dawn took). */
  adapter?: WebGpuAdapter | null;
  /** Variables this process and its device processes need for the adapter (VK_ICD_FILENAMES for SwiftShader). */
  env?: Record<string, string>;
}

/** Finds a WebGPU adapter (webgpu-probe.ts findWebGpu); a parameter so the choice is tested without Dawn. */
export type WebGpuFinder = (mode: 'real' | 'any') => WebGpuChoice;

/** On WebGPU, what the adapter is: 'emulated' (its times are the CPU's), 'real', or 'unknown'. */
export type AdapterKind = 'real' | 'emulated' | 'unknown';

export function adapterKind(target: Target): AdapterKind | null {
  if (target.ep !== 'webgpu') return null;
  const emulated = target.adapter?.emulated;
  return emulated === true ? 'emulated' : emulated === false ? 'real' : 'unknown';
}

/** The params every case carries for its target: `ep`, and on WebGPU `adapter`, so an emulated GPU's numbers say so. */
export function targetParams(target: Target): { ep: ExecutionProvider; adapter?: AdapterKind } {
  const kind = adapterKind(target);
  return kind === null ? { ep: target.ep } : { ep: target.ep, adapter: kind };
}

/** The provider's name for titles and notes; an emulated adapter carries its warning wherever this is shown. */
export function providerLabel(target: Target): string {
  if (target.ep === 'cuda') return 'CUDA';
  if (target.ep === 'cpu') return 'CPU';
  const kind = adapterKind(target);
  return kind === 'emulated' ? `WebGPU, ${EMULATED_WARNING}` : kind === 'real' ? 'WebGPU' : 'WebGPU, adapter not known to be a real GPU';
}

function webgpuTarget(gpus: GpuInfo[], choice: WebGpuChoice, why: string): Target {
  return { ep: 'webgpu', gpus, reason: `WebGPU: ${why}: ${choice.reason}`, error: null, adapter: choice.adapter, env: choice.env };
}

export function resolveTarget(env: NodeJS.ProcessEnv, detection: GpuDetection, findWebGpu: WebGpuFinder): Target {
  const wanted = (env.GPU_BATCHING_EP ?? 'auto').trim().toLowerCase();
  const gpus = detection.gpus;
  const allowed = env.CUDA_VISIBLE_DEVICES === undefined ? '' : ` and given to this job (CUDA_VISIBLE_DEVICES=${env.CUDA_VISIBLE_DEVICES})`;
  const why = detection.problems.length ? detection.problems.join('; ') : `${gpus.length} GPU(s) listed by nvidia-smi${allowed}`;
  if (wanted === 'cpu') return { ep: 'cpu', gpus, reason: 'CPU: GPU_BATCHING_EP=cpu', error: null };
  if (wanted === 'cuda') {
    return gpus.length
      ? { ep: 'cuda', gpus, reason: `CUDA: GPU_BATCHING_EP=cuda, ${why}`, error: null }
      : { ep: 'cuda', gpus, reason: 'CUDA requested', error: `GPU_BATCHING_EP=cuda but no GPU was found (${why}); unset it to run on CPU` };
  }
  if (wanted === 'webgpu') {
    const choice = findWebGpu('any');
    return choice.usable
      ? webgpuTarget(gpus, choice, 'GPU_BATCHING_EP=webgpu')
      : { ep: 'webgpu', gpus, reason: 'WebGPU requested', error: `GPU_BATCHING_EP=webgpu but ${choice.reason}`, adapter: choice.adapter };
  }
  if (wanted !== 'auto') {
    return { ep: 'cpu', gpus, reason: 'CPU', error: `GPU_BATCHING_EP must be auto, cpu, cuda or webgpu, got '${env.GPU_BATCHING_EP}'` };
  }
  if (gpus.length) return { ep: 'cuda', gpus, reason: `CUDA: ${why} (set GPU_BATCHING_EP=cpu or webgpu to measure those instead)`, error: null };
  const real = findWebGpu('real');
  if (real.usable) return webgpuTarget(gpus, real, `no CUDA GPU (${why}), a real WebGPU adapter (set GPU_BATCHING_EP=cpu to measure the CPU instead)`);
  return { ep: 'cpu', gpus, reason: `CPU: no GPU (${why}; ${real.reason}); "devices" are CPU processes`, error: null };
}

/**
 * Why the WebGPU target runs one device: onnxruntime-node 1.30 cannot point a WebGPU session at a chosen adapter (the
 * binding forwards `deviceId` to CUDA, TensorRT and DirectML only; ONNX Runtime's own `deviceId` for WebGPU names a
 * shared Dawn context, not an adapter, and `adapterIndex` came after 1.30). The Vulkan loader's VK_ICD_FILENAMES
 * (VK_DRIVER_FILES) picks a driver, not one of two GPUs on the same driver. So one process per adapter is refused.
 */
export const WEBGPU_ONE_DEVICE =
  'one process per WebGPU adapter is not possible: onnxruntime-node 1.30 cannot choose the adapter of a WebGPU session (no adapter index reaches ' +
  'Dawn; VK_ICD_FILENAMES chooses a Vulkan driver, not one of several GPUs on it), so the WebGPU target runs one device; use CUDA for several GPUs';

/**
 * The device processes for a multi-device case: on CUDA one per GPU, each seeing only its GPU; on CPU `count`
 * processes that see no GPU, each with `threads` ONNX Runtime threads as its share of the CPU; on WebGPU one process
 * (WEBGPU_ONE_DEVICE). With `perDevice` > 1 ("processes-per-device"), that many processes share each device.
 */
export function deviceSpecs(target: Target, count: number, threads: number, perDevice = 1): DeviceSpec[] {
  if (target.ep === 'cuda' && count > target.gpus.length) {
    throw new RangeError(`${count} CUDA devices asked for, but only ${target.gpus.length} GPU(s) are listed`);
  }
  if (target.ep === 'webgpu' && count > 1) throw new RangeError(`${count} WebGPU devices asked for: ${WEBGPU_ONE_DEVICE}`);
  if (!(Number.isInteger(perDevice) && perDevice >= 1)) throw new RangeError(`processes per device must be a whole number >= 1, got ${perDevice}`);
  return Array.from({ length: count * perDevice }, (_, position) => {
    const device = Math.floor(position / perDevice);
    return {
      device: position,
      ep: target.ep,
      threads,
      visibleDevices: target.ep === 'cuda' ? String((target.gpus[device] as GpuInfo).index) : '',
    };
  });
}

/**
 * The device counts the lab sweeps, by the harness's rule (every count to 4, powers of two, the top): up to the GPUs
 * present on CUDA; one on WebGPU (WEBGPU_ONE_DEVICE); on CPU, up to P / threads per session "devices" (processes),
 * so the processes never ask for more CPUs than the job may use.
 */
export function deviceCounts(target: Target, availableParallelism: number, threadsPerSession = 1): number[] {
  if (target.ep === 'cuda') return workerSweep(Math.max(1, target.gpus.length));
  if (target.ep === 'webgpu') return [1];
  return workerSweep(Math.max(1, Math.floor(availableParallelism / threadsPerSession)));
}

/** Most processes sharing one device in the processes-per-device sweep (the claim is "1.5-3x from several models per GPU"). */
const MAX_PROCESSES_PER_DEVICE = 4;

/**
 * Processes on one device: 1, 2, 4, capped by the CPUs the job may use (each process drives its device from one CPU
 * thread; on CPU it is also the compute, so there it is the devices case again, said in the case's description).
 */
export function processesPerDevice(availableParallelism: number, threadsPerSession = 1): number[] {
  return workerSweep(Math.max(1, Math.min(MAX_PROCESSES_PER_DEVICE, Math.floor(availableParallelism / threadsPerSession))));
}
