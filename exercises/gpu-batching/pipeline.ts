/**
 * The I/O + compute pipeline: while the model works on batch k, the reads of the next batches are already in flight.
 * With enough prefetch the wall time approaches max(I/O time, compute time) instead of their sum.
 */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import type { SampleSource } from '@parallel-course/gpu-batching/dataset.ts';
import type { Model } from '@parallel-course/gpu-batching/session.ts';

export async function inferPipelined(model: Model, source: SampleSource, batchSize: number, prefetch: number): Promise<Float32Array> {
  // TODO(learner): return the outputs of every sample of `source`, in order, computed in batches of batchSize with
  // model.infer, while the reads of the next batches (source.readBatch) are already in flight. Constraints: never
  // more than `prefetch` reads started and not yet consumed (memory stays bounded; prefetch below 1 is a
  // RangeError); a read that fails while you are busy with an earlier batch must not become an unhandled rejection,
  // yet its error must still end the call when you reach that batch.
  return notImplemented(`inferPipelined in exercises/gpu-batching/pipeline.ts (read ahead ${prefetch} batches of ${source.count} samples while inferring)`);
}
