/**
 * What the learner writes (exercises/gpu-batching) and the reference solution (solutions/gpu-batching) provides:
 * the same four functions in three files. The lab loads them from the implementation folder of the run.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SampleSource } from './dataset.ts';
import type { Model } from './session.ts';

/** A contiguous range of samples: [start, start + count). */
export interface SampleRange {
  start: number;
  count: number;
}

export interface GpuBatchingImpl {
  /** batching.ts: all `count` samples through `model` in batches of at most `batchSize`; outputs in input order. */
  inferInBatches(model: Model, samples: Float32Array, count: number, batchSize: number): Promise<Float32Array>;
  /** batching.ts: the same, with the batches shared among several sessions running at once. */
  inferWithSessions(models: readonly Model[], samples: Float32Array, count: number, batchSize: number): Promise<Float32Array>;
  /** pipeline.ts: read batches from `source` with at most `prefetch` reads ahead, overlapping inference. */
  inferPipelined(model: Model, source: SampleSource, batchSize: number, prefetch: number): Promise<Float32Array>;
  /** chunks.ts: split [0, total) into at most `parts` contiguous ranges of ceil(total / parts) samples. */
  chunkRanges(total: number, parts: number): SampleRange[];
}

export const IMPL_FILES = ['batching.ts', 'pipeline.ts', 'chunks.ts'] as const;

/** Imports the implementation from `implDir` (exercises/gpu-batching or solutions/gpu-batching). */
export async function loadImpl(implDir: string): Promise<GpuBatchingImpl> {
  const modules = await Promise.all(IMPL_FILES.map((file) => import(pathToFileURL(path.join(implDir, file)).href)));
  const impl = Object.assign({}, ...modules) as Partial<GpuBatchingImpl>;
  for (const name of ['inferInBatches', 'inferWithSessions', 'inferPipelined', 'chunkRanges'] as const) {
    if (typeof impl[name] !== 'function') {
      throw new Error(`${path.basename(implDir)} must export a function ${name} (see labs/gpu-batching/src/impl.ts)`);
    }
  }
  return impl as GpuBatchingImpl;
}
