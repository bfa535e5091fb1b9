/**
 * The lab's model: a multilayer perceptron for 28 x 28 "images" (784 features) -> 2048 -> 1024 -> 10 logits, ReLU
 * between layers. Its weights come from a seeded generator, so the model is the same bytes on every machine, and
 * `expectedLogits` is the plain-JS definition of a correct answer that every variant is checked against.
 *
 * Size on purpose: about 3.7 million weights (14.8 MB of float32), so one sample is a matrix-vector product that reads
 * every weight once (about 3.7 M multiply-adds), while a batch of B samples reads each weight once for B samples.
 * That reuse, and paying the per-call overhead once per batch, is what batching buys.
 */
import { createRng } from '@parallel-course/core';

export interface ModelSpec {
  /** Layer widths from input to output, e.g. [784, 512, 256, 10]. */
  layers: readonly number[];
  /** Seed of the weight generator. */
  seed: number;
}

export const MODEL_SPEC: ModelSpec = { layers: [784, 2048, 1024, 10], seed: 1202 };

export const INPUT_NAME = 'input';
export const OUTPUT_NAME = 'logits';

/** One dense layer: `weights` is row-major [in, out] (the layout ONNX Gemm takes without a transpose), `bias` is [out]. */
export interface DenseLayer {
  inputs: number;
  outputs: number;
  weights: Float32Array;
  bias: Float32Array;
}

export function inputFeatures(spec: ModelSpec = MODEL_SPEC): number {
  return spec.layers[0] as number;
}

export function outputFeatures(spec: ModelSpec = MODEL_SPEC): number {
  return spec.layers[spec.layers.length - 1] as number;
}

/**
 * The weights, deterministic from `spec.seed`: uniform in [-limit, limit] with limit = sqrt(6 / (in + out))
 * (Glorot/Xavier uniform initialisation), biases uniform in [-0.1, 0.1]. Only exact IEEE operations are used
 * (integer-derived uniforms, one correctly rounded sqrt per layer), so every machine gets the same bits.
 */
export function buildLayers(spec: ModelSpec = MODEL_SPEC): DenseLayer[] {
  if (spec.layers.length < 2 || spec.layers.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new RangeError(`model layers must be at least two positive integers, got [${spec.layers.join(', ')}]`);
  }
  const rng = createRng(spec.seed);
  const layers: DenseLayer[] = [];
  for (let l = 0; l + 1 < spec.layers.length; l++) {
    const inputs = spec.layers[l] as number;
    const outputs = spec.layers[l + 1] as number;
    const limit = Math.sqrt(6 / (inputs + outputs));
    const weights = new Float32Array(inputs * outputs);
    for (let i = 0; i < weights.length; i++) weights[i] = (2 * rng() - 1) * limit;
    const bias = new Float32Array(outputs);
    for (let i = 0; i < outputs; i++) bias[i] = (2 * rng() - 1) * 0.1;
    layers.push({ inputs, outputs, weights, bias });
  }
  return layers;
}

/**
 * The forward pass the expected logits come from, for `count` samples stored one after another in `samples` (count x
 * inputs floats): dense layers with float64 accumulation, ReLU between them, none after the last. Returns count x
 * outputs float32. Slow and obviously correct: it is the definition, not a competitor.
 */
export function expectedLogits(layers: readonly DenseLayer[], samples: Float32Array, count: number): Float32Array {
  const first = layers[0];
  const last = layers[layers.length - 1];
  if (!first || !last) throw new RangeError('expectedLogits needs at least one layer');
  if (samples.length !== count * first.inputs) {
    throw new RangeError(`expectedLogits: ${count} samples of ${first.inputs} features need ${count * first.inputs} floats, got ${samples.length}`);
  }
  const out = new Float32Array(count * last.outputs);
  let activation = new Float64Array(first.inputs);
  for (let s = 0; s < count; s++) {
    activation = Float64Array.from(samples.subarray(s * first.inputs, (s + 1) * first.inputs));
    for (const [l, layer] of layers.entries()) {
      const next = new Float64Array(layer.outputs);
      for (let o = 0; o < layer.outputs; o++) next[o] = layer.bias[o] as number;
      for (let i = 0; i < layer.inputs; i++) {
        const a = activation[i] as number;
        if (a === 0) continue;
        const row = i * layer.outputs;
        for (let o = 0; o < layer.outputs; o++) next[o] = (next[o] as number) + a * (layer.weights[row + o] as number);
      }
      if (l + 1 < layers.length) for (let o = 0; o < next.length; o++) if ((next[o] as number) < 0) next[o] = 0;
      activation = next;
    }
    out.set(activation, s * last.outputs);
  }
  return out;
}
