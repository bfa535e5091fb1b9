/**
 * The cases of the lab: how each variant is set up (sessions and device processes, never timed), what one sample
 * runs (a pass over the whole data set) and what it records besides time (per-call latency, read and compute time,
 * per-device busy time). One sample of every case turns the same data set into the same logits, in order.
 */
import type { CaseDefinition, CaseInstance, LabContext } from '@parallel-course/harness';
import type { RawObservation } from '@parallel-course/core';
import { createFileSource, startReaderThread, type Dataset, type ReaderKind, type TimedSource } from './dataset.ts';
import { describeEvent, startDevicePool, type DeviceStats } from './device-pool.ts';
import { loadImpl } from './impl.ts';
import { judgeBatchingEvidence, recordBatching } from './batching-property.ts';
import type { DeviceDataSource } from './device-protocol.ts';
import { ensureModelFile } from './model-file.ts';
import { outputFeatures } from './model-spec.ts';
import { openModel, type Model } from './session.ts';
import { measureTransferMs } from './transfer.ts';
import { deviceSpecs, targetParams, type Target } from './target.ts';

/** One sample's input: the data set on disk and the same samples already decoded in memory. */
export interface InferenceInput {
  dataset: Dataset;
  samples: Float32Array;
}

/**
 * ONNX Runtime intra-op threads per session (and per CPU "device" process): one, so a session is one CPU's worth
 * of work and the sessions and devices variants show what more sessions or processes add.
 */
export const THREADS_PER_SESSION = 1;
/** Chunks per device in the multi-device queue: enough to balance and to retry a small piece, few enough to be cheap. */
export const CHUNKS_PER_DEVICE = 4;

type Case = CaseDefinition<InferenceInput, Float32Array>;
type Instance = CaseInstance<InferenceInput, Float32Array>;

function latency(samples: number[], what: string): RawObservation {
  return { unit: 'ms', description: `latency of one inference call (${what})`, samples: [...samples] };
}

async function openSessions(target: Target, count: number): Promise<Model[]> {
  if (target.error) throw new Error(target.error);
  const model = ensureModelFile();
  const models: Model[] = [];
  try {
    for (let i = 0; i < count; i++) models.push(await openModel({ modelPath: model.path, ep: target.ep, threads: THREADS_PER_SESSION }));
  } catch (error) {
    for (const m of models) await m.release();
    throw error;
  }
  return models;
}

/** Calls `model.infer` once per sample: the baseline every speedup is relative to. Lab code, not the learner's. */
export function oneAtATimeCase(target: Target): Case {
  return {
    variant: 'one-at-a-time',
    params: { ...targetParams(target) },
    async setup(): Promise<Instance> {
      const [model] = (await openSessions(target, 1)) as [Model];
      return {
        async run({ dataset, samples }) {
          const out = new Float32Array(dataset.count * model.outputs);
          for (let i = 0; i < dataset.count; i++) {
            out.set(await model.infer(samples.subarray(i * model.features, (i + 1) * model.features), 1), i * model.outputs);
          }
          return out;
        },
        resetObservations: () => model.resetStats(),
        collectObservations: () => ({ 'call latency': latency(model.latenciesMs, 'batch of 1') }),
        teardown: () => model.release(),
      };
    },
  };
}

export function batchedCase(target: Target, batch: number): Case {
  return {
    variant: 'batched',
    params: { ...targetParams(target), batch },
    judgeProperty: (evidence) => judgeBatchingEvidence(evidence, batch),
    async setup(ctx: LabContext): Promise<Instance> {
      const impl = await loadImpl(ctx.implDir);
      const [model] = (await openSessions(target, 1)) as [Model];
      // On a GPU provider, the transfer of a batch and its logits, measured apart from compute (transfer.ts), in setup.
      const transferMs = target.ep === 'cpu' ? [] : await measureTransferMs(target.ep, batch);
      return {
        run: ({ dataset, samples }) => impl.inferInBatches(model, samples, dataset.count, batch),
        // Batching is the variant's purpose: calls of batchSize, no copies (batching-property.ts), judged from this
        // record by judgeProperty in the judge's process; reset the stats after.
        async propertyEvidence() {
          const calls = await recordBatching(impl.inferInBatches, model, batch);
          model.resetStats();
          return calls;
        },
        resetObservations: () => model.resetStats(),
        collectObservations: () => ({
          'call latency': latency(model.latenciesMs, `batch of ${batch}`),
          ...(transferMs.length
            ? {
                'transfer-only call': {
                  unit: 'ms',
                  description: `a call that uploads a batch of ${batch} inputs and reads ${batch} x ${model.outputs} outputs back through a stand-in model with 0.2% of the compute (transfer.ts), in setup: transfer and call cost without the model's compute`,
                  samples: [...transferMs],
                },
              }
            : {}),
        }),
        teardown: () => model.release(),
      };
    },
  };
}

