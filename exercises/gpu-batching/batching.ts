/**
 * Batching: many samples per call to the model. Each call pays a fixed cost (crossing into native code, scheduling,
 * reading every weight from memory); a batch pays it once for all its samples.
 * Check your work with:   npm run lab -- gpu-batching
 * The episode (episodes/08-gpu-batching.mdx) explains each technique; the harness tells you which ones pass.
 */
import { notImplemented } from '@parallel-course/harness/lab-definition.ts';
import type { Model } from '@parallel-course/gpu-batching/session.ts';

/** All `count` samples through `model` in batches of at most `batchSize`, outputs in input order. */
export async function inferInBatches(model: Model, samples: Float32Array, count: number, batchSize: number): Promise<Float32Array> {
  const out = new Float32Array(count * model.outputs);
  // TODO(learner): for start = 0, batchSize, 2 x batchSize ... below count:
  //   n = the samples in this batch (the last one may be short),
  //   logits = await model.infer(samples.subarray(start * model.features, (start + n) * model.features), n),
  //   out.set(logits, start * model.outputs).
  // Then return out.
  return notImplemented(`inferInBatches in exercises/gpu-batching/batching.ts (run ${count} samples in batches)`);
}

/**
 * Several sessions on one device at once (the counterpart of CUDA streams): each pulls the next batch until none is left.
 */
export async function inferWithSessions(models: readonly Model[], samples: Float32Array, count: number, batchSize: number): Promise<Float32Array> {
  // TODO(learner): keep one shared counter `next` of the first sample not yet taken. Start one async loop per model
  // (models.map(async (model) => { ... })) that, while next < count, claims a batch (start = next; next += n) BEFORE
  // awaiting model.infer on it, and writes the logits at start * model.outputs. Await all loops with Promise.all.
  return notImplemented(`inferWithSessions in exercises/gpu-batching/batching.ts (share ${count} samples among ${models.length} sessions)`);
}
