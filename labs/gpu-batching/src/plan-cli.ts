/**
 * `npm run memory-plan -w labs/gpu-batching [-- --headroom-gb 3] [--json] [--no-probe]`: the memory plan.
 * Lists the devices (GPUs from nvidia-smi, or this machine's RAM when there is none), measures the model's footprint
 * in this process (RSS before and after loading ONNX Runtime, the session, and two batch sizes), and suggests
 * processes per device and a batch size that leave the headroom free. Also says whether CUDA is really usable.
 */
import { formatBytes } from '@parallel-course/core';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { probeCuda, type CudaProbe } from './cuda-probe.ts';
import { detectGpus } from './gpus.ts';
import { DEFAULT_HEADROOM_BYTES, GiB, largestBatchUnder, MiB, planDevice, SWIFTSHADER_MAX_BUFFER_BYTES, type DevicePlan, type Footprint } from './memory-plan.ts';
import { ensureModelFile } from './model-file.ts';
import { MODEL_SPEC } from './model-spec.ts';
import { describeAdapter, recordedWebGpuAdapters } from '@parallel-course/harness';


/** Recorded before ONNX Runtime is loaded: Node alone. */
const rssAtStart = process.memoryUsage.rss();

/** Not measurable without a GPU: a CUDA context with cuBLAS/cuDNN handles typically takes 300-600 MiB; we assume 512. */
const ASSUMED_CUDA_CONTEXT_BYTES = 512 * MiB;
/** Floats alive per sample: input, each layer's output and its ReLU copy (784 + 2x2048 + 2x1024 + 10), 4 bytes each. */
const ANALYTIC_PER_SAMPLE_BYTES = (MODEL_SPEC.layers.reduce((a, b) => a + 2 * b, 0) - (MODEL_SPEC.layers[0] as number) - (MODEL_SPEC.layers.at(-1) as number)) * 4;

function usage(message: string): never {
  process.stderr.write(`${message}\nUsage: npm run memory-plan -w labs/gpu-batching -- [--headroom-gb 2..3] [--json] [--no-probe]\n`);
  process.exit(2);
}

async function measureFootprint(modelPath: string): Promise<Footprint & { measured: Record<string, number> }> {
  const { openModel } = await import('./session.ts');
  const rssRuntime = process.memoryUsage.rss();
  const model = await openModel({ modelPath, ep: 'cpu', threads: 1 });
  const rssSession = process.memoryUsage.rss();
  const small = 32;
  const large = 256;
  await model.infer(new Float32Array(small * model.features), small);
  const rssSmall = process.memoryUsage.rss();
  await model.infer(new Float32Array(large * model.features), large);
  const rssLarge = process.memoryUsage.rss();
  await model.release();
  const perSample = Math.max(ANALYTIC_PER_SAMPLE_BYTES, (rssLarge - rssSmall) / (large - small));
  return {
    processBytes: rssRuntime,
    modelBytes: Math.max(0, rssSession - rssRuntime),
    perSampleBytes: perSample,
    measured: { rssAtStart, rssRuntime, rssSession, rssSmall, rssLarge },
  };
}

