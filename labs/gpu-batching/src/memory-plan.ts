/**
 * Memory planning, in the spirit of checking GPU memory before choosing workers: given a device's free memory, the
 * model's measured footprint and a headroom, how many processes fit on the device and with which batch size.
 * Pure functions: every number is an input, so the plan can be unit-tested on hand-computed values.
 * Units: bytes throughout.
 */
import { formatBytes } from '@parallel-course/core';
import { MODEL_SPEC } from './model-spec.ts';

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;
/** Default headroom: 2 GiB left free for the driver, other users and fragmentation (the issue asks for 2-3 GB). */
export const DEFAULT_HEADROOM_BYTES = 2 * GiB;
const MAX_BATCH = 512;

/**
 * WebGPU's limits are not readable here: onnxruntime-node 1.30 exposes no adapter (no limits, no memory). What is
 * known: SwiftShader's largest buffer is 1 GiB (maxBufferSize, read in headless chromium's navigator.gpu on this
 * course's machines), and its "device memory" is this machine's RAM. The largest buffer of a batch B is B x 2048
 * floats (the first hidden layer) or the largest weight matrix, 2048 x 1024 floats (8 MiB).
 */
export const SWIFTSHADER_MAX_BUFFER_BYTES = GiB;
const LARGEST_WIDTH = Math.max(...MODEL_SPEC.layers);
const LARGEST_WEIGHTS_BYTES = Math.max(...MODEL_SPEC.layers.slice(1).map((n, i) => n * (MODEL_SPEC.layers[i] as number))) * 4;

/** The largest power-of-two batch (<= MAX_BATCH) whose largest buffer fits under `maxBufferBytes`; 0 when the weights alone do not. */
export function largestBatchUnder(maxBufferBytes: number): number {
  if (LARGEST_WEIGHTS_BYTES > maxBufferBytes) return 0;
  let batch = 0;
  for (let b = 1; b <= MAX_BATCH; b *= 2) if (b * LARGEST_WIDTH * 4 <= maxBufferBytes) batch = b;
  return batch;
}

export interface Footprint {
  /** Per process, before any model: the runtime (CUDA context on a GPU; Node and ONNX Runtime on CPU). */
  processBytes: number;
  /** Per session: weights and the session's own buffers. */
  modelBytes: number;
  /** Per sample of a batch: activations and input/output tensors. */
  perSampleBytes: number;
}

export interface MemoryPlanOptions {
  headroomBytes?: number;
  maxBatch?: number;
  /** Most processes worth suggesting on one device (more only time-slice its compute). */
  maxProcesses: number;
}

export interface DevicePlan {
  usableBytes: number;
  /** Largest power-of-two batch (<= maxBatch) with which one process fits; 0 when nothing fits. */
  batch: number;
  /** Bytes one process needs at that batch. */
  perProcessBytes: number;
  processes: number;
  /** Why the numbers are what they are, in one sentence. */
  note: string;
}

/** Memory one process needs to run batches of `batch` samples. */
export function processBytes(footprint: Footprint, batch: number): number {
  return footprint.processBytes + footprint.modelBytes + batch * footprint.perSampleBytes;
}

export function planDevice(freeBytes: number, footprint: Footprint, options: MemoryPlanOptions): DevicePlan {
  const headroom = options.headroomBytes ?? DEFAULT_HEADROOM_BYTES;
  const maxBatch = options.maxBatch ?? MAX_BATCH;
  for (const [name, value] of Object.entries({
    freeBytes,
    headroom,
    maxBatch,
    maxProcesses: options.maxProcesses,
    processBytes: footprint.processBytes,
    modelBytes: footprint.modelBytes,
    perSampleBytes: footprint.perSampleBytes,
  })) {
    if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`memory plan: ${name} must be a non-negative number, got ${value}`);
  }
  const usable = Math.max(0, freeBytes - headroom);
  let batch = 0;
  for (let b = 1; b <= maxBatch; b *= 2) if (processBytes(footprint, b) <= usable) batch = b;
  if (batch === 0) {
    return {
      usableBytes: usable,
      batch: 0,
      perProcessBytes: processBytes(footprint, 1),
      processes: 0,
      note: `not even one process with a batch of 1 fits in ${formatBytes(usable)} (free minus ${formatBytes(headroom)} headroom)`,
    };
  }
  const perProcess = processBytes(footprint, batch);
  const processes = Math.min(options.maxProcesses, Math.floor(usable / perProcess));
  const limit = processes === options.maxProcesses ? `capped at ${options.maxProcesses}` : 'limited by memory';
  return {
    usableBytes: usable,
    batch,
    perProcessBytes: perProcess,
    processes,
    note: `batch ${batch}${batch === maxBatch ? ' (the largest swept)' : ' (limited by memory)'}, ${processes} process(es) of ${formatBytes(perProcess)} each, ${limit}`,
  };
}