/**
 * Read a batch from disk, then infer it, then read the next: no overlap. Its read and compute times are the
 * "pure I/O" and "pure compute" times the pipeline is judged against. Lab code, not the learner's.
 */
export function sequentialCase(target: Target, batch: number, reader: ReaderKind): Case {
  return {
    variant: 'read-then-infer',
    params: { ...targetParams(target), batch, reader },
    async setup(): Promise<Instance> {
      const [model] = (await openSessions(target, 1)) as [Model];
      const readers = openReader(reader);
      const readMs: number[] = [];
      const computeMs: number[] = [];
      return {
        async run({ dataset }) {
          const source = readers.source(dataset);
          model.busyMs = 0;
          const out = new Float32Array(dataset.count * model.outputs);
          for (let start = 0; start < dataset.count; start += batch) {
            const n = Math.min(batch, dataset.count - start);
            out.set(await model.infer(await source.readBatch(start, n), n), start * model.outputs);
          }
          readMs.push(source.readMs);
          computeMs.push(model.busyMs);
          return out;
        },
        resetObservations() {
          model.resetStats();
          readMs.length = 0;
          computeMs.length = 0;
        },
        collectObservations: () => ({
          'read ms': { unit: 'ms', description: 'time reading and decoding the files of one pass, no inference running (pure I/O)', samples: [...readMs] },
          'compute ms': { unit: 'ms', description: 'time inside inference calls in one pass, no reads running (pure compute)', samples: [...computeMs] },
          'call latency': latency(model.latenciesMs, `batch of ${batch}`),
        }),
        async teardown() {
          await model.release();
          await readers.close();
        },
      };
    },
  };
}

/** Sources for one case: a reader thread started in setup, or fs.promises on the threadpool (nothing to start). */
function openReader(kind: ReaderKind): { source(dataset: Dataset): TimedSource; close(): Promise<void> } {
  return kind === 'worker' ? startReaderThread() : { source: createFileSource, close: async () => {} };
}

export function pipelineCase(target: Target, batch: number, prefetch: number, reader: ReaderKind): Case {
  return {
    variant: 'pipeline',
    params: { ...targetParams(target), batch, prefetch, reader },
    async setup(ctx: LabContext): Promise<Instance> {
      const impl = await loadImpl(ctx.implDir);
      const [model] = (await openSessions(target, 1)) as [Model];
      const readers = openReader(reader);
      const computeMs: number[] = [];
      return {
        async run({ dataset }) {
          model.busyMs = 0;
          const out = await impl.inferPipelined(model, readers.source(dataset), batch, prefetch);
          computeMs.push(model.busyMs);
          return out;
        },
        resetObservations() {
          model.resetStats();
          computeMs.length = 0;
        },
        collectObservations: () => ({
          'compute ms': { unit: 'ms', description: 'time inside inference calls in one pass, while reads run alongside', samples: [...computeMs] },
          'call latency': latency(model.latenciesMs, `batch of ${batch}`),
        }),
        async teardown() {
          await model.release();
          await readers.close();
        },
      };
    },
  };
}

export function sessionsCase(target: Target, batch: number, sessions: number): Case {
  return {
    variant: 'sessions',
    params: { ...targetParams(target), batch, sessions },
    async setup(ctx: LabContext): Promise<Instance> {
      const impl = await loadImpl(ctx.implDir);
      const models = await openSessions(target, sessions);
      return {
        run: ({ dataset, samples }) => impl.inferWithSessions(models, samples, dataset.count, batch),
        resetObservations: () => models.forEach((m) => m.resetStats()),
        collectObservations: () => ({ 'call latency': latency(models.flatMap((m) => m.latenciesMs), `batch of ${batch}, ${sessions} sessions at once`) }),
        async teardown() {
          for (const m of models) await m.release();
        },
      };
    },
  };
}

/** Busy fraction of each device in one pass: its inference time over the pass's wall time. */
function busyFractions(devices: DeviceStats[], wallMs: number): number[] {
  return devices.map((d) => d.busyMs / wallMs);
}