interface DeviceRow {
  device: string;
  totalBytes: number;
  freeBytes: number;
  plan: DevicePlan;
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ options: { 'headroom-gb': { type: 'string' }, json: { type: 'boolean' }, 'no-probe': { type: 'boolean' } } });
  } catch (error) {
    usage((error as Error).message);
  }
  const headroomText = parsed.values['headroom-gb'];
  const headroomGb = headroomText === undefined ? DEFAULT_HEADROOM_BYTES / GiB : Number(headroomText);
  if (!Number.isFinite(headroomGb) || headroomGb < 0 || headroomGb > 1024) usage(`--headroom-gb must be a number of GiB from 0 to 1024 (2-3 is usual), got '${headroomText}'`);
  const headroomBytes = headroomGb * GiB;

  const model = ensureModelFile();
  const detection = await detectGpus();
  const footprint = await measureFootprint(model.path);
  const rows: DeviceRow[] = [];
  let cuda: CudaProbe | null = null;
  if (detection.gpus.length > 0) {
    cuda = parsed.values['no-probe'] ? null : await probeCuda(model.path, detection.gpus[0]?.index ?? 0);
    const gpuFootprint: Footprint = { ...footprint, processBytes: ASSUMED_CUDA_CONTEXT_BYTES };
    for (const gpu of detection.gpus) {
      rows.push({
        device: `gpu ${gpu.index} ${gpu.name}`,
        totalBytes: gpu.totalMiB * MiB,
        freeBytes: gpu.freeMiB * MiB,
        plan: planDevice(gpu.freeMiB * MiB, gpuFootprint, { headroomBytes, maxProcesses: 4 }),
      });
    }
  } else {
    rows.push({
      device: 'cpu (RAM)',
      totalBytes: os.totalmem(),
      freeBytes: os.freemem(),
      plan: planDevice(os.freemem(), footprint, { headroomBytes, maxProcesses: os.availableParallelism() }),
    });
  }

  // WebGPU adapters: SwiftShader plans in RAM under its buffer limit; a real one cannot be sized from here (and Dawn
  // refuses lavapipe, the other emulated one).
  const adapters = recordedWebGpuAdapters();
  const webgpu = adapters.map((a) => ({
    adapter: a,
    plan: /swiftshader/i.test(a.driver) ? planDevice(os.freemem(), footprint, { headroomBytes, maxProcesses: os.availableParallelism(), maxBatch: largestBatchUnder(SWIFTSHADER_MAX_BUFFER_BYTES) }) : null,
  }));
  if (parsed.values.json) {
    process.stdout.write(`${JSON.stringify({ model: { path: model.path, bytes: model.bytes }, gpus: detection.gpus, problems: detection.problems, cuda, footprint, headroomBytes, devices: rows, webgpu }, null, 2)}\n`);
    return;
  }
  const lines = [
    `Memory plan for the gpu-batching model (${MODEL_SPEC.layers.join('-')}, file ${formatBytes(model.bytes)})`,
    detection.gpus.length
      ? `GPUs: ${detection.gpus.length} listed by nvidia-smi. CUDA execution provider usable: ${cuda === null ? 'not probed (--no-probe)' : cuda.usable ? 'yes' : `NO (${cuda.reason})`}`
      : `GPUs: none (${detection.problems.join('; ')}). Planning CPU "devices" in RAM.`,
    `Footprint measured on CPU in this process: runtime ${formatBytes(footprint.processBytes)} per process, ` +
      `session ${formatBytes(footprint.modelBytes)}, ${formatBytes(footprint.perSampleBytes)} per sample of a batch` +
      (detection.gpus.length ? `; on a GPU the runtime is an assumed CUDA context of ${formatBytes(ASSUMED_CUDA_CONTEXT_BYTES)} (check with nvidia-smi --query-compute-apps=pid,used_memory --format=csv)` : ''),
    `Headroom left free on every device: ${formatBytes(headroomBytes)}`,
    '',
    `${'device'.padEnd(34)}${'total'.padStart(10)}${'free'.padStart(10)}${'usable'.padStart(10)}${'batch'.padStart(7)}${'processes'.padStart(11)}`,
    ...rows.map((r) =>
      `${r.device.slice(0, 33).padEnd(34)}${formatBytes(r.totalBytes).padStart(10)}${formatBytes(r.freeBytes).padStart(10)}` +
        `${formatBytes(r.plan.usableBytes).padStart(10)}${String(r.plan.batch).padStart(7)}${String(r.plan.processes).padStart(11)}`,
    ),
    '',
    ...rows.map((r) => `${r.device}: ${r.plan.note}`),
    '',
    webgpu.length ? 'WebGPU adapters (onnxruntime-node exposes no adapter limits or memory; an allocation failure halves the batch, as on CUDA):' : 'WebGPU adapters: none found.',
    ...webgpu.map(({ adapter, plan }) =>
      `  ${describeAdapter(adapter)}: ${plan ? `its memory is this machine's RAM and its largest buffer ${formatBytes(SWIFTSHADER_MAX_BUFFER_BYTES)}: ${plan.note}` : 'memory and limits not readable here: no plan; the lab halves the batch when an allocation fails'}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
