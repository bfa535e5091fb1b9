/**
 * Episode 08's inputs, shared by the page (its expected logits) and the inference worker: seeded values in [0, 1),
 * like normalised pixels, for the largest batch; smaller batches take a prefix.
 */
import { MODEL_SPEC } from '@parallel-course/gpu-batching/model-spec.ts';

export const BATCHES = [1, 4, 16, 64];
export const FEATURES = MODEL_SPEC.layers[0]!;
export const CLASSES = MODEL_SPEC.layers.at(-1)!;

export function seededInputs(): Float32Array {
  const x = new Float32Array(BATCHES.at(-1)! * FEATURES);
  let state = 0x0b5e55ed;
  for (let i = 0; i < x.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    x[i] = (state >>> 8) / 16777216;
  }
  return x;
}
