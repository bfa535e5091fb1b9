/**
 * The I/O + compute pipeline: while the model works on batch k, the reads of batches k+1 .. k+prefetch are already
 * in flight on libuv's threadpool. With enough prefetch the wall time approaches max(I/O time, compute time)
 * instead of their sum; the bound keeps memory in check (at most `prefetch` batches waiting).
 */
import type { SampleSource } from '@parallel-course/gpu-batching/dataset.ts';
import type { Model } from '@parallel-course/gpu-batching/session.ts';

export async function inferPipelined(model: Model, source: SampleSource, batchSize: number, prefetch: number): Promise<Float32Array> {
  if (!(prefetch >= 1)) throw new RangeError(`prefetch must be at least 1, got ${prefetch}`);
  const count = source.count;
  const out = new Float32Array(count * model.outputs);
  const starts: number[] = [];
  for (let start = 0; start < count; start += batchSize) starts.push(start);

  const reads: Promise<Float32Array>[] = []; // in batch order: the oldest is the next to compute
  let nextRead = 0;
  const startRead = () => {
    const start = starts[nextRead++] as number;
    const read = source.readBatch(start, Math.min(batchSize, count - start));
    // A read that fails while we are busy with an earlier batch must not crash the process as an unhandled
    // rejection: we still await it below, in order, and the error surfaces there.
    read.catch(() => {});
    reads.push(read);
  };
  while (nextRead < starts.length && reads.length < prefetch) startRead();

  for (const start of starts) {
    const samples = await (reads.shift() as Promise<Float32Array>);
    if (nextRead < starts.length) startRead(); // keep `prefetch` reads ahead while this batch computes
    const logits = await model.infer(samples, Math.min(batchSize, count - start));
    out.set(logits, start * model.outputs);
  }
  return out;
}