/**
 * One process per device (`devices`), or several processes sharing one device (`processes-per-device`: `sharing`
 * processes on device 0, the sweep's 1 included): the case behind "1.5-3x from several models per GPU", measured where it could hold.
 */
export function devicesCase(target: Target, batch: number, devices: number, prefetch: number, source: DeviceDataSource, sharing?: number): Case {
  const shared = sharing !== undefined;
  const processes = sharing ?? devices;
  return {
    variant: shared ? 'processes-per-device' : 'devices',
    params: shared ? { ...targetParams(target), batch, processes, source } : { ...targetParams(target), batch, devices, source },
    // The harness computes efficiency (with its interval) against the one-process case reading the same way.
    workers: processes,
    async setup(ctx: LabContext): Promise<Instance> {
      if (target.error) throw new Error(target.error);
      const impl = await loadImpl(ctx.implDir);
      const model = ensureModelFile();
      const pool = await startDevicePool({
        devices: shared ? deviceSpecs(target, 1, THREADS_PER_SESSION, processes) : deviceSpecs(target, devices, THREADS_PER_SESSION),
        modelPath: model.path,
        implDir: ctx.implDir,
        // Failures are said as they happen (progress per device is left to the harness's bar and to devices-cli.ts).
        onEvent: (event) => {
          if (event.type !== 'progress') process.stderr.write(`${shared ? `processes=${processes} on one device` : `devices=${devices}`} (${target.ep}): ${describeEvent(event)}\n`);
        },
      });
      const who = (position: string) => (shared ? `process ${position} of ${processes} on one ${target.ep} device` : `device ${position} (${target.ep})`);
      const perDevice: Record<number, { samples: number[]; busy: number[]; residentMiB: number[] }> = {};
      const latencies: number[] = [];
      let retries = 0;
      return {
        // Data in memory means in the device processes' memory before the pass starts: each sample's fresh pass is
        // loaded by a one-sample chunk per process before the clock starts (device-main.ts keeps the latest folder).
        ...(source === 'memory'
          ? {
              async beforeSample({ dataset }: InferenceInput) {
                const ranges = Array.from({ length: processes }, () => ({ start: 0, count: 1 }));
                await pool.run({ source, dir: dataset.dir, datasetCount: dataset.count, ranges, outputs: outputFeatures(), batch, prefetch });
              },
            }
          : {}),
        async run({ dataset }) {
          const ranges = impl.chunkRanges(dataset.count, processes * CHUNKS_PER_DEVICE);
          const result = await pool.run({ source, dir: dataset.dir, datasetCount: dataset.count, ranges, outputs: outputFeatures(), batch, prefetch });
          const busy = busyFractions(result.devices, result.wallMs);
          for (const [i, d] of result.devices.entries()) {
            const slot = (perDevice[d.device] ??= { samples: [], busy: [], residentMiB: [] });
            slot.samples.push(d.samples);
            if (d.rssBytes > 0) slot.residentMiB.push(d.rssBytes / (1024 * 1024));
            slot.busy.push(busy[i] as number);
            latencies.push(...d.latenciesMs);
          }
          retries += result.retries;
          return result.logits;
        },
        resetObservations() {
          for (const key of Object.keys(perDevice)) delete perDevice[Number(key)];
          latencies.length = 0;
          retries = 0;
        },
        collectObservations() {
          const observations: Record<string, RawObservation> = { 'call latency': latency(latencies, `batch of ${batch}, in the device processes`) };
          for (const [device, slot] of Object.entries(perDevice)) {
            observations[`device ${device} busy fraction`] = {
              unit: 'ratio',
              description: `${who(device)}: time inside inference / wall time of the pass (1 = never idle)`,
              samples: slot.busy,
            };
            observations[`device ${device} samples`] = {
              unit: 'samples',
              description: `samples ${who(device)} processed per pass (the shared queue balances them)`,
              samples: slot.samples,
            };
            // The memory plan's "runtime + model + batch x per sample" as one process really held it (host memory).
            if (slot.residentMiB.length) {
              observations[`device ${device} resident MiB`] = {
                unit: 'MiB',
                description: `resident memory of ${who(device)} after a pass: runtime, session and buffers at this batch (host memory, not GPU memory)`,
                samples: slot.residentMiB,
              };
            }
          }
          observations['chunk retries'] = { unit: 'chunks', description: 'chunks retried during the measured passes (should be 0)', samples: [retries] };
          return observations;
        },
        teardown: () => pool.close(),
      };
    },
  };
}
