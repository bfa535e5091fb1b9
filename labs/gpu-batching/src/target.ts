/**
 * Which execution provider the lab runs on, decided once and recorded in every case's params (`ep`), the run's
 * title and the report. GPU_BATCHING_EP chooses: `cpu`, `cuda`, or `auto` (the default: CUDA when nvidia-smi lists
 * a GPU, else CPU). There is no silent fallback: when CUDA is chosen and its provider does not load, setup fails and
 * says how to fix it or how to run on CPU on purpose.
 */
import { workerSweep } from '@parallel-course/harness/sweep.ts';
import type { GpuDetection, GpuInfo } from './gpus.ts';
import type { DeviceSpec } from './device-pool.ts';
import type { ExecutionProvider } from './session.ts';

export interface Target {
  ep: ExecutionProvider;
  gpus: GpuInfo[];
  /** One line for people: what runs and why. */
  reason: string;
  /** Set when GPU_BATCHING_EP is not understood or asks for the impossible: every case's setup throws it. */
  error: string | null;
}

export function resolveTarget(env: NodeJS.ProcessEnv, detection: GpuDetection): Target {
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
  if (wanted !== 'auto') {
    return { ep: 'cpu', gpus, reason: 'CPU', error: `GPU_BATCHING_EP must be auto, cpu or cuda, got '${env.GPU_BATCHING_EP}'` };
  }
  return gpus.length
    ? { ep: 'cuda', gpus, reason: `CUDA: ${why} (set GPU_BATCHING_EP=cpu to measure the CPU instead)`, error: null }
    : { ep: 'cpu', gpus, reason: `CPU: no GPU (${why}); "devices" are CPU processes`, error: null };
}

/**
 * The device processes for a multi-device case: on CUDA one per GPU, each seeing only its GPU; on CPU `count`
 * processes that see no GPU, each with `threads` ONNX Runtime threads as its share of the CPU.
 */
export function deviceSpecs(target: Target, count: number, threads: number): DeviceSpec[] {
  if (target.ep === 'cuda' && count > target.gpus.length) {
    throw new RangeError(`${count} CUDA devices asked for, but only ${target.gpus.length} GPU(s) are listed`);
  }
  return Array.from({ length: count }, (_, device) => ({
    device,
    ep: target.ep,
    threads,
    visibleDevices: target.ep === 'cuda' ? String((target.gpus[device] as GpuInfo).index) : '',
  }));
}

/**
 * The device counts the lab sweeps, by the harness's rule (every count to 4, powers of two, the top): up to the GPUs
 * present on CUDA; on CPU, up to P / threads per session "devices" (processes), so the processes never ask for more
 * CPUs than the job may use.
 */
export function deviceCounts(target: Target, availableParallelism: number, threadsPerSession = 1): number[] {
  if (target.ep === 'cuda') return workerSweep(Math.max(1, target.gpus.length));
  return workerSweep(Math.max(1, Math.floor(availableParallelism / threadsPerSession)));
}
