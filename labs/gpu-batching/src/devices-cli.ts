/**
 * `npm run devices -w labs/gpu-batching -- [--devices N] [--samples N] [--batch N] [--impl solution|exercise]`
 * The multi-device run on its own, outside the harness, with progress per device: one process per GPU (CUDA) or per
 * CPU "device", the data set split into a shared queue of chunks, outputs checked against one in-process session.
 * This is what scripts/gpu-node.sh runs on a GPU node. GPU_BATCHING_EP=cpu|cuda|auto chooses as in the lab.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatFixed, formatScientific, formatSeconds, formatThroughput, formatTime } from '@parallel-course/core';
import { ROOT_DIR, withinTolerance } from '@parallel-course/harness';
import { CHUNKS_PER_DEVICE, THREADS_PER_SESSION } from './cases.ts';
import { ensureDataset, loadAllSync } from './dataset.ts';
import { describeEvent, startDevicePool, type PoolEvent } from './device-pool.ts';
import { detectGpus } from './gpus.ts';
import { loadImpl } from './impl.ts';
import { TOLERANCE, WORK_BATCH } from './lab.ts';
import { ensureModelFile } from './model-file.ts';
import { outputFeatures } from './model-spec.ts';
import { openModel } from './session.ts';
import { deviceSpecs, providerLabel, resolveTarget } from './target.ts';
import { findWebGpu } from './webgpu-probe.ts';

function usage(message: string): never {
  process.stderr.write(`${message}\nUsage: npm run devices -w labs/gpu-batching -- [--devices N] [--samples N] [--batch N] [--impl solution|exercise]\n`);
  process.exit(2);
}

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) usage(`--${name} must be a whole number from 1 to 1000000, got '${text}'`);
  return n;
}

let args;
try {
  args = parseArgs({ options: { devices: { type: 'string' }, samples: { type: 'string' }, batch: { type: 'string' }, impl: { type: 'string' } } });
} catch (error) {
  usage((error as Error).message);
}
const target = resolveTarget(process.env, await detectGpus(), (mode) => findWebGpu(mode));
for (const [name, value] of Object.entries(target.env ?? {})) process.env[name] ??= value;
if (target.error) usage(target.error);
const implName = args.values.impl ?? 'solution';
if (implName !== 'solution' && implName !== 'exercise') usage(`--impl must be solution or exercise, got '${implName}'`);
const implDir = path.join(ROOT_DIR, implName === 'solution' ? 'solutions' : 'exercises', 'gpu-batching');
const devices = positiveInt('devices', args.values.devices, target.ep === 'cuda' ? target.gpus.length : target.ep === 'webgpu' ? 1 : Math.min(2, os.availableParallelism()));
const count = positiveInt('samples', args.values.samples, 4096);
const batch = positiveInt('batch', args.values.batch, WORK_BATCH);
const label = providerLabel(target);
const say = (line: string) => process.stdout.write(`${line}\n`);

say(`Execution provider: ${label} (${target.reason})`);
const model = ensureModelFile();
const dataset = ensureDataset(20261202, count);
const impl = await loadImpl(implDir);

// Progress per device: redrawn in place on a terminal, one line per finished chunk otherwise.
const done = new Map<number, { done: number; assigned: number }>();
const tty = process.stdout.isTTY;
function onEvent(event: PoolEvent): void {
  if (event.type === 'progress') {
    done.set(event.device, { done: event.samplesDone, assigned: event.samplesAssigned });
    const parts = [...done.entries()].sort(([a], [b]) => a - b).map(([d, p]) => `device ${d}: ${p.done}/${p.assigned}`);
    const line = `  ${parts.join(' | ')} | total ${event.totalDone}/${event.total} (${Math.round((100 * event.totalDone) / event.total)}%)`;
    if (tty) process.stdout.write(`\r${line}`);
    else say(line);
    if (tty && event.totalDone === event.total) process.stdout.write('\n');
  } else {
    say(`${tty ? '\n' : ''}  ${describeEvent(event)}`);
  }
}

const t0 = performance.now();
let pool;
try {
  pool = await startDevicePool({ devices: deviceSpecs(target, devices, THREADS_PER_SESSION), modelPath: model.path, implDir, onEvent });
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
say(`Started ${devices} ${label} device process(es) in ${formatSeconds(performance.now() - t0)}: ` +
  pool.devices.map((d) => `device ${d.device} pid ${d.pid} CUDA_VISIBLE_DEVICES='${d.visibleDevices ?? ''}'`).join(', '));
let failed = false;
try {
  const result = await pool.run({
    dir: dataset.dir,
    datasetCount: count,
    ranges: impl.chunkRanges(count, devices * CHUNKS_PER_DEVICE),
    outputs: outputFeatures(),
    batch,
    prefetch: 4,
  });
  say(`${count} samples in ${formatTime(result.wallMs)}: ${formatThroughput({ amount: count, unit: 'samples' }, result.wallMs)} on ${devices} ${label} device(s), ${result.retries} chunk(s) retried`);
  for (const d of result.devices) {
    say(`  device ${d.device} (${d.ep}, pid ${d.pid}): ${d.samples} samples in ${d.chunks} chunks, busy ${formatFixed(d.busyMs / result.wallMs, 2)} of the wall time`);
  }
  // The check: one in-process session on the same execution provider, same samples, same order.
  const single = await openModel({ modelPath: model.path, ep: target.ep, threads: THREADS_PER_SESSION });
  const expected = await impl.inferInBatches(single, loadAllSync(dataset), count, batch);
  await single.release();
  const comparison = withinTolerance(TOLERANCE).compare(expected, result.logits);
  say(comparison.equal
    ? `Check: equal to a single in-process session, in order (max abs error ${comparison.maxAbsError === null ? 'n/a' : formatScientific(comparison.maxAbsError)})`
    : `Check FAILED at output ${comparison.firstMismatch?.index}: expected ${comparison.firstMismatch?.expected}, got ${comparison.firstMismatch?.actual}`);
  failed = !comparison.equal;
} catch (error) {
  say(`Failed: ${(error as Error).message}`);
  failed = true;
} finally {
  await pool.close();
}
process.exitCode = failed ? 1 : 0;
