/**
 * Planning the lab's runs (the harness's plan.ts). The calibration times the reference forward pass's inner loop
 * (a dense layer in TypeScript, ns per multiply-add): it is the expected outputs' own cost, and it scales the ONNX
 * Runtime costs measured on the course machine, since a calibration runs in the harness's own process and opens
 * no session. Every case is estimated from its params (variant, batch, sessions, devices, source), as on the CPU
 * execution provider: on CUDA the same cases run faster, so a GPU run's plan errs long.
 */
import { type Calibration, type CaseEstimate, type LabContext, parallelMs, rateOf, timePerCall } from '@parallel-course/harness';
import type { Params } from '@parallel-course/core';
import { MODEL_SPEC } from './model-spec.ts';
import { SPOT_IMAGES } from './fresh-inputs.ts';

/**
 * The calibration on the course machine: the median of calibrations over ten minutes there while others used it
 * too (2026-12-03; load average 5 to 9 on its 2 vCPUs). Its forward pass took 3.9 ms a sample then (1.05 ns a MAC).
 */
export const COURSE_MACHINE_RATES = { nsPerMac: 1.3 };

/**
 * ONNX Runtime on the CPU execution provider, one thread, on the course machine, in ms: a call costs a fixed part
 * (reading the 15 MB of weights once per call) and a part per sample (a quick run there, 512 samples: one at a time
 * 0.6 ms a sample, batches of 8 78 ms, of 64 55 ms, of 512 53 ms). Reading a sample's file: 0.023 ms (read-then-infer
 * took 12 ms more than batches of 64). A session opened: 150 ms; a device process started (Node, ONNX Runtime, its
 * session): 600 ms of CPU, plus 10 ms of the parent's for each fork, and 10 ms a pass for the chunk queue's messages.
 */
export const COURSE_MACHINE_COSTS = {
  callMs: 0.5,
  sampleMs: 0.1,
  readMs: 0.023,
  sessionMs: 150,
  deviceStartMs: 600,
  forkMs: 10,
  passMs: 10,
  readerStartMs: 50,
  // A fresh pass made before each measured sample (fresh-inputs.ts: scramble, decode, rewrite the files), per image:
  // 6-16 ms per 1024 images on the course machine at a load of 6 (14 passes).
  freshImageMs: 0.012,
};

/** Check inputs' sample counts (lab.ts CHECK_SIZES: 1, 37, 300). */
const CHECK_COUNTS = [1, 37, 300];
/** Multiply-adds of one sample's forward pass (784 x 2048 + 2048 x 1024 + 1024 x 10: about 3.7 million). */
const MACS_PER_SAMPLE = MODEL_SPEC.layers.slice(1).reduce((sum, out, i) => sum + out * (MODEL_SPEC.layers[i] as number), 0);
/**
 * Sums updated per multiply-add by the expected logits' pass with its bound (tolerance.ts forwardWithBound) over the
 * calibration's one: two in the first layer (the logits and their magnitude), three in the others (and the carried
 * variance).
 */
const BOUND_WORK = MODEL_SPEC.layers.slice(1).reduce((sum, out, i) => sum + (i === 0 ? 2 : 3) * out * (MODEL_SPEC.layers[i] as number), 0) / MACS_PER_SAMPLE;
/** Chunks per device in the multi-device queue (cases.ts CHUNKS_PER_DEVICE). */
const CHUNKS_PER_DEVICE = 4;

/**
 * The calibration: ns per multiply-add of one dense layer as the expected logits' pass computes it (float64
 * accumulation over float32 weights), 1024 x 1024: 4 MiB of weights, read from memory as the model's layers are;
 * about 60 ms.
 */
