/**
 * Batching: many samples per call to the model. Each call pays a fixed cost (crossing into native code, scheduling,
 * reading every weight from memory); a batch pays it once for all its samples.
 * Check with:   npm run lab -- gpu-batching --impl solution
 */
import type { Model } from '@parallel-course/gpu-batching/session.ts';

/**
 * All `count` samples through `model` in batches of at most `batchSize`, outputs in input order.
 *
 * Design task (episode 08, "the batch size for a latency budget": call p99 under 5 ms at the highest throughput):
 * the lab sweeps `batchSize`; in the batch table of a run, cross out every size whose call p99 is over the budget and
 * ship the one with the highest throughput among the rest. Every sample waits for its whole batch, so past the knee
 * latency grows with the batch while throughput hardly moves. With no budget: the knee or past it, up to where
 * throughput is level within the intervals. The answer is the machine's (a GPU's is far larger), never a constant.
 */
export async function inferInBatches(model: Model, samples: Float32Array, count: number, batchSize: number): Promise<Float32Array> {
  const out = new Float32Array(count * model.outputs);
  for (let start = 0; start < count; start += batchSize) {
    const n = Math.min(batchSize, count - start);
    // subarray is a view, not a copy: the batch's samples are already contiguous.
    const logits = await model.infer(samples.subarray(start * model.features, (start + n) * model.features), n);
    out.set(logits, start * model.outputs);
  }
  return out;
}

/**
 * Several sessions on one device at once (the counterpart of CUDA streams): every session pulls the next batch from
 * a shared counter until none is left, so a faster session simply takes more batches. Outputs go by position.
 */
export async function inferWithSessions(models: readonly Model[], samples: Float32Array, count: number, batchSize: number): Promise<Float32Array> {
  const first = models[0];
  if (!first) throw new RangeError('inferWithSessions needs at least one session');
  const out = new Float32Array(count * first.outputs);
  let next = 0;
  await Promise.all(
    models.map(async (model) => {
      while (next < count) {
        const start = next;
        const n = Math.min(batchSize, count - start);
        next += n; // claimed before the await, so no other session takes the same batch
        const logits = await model.infer(samples.subarray(start * model.features, (start + n) * model.features), n);
        out.set(logits, start * model.outputs);
      }
    }),
  );
  return out;
}
