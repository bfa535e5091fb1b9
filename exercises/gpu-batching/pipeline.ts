/**
 * The I/O + compute pipeline: while the model works on batch k, the reads of the next batches are already in flight.
 * With enough prefetch the wall time approaches max(I/O time, compute time) instead of their sum.
 */
import { notImplemented } from '@parallel-course/harness/lab-definition.ts';
import type { SampleSource } from '@parallel-course/gpu-batching/dataset.ts';
import type { Model } from '@parallel-course/gpu-batching/session.ts';

export async function inferPipelined(model: Model, source: SampleSource, batchSize: number, prefetch: number): Promise<Float32Array> {
  // TODO(learner):
  //  1. list the batch starts 0, batchSize, ... below source.count;
  //  2. start the first `prefetch` reads: source.readBatch(start, n) returns a promise; keep them in an array, in order,
  //     and attach `.catch(() => {})` to each so a failure while you are busy is not an unhandled rejection;
  //  3. for each batch in order: await the oldest read, start the next read (if any) so `prefetch` stay in flight,
  //     then `await model.infer(samples, n)` and write the logits at start * model.outputs.
  return notImplemented(`inferPipelined in exercises/gpu-batching/pipeline.ts (read ahead ${prefetch} batches of ${source.count} samples while inferring)`);
}
