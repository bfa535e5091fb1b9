/**
 * Batching: many samples per call to the model. Each call pays a fixed cost (crossing into native code, scheduling,
 * reading every weight from memory); a batch pays it once for all its samples.
 * Check your work with:   npm run lab -- gpu-batching
 * The episode (episodes/08-gpu-batching.mdx) explains each technique; the harness tells you which ones pass.
 */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import type { Model } from '@parallel-course/gpu-batching/session.ts';

/** All `count` samples through `model` in batches of at most `batchSize`, outputs in input order. */
export async function inferInBatches(model: Model, samples: Float32Array, count: number, batchSize: number): Promise<Float32Array> {
  const out = new Float32Array(count * model.outputs);
  // TODO(learner): run the samples through model.infer in calls of at most batchSize samples (the last call may be
  // shorter), and put each call's outputs in `out` at its samples' position; then return out. Sample s is
  // model.features floats of `samples` from s x model.features; its outputs are model.outputs floats. A batch's
  // samples are already contiguous: do not copy them.
  return notImplemented(`inferInBatches in exercises/gpu-batching/batching.ts (run ${count} samples in batches)`);
}

/**
 * Several sessions on one device at once (the counterpart of CUDA streams): each pulls the next batch until none is left.
 */
export async function inferWithSessions(models: readonly Model[], samples: Float32Array, count: number, batchSize: number): Promise<Float32Array> {
  // TODO(learner): the sessions run at once; each takes the next batch that no session has taken yet, runs it, and
  // comes back for more until none is left, so a faster session takes more batches. Outputs go by position, as in
  // inferInBatches. Constraint: the sessions take turns at every await, and still no batch may run twice or be
  // skipped. Resolve when every batch is done.
  return notImplemented(`inferWithSessions in exercises/gpu-batching/batching.ts (share ${count} samples among ${models.length} sessions)`);
}