export function calibrate(): Calibration {
  const inputs = 1024;
  const outputs = 1024;
  const weights = new Float32Array(inputs * outputs).map((_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
  const activation = new Float64Array(inputs).map((_, i) => (i % 13) / 13 + 0.01);
  const next = new Float64Array(outputs);
  // The expected output's loop (model-spec.ts expectedLogits), one layer.
  const layer = () => {
    next.fill(0);
    for (let i = 0; i < inputs; i++) {
      const a = activation[i] as number;
      const row = i * outputs;
      for (let o = 0; o < outputs; o++) next[o] = (next[o] as number) + a * (weights[row + o] as number);
    }
  };
  return { nsPerMac: (timePerCall(layer) * 1e6) / (inputs * outputs) };
}

function slowdown(calibration: Calibration): number {
  return rateOf(calibration, 'nsPerMac') / COURSE_MACHINE_RATES.nsPerMac;
}

/** ms to infer `count` samples in calls of `batch` on one session. */
function inferMs(count: number, batch: number, calibration: Calibration): number {
  const calls = Math.ceil(count / batch);
  return (calls * COURSE_MACHINE_COSTS.callMs + count * COURSE_MACHINE_COSTS.sampleMs) * slowdown(calibration);
}

/** ms of one pass over `count` samples by the case `variant` with `params`, on P CPUs. */
function passMs(variant: string, params: Params, count: number, p: number, calibration: Calibration): number {
  // Several processes on one device cost, as estimated here (CPU rates), what as many device processes do.
  if (variant === 'processes-per-device') return passMs('devices', { ...params, devices: Number(params.processes ?? 1) }, count, p, calibration);
  const batch = typeof params.batch === 'number' ? params.batch : 1;
  const reads = count * COURSE_MACHINE_COSTS.readMs * slowdown(calibration);
  switch (variant) {
    case 'read-then-infer':
      return inferMs(count, batch, calibration) + reads;
    case 'pipeline':
      return Math.max(inferMs(count, batch, calibration), reads);
    case 'sessions':
      return parallelMs(inferMs(count, batch, calibration), Number(params.sessions ?? 1), p);
    case 'devices': {
      // Each device takes chunks of count / (4 x devices) samples from the shared queue, in batches of at most `batch`.
      const devices = Number(params.devices ?? 1);
      const chunk = Math.max(1, Math.ceil(count / (CHUNKS_PER_DEVICE * devices)));
      const perDevice = Math.ceil(count / devices / chunk) * inferMs(chunk, batch, calibration);
      const busy = devices <= p ? perDevice : parallelMs(devices * perDevice, devices, p);
      return busy + (params.source === 'disk' ? reads / Math.min(devices, p) : 0) + COURSE_MACHINE_COSTS.passMs * slowdown(calibration);
    }
    default:
      // one-at-a-time (a call per sample) and batched.
      return inferMs(count, variant === 'one-at-a-time' ? 1 : batch, calibration);
  }
}

/** What a case's set-up starts: sessions, a reader thread, or device processes (in parallel up to P). */
function setupMs(variant: string, params: Params, p: number, calibration: Calibration): number {
  const scale = slowdown(calibration);
  if (variant === 'processes-per-device') return setupMs('devices', { ...params, devices: Number(params.processes ?? 1) }, p, calibration);
  if (variant === 'devices') {
    const devices = Number(params.devices ?? 1);
    return (parallelMs(devices * COURSE_MACHINE_COSTS.deviceStartMs, devices, p) + devices * COURSE_MACHINE_COSTS.forkMs) * scale;
  }
  const sessions = variant === 'sessions' ? Number(params.sessions ?? 1) : 1;
  const reader = params.reader === 'worker' ? COURSE_MACHINE_COSTS.readerStartMs : 0;
  return (sessions * COURSE_MACHINE_COSTS.sessionMs + reader) * scale;
}

/** A case's estimate from its variant and params, for passes of `count` samples (lab.ts DATASET_SIZE). */
export function estimateGpuCase(variant: string, params: Params, count: number, ctx: LabContext, calibration: Calibration): CaseEstimate {
  const p = ctx.availableParallelism;
  return {
    sampleMs: passMs(variant, params, count, p, calibration),
    setupMs: setupMs(variant, params, p, calibration),
    checkMs: CHECK_COUNTS.reduce((sum, n) => sum + passMs(variant, params, n, p, calibration), 0),
    // Each measured sample's fresh pass, made before it, and its check after (fresh-inputs.ts): SPOT_IMAGES images of
    // the expected logits with their bounds.
    sampleCheckMs:
      count * COURSE_MACHINE_COSTS.freshImageMs * slowdown(calibration) + (SPOT_IMAGES * MACS_PER_SAMPLE * BOUND_WORK * rateOf(calibration, 'nsPerMac')) / 1e6,
  };
}

/** The expected outputs: the TypeScript forward pass with its bounds over the check inputs and the measured pass. */
export function estimateGpuInputs(count: number, calibration: Calibration): number {
  const samples = count + CHECK_COUNTS.reduce((a, b) => a + b, 0);
  return (samples * MACS_PER_SAMPLE * BOUND_WORK * rateOf(calibration, 'nsPerMac')) / 1e6;
}
