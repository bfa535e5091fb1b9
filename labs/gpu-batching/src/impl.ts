/**
 * What the learner writes (exercises/gpu-batching) and the solution (solutions/gpu-batching) provides:
 * the same four functions in three files. The lab loads them from the implementation folder of the run.
 */
import { importLearnerModule } from '@parallel-course/harness/learner.ts';
import { LEARNER_FILES } from './learner-files.ts';
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

/** Imports the implementation from `implDir` (exercises/gpu-batching or solutions/gpu-batching), checking its exports. */
export async function loadImpl(implDir: string): Promise<GpuBatchingImpl> {
  const modules = await Promise.all(LEARNER_FILES.map((learner) => importLearnerModule<Partial<GpuBatchingImpl>>(implDir, learner)));
  return Object.assign({}, ...modules) as GpuBatchingImpl;
}
