/**
 * How far a float32 forward pass may lie from the expected logits (the float64 forward pass), derived from the model's
 * arithmetic instead of picked to pass: a per-logit bound, computed alongside them from the same weights and inputs.
 *
 * The rounding model (Higham, "Accuracy and Stability of Numerical Algorithms", §2.2 and §3.1): every float32 add or
 * multiply is correctly rounded, fl(a∘b) = (a∘b)(1+δ) with |δ| <= u = 2^-24 (WGSL, Vulkan and IEEE CPUs all promise
 * this for + and ×; a fused multiply-add only drops a rounding). A dense layer's output y_o = b_o + Σ_i x_i w_io,
 * n = inputs + 1 terms summed in any order, suffers at most n roundings, each of at most u·M_o, where
 * M_o = |b_o| + Σ_i |x_i||w_io| bounds every partial sum whatever the order.
 *
 * 1. The worst case (every δ at its limit, same sign, and errors carried through |W|): rigorous, and useless here.
 *    Through 784, 2048 and 1024 terms it gives about 0.8 on logits of order 1 (`worstCase` below, on request, pinned
 *    in test/tolerance.test.ts): errors carried by |W| grow by Σ_i|w_io| ≈ 20-50 per layer. It would pass anything.
 * 2. The probabilistic model (Higham & Mary, "A new approach to probabilistic rounding error analysis", SIAM J. Sci.
 *    Comput. 41(5), 2019): the δ are independent with mean zero. Then each error is a sum of independent bounded
 *    terms, and its scale adds in quadrature. Per layer, for output o:
 *        s_l[o]^2 = n·u^2·M_o^2                   (its own n roundings)
 *                 + Σ_i w_io^2 · s_{l-1}[i]^2     (the inputs' errors, carried by the weights; ReLU never enlarges one)
 *    with s_0 = 0 (the inputs are the same float32 numbers on every path). A logit's error exceeds λ·s_L with
 *    probability at most 2·exp(-λ^2/2) (Hoeffding); λ = 8 makes that 3e-14 per logit, so a run of a million logits
 *    fails by bad luck with probability below 1e-7. The bound used is λ·s_L, plus the float64 expected output's own error
 *    (the same formula with u = 2^-53), its one rounding to float32 (u·|y|) and n·2^-126 per layer for a device that
 *    flushes subnormal results to zero (WebGPU allows it).
 *
 * What the model assumes: rounding errors independent of each other (not true of adversarial data; true enough of
 * these weights and inputs: the measured errors sit near 1e-7, well inside the bound of a few 1e-4). What it catches
 * (the same test): bfloat16-like products (8-bit significands), a logit missing its bias, shifted logits. What it does
 * not: products rounded to TF32's 11-bit significand come close to it, so a TF32 matrix unit may or may not pass.
 */
import { formatScientific } from '@parallel-course/core';
import type { Comparator, Comparison } from '@parallel-course/harness';
import type { DenseLayer } from './model-spec.ts';

export const UNIT_ROUNDOFF_F32 = 2 ** -24;
export const UNIT_ROUNDOFF_F64 = 2 ** -53;
/** The smallest normal float32: what flushing one subnormal result to zero can lose at most. */
export const MIN_NORMAL_F32 = 2 ** -126;
/** Standard deviations of rounding scale a logit may be off by: 2·exp(-λ²/2) = 3e-14 per logit (see above). */
export const LAMBDA = 8;

/** γ_k = k·u / (1 - k·u), Higham's constant for k rounded operations in a row; Infinity when k·u >= 1 (no bound). */
export function gamma(k: number, u: number): number {
  if (!(Number.isInteger(k) && k >= 0) || !(u > 0 && u < 1)) throw new RangeError(`gamma: k must be a whole number >= 0 and 0 < u < 1, got k=${k}, u=${u}`);
  const ku = k * u;
  return ku >= 1 ? Number.POSITIVE_INFINITY : ku / (1 - ku);
}

/**
 * The forward pass in float64 with its per-logit bounds for a float32 implementation: `values` are the expected
 * logits (as expectedLogits computes them), `bound[k]` the probabilistic bound the lab checks against, and with
 * `{ worstCase: true }` `worstCase[k]`, the rigorous worst case (case 1 above: kept, and pinned in
 * test/tolerance.test.ts, to show why it is not used), else null. The lab computes this for every input it checks (850
 * samples a run), so without the worst case its inner loop does only what the bound needs: two more sums a
 * multiply-add are left out, and an input with no carried error (every input of the first layer) skips the carried
 * variance, a sum of zeros.
 */
export function forwardWithBound(
  layers: readonly DenseLayer[],
  samples: Float32Array,
  count: number,
  options: { worstCase?: boolean } = {},
): { values: Float32Array; bound: Float64Array; worstCase: Float64Array | null } {
  const first = layers[0];
  const last = layers[layers.length - 1];
  if (!first || !last) throw new RangeError('forwardWithBound needs at least one layer');
  if (samples.length !== count * first.inputs) {
    throw new RangeError(`forwardWithBound: ${count} samples of ${first.inputs} features need ${count * first.inputs} floats, got ${samples.length}`);
  }
  const withWorst = options.worstCase === true;
  const values = new Float32Array(count * last.outputs);
  const bound = new Float64Array(count * last.outputs);
  const worstCase = withWorst ? new Float64Array(count * last.outputs) : null;
  for (let s = 0; s < count; s++) {
    let x = Float64Array.from(samples.subarray(s * first.inputs, (s + 1) * first.inputs));
    let variance = new Float64Array(first.inputs); // s_0^2 = 0, in units of u^2
    let worst = new Float64Array(withWorst ? first.inputs : 0); // e_0 = 0
    let flushed = 0; // Σ n·2^-126 over the layers so far (carried as an absolute term)
    for (const [l, layer] of layers.entries()) {
      const n = layer.inputs + 1;
      const outputs = layer.outputs;
      const y = new Float64Array(outputs);
      const magnitude = new Float64Array(outputs); // M_o = |b| + Σ|x||w|
      const carriedVariance = new Float64Array(outputs); // Σ w² s²
      const worstMagnitude = new Float64Array(withWorst ? outputs : 0); // |b| + Σ|w|(|x| + e)
      const carriedWorst = new Float64Array(withWorst ? outputs : 0); // Σ |w| e
      for (let o = 0; o < outputs; o++) {
        y[o] = layer.bias[o] as number;
        magnitude[o] = Math.abs(layer.bias[o] as number);
        if (withWorst) worstMagnitude[o] = magnitude[o] as number;
      }
      for (let i = 0; i < layer.inputs; i++) {
        const xi = x[i] as number;
        const vi = variance[i] as number;
        const ei = withWorst ? (worst[i] as number) : 0;
        if (xi === 0 && vi === 0 && ei === 0) continue;
        const absX = Math.abs(xi);
        const row = i * outputs;
        if (withWorst) {
          for (let o = 0; o < outputs; o++) {
            const w = layer.weights[row + o] as number;
            const aw = Math.abs(w);
            y[o] = (y[o] as number) + xi * w;
            magnitude[o] = (magnitude[o] as number) + aw * absX;
            worstMagnitude[o] = (worstMagnitude[o] as number) + aw * (absX + ei);
            carriedVariance[o] = (carriedVariance[o] as number) + w * w * vi;
            carriedWorst[o] = (carriedWorst[o] as number) + aw * ei;
          }
        } else if (vi === 0) {
          // w² · 0 adds exactly nothing: the same sums, one array fewer in the loop.
          for (let o = 0; o < outputs; o++) {
            const w = layer.weights[row + o] as number;
            y[o] = (y[o] as number) + xi * w;
            magnitude[o] = (magnitude[o] as number) + Math.abs(w) * absX;
          }
        } else {
          for (let o = 0; o < outputs; o++) {
            const w = layer.weights[row + o] as number;
            y[o] = (y[o] as number) + xi * w;
            magnitude[o] = (magnitude[o] as number) + Math.abs(w) * absX;
            carriedVariance[o] = (carriedVariance[o] as number) + w * w * vi;
          }
        }
      }
      const nextVariance = new Float64Array(outputs);
      for (let o = 0; o < outputs; o++) {
        const m = magnitude[o] as number;
        nextVariance[o] = n * m * m + (carriedVariance[o] as number);
      }
      if (withWorst) {
        const g = gamma(n, UNIT_ROUNDOFF_F32) + gamma(n, UNIT_ROUNDOFF_F64);
        const nextWorst = new Float64Array(outputs);
        for (let o = 0; o < outputs; o++) nextWorst[o] = g * (worstMagnitude[o] as number) + (carriedWorst[o] as number) + n * MIN_NORMAL_F32;
        worst = nextWorst;
      }
      flushed += n * MIN_NORMAL_F32;
      if (l + 1 < layers.length) for (let o = 0; o < outputs; o++) if ((y[o] as number) < 0) y[o] = 0;
      x = y;
      variance = nextVariance;
    }
    for (let o = 0; o < last.outputs; o++) {
      const k = s * last.outputs + o;
      values[k] = x[o] as number;
      // The expected output's one rounding to float32 (u·|y|, on the rounded value with room for the rounding itself).
      const rounding = UNIT_ROUNDOFF_F32 * Math.abs(values[k] as number) * (1 + UNIT_ROUNDOFF_F32);
      bound[k] = LAMBDA * (UNIT_ROUNDOFF_F32 + UNIT_ROUNDOFF_F64) * Math.sqrt(variance[o] as number) + flushed + rounding;
      if (worstCase) worstCase[k] = (worst[o] as number) + rounding;
    }
  }
  return { values, bound, worstCase };
}

/** Bounds by the expected output they belong to: the harness hands the comparator the same array expected() returned. */
const BOUNDS = new WeakMap<Float32Array, Float64Array>();

/** The expected output of a check or a measured sample: the logits, with their bound remembered for the comparator. */
export function expectedWithBound(layers: readonly DenseLayer[], samples: Float32Array, count: number): Float32Array {
  const { values, bound } = forwardWithBound(layers, samples, count);
  BOUNDS.set(values, bound);
  return values;
}

/** The lab's comparator: every logit within its derived bound (errors reported as absolute and relative to |expected|). */
export function withinDerivedBound(): Comparator<Float32Array> {
  return {
    description: 'per-logit float32 rounding bound derived from the model (src/tolerance.ts: λ = 8 rounding scales, errors added in quadrature through 785, 2049 and 1025 terms)',
    compare(expected, actual): Comparison {
      const bound = BOUNDS.get(expected);
      if (!bound) throw new Error('withinDerivedBound: this expected output has no bound: it must come from expectedWithBound');
      if (expected.length !== actual.length) {
        return { equal: false, firstMismatch: { index: 'length', expected: String(expected.length), actual: String(actual.length) }, maxAbsError: null, maxRelError: null };
      }
      let maxAbs = 0;
      let maxRel = 0;
      for (let i = 0; i < expected.length; i++) {
        const err = Math.abs((actual[i] as number) - (expected[i] as number));
        const limit = bound[i] as number;
        if (!(err <= limit)) {
          return {
            equal: false,
            firstMismatch: { index: i, expected: `${expected[i]} ± ${formatScientific(limit)}`, actual: String(actual[i]) },
            maxAbsError: Number.isFinite(err) ? Math.max(maxAbs, err) : null,
            maxRelError: null,
          };
        }
        if (err > maxAbs) maxAbs = err;
        const magnitude = Math.abs(expected[i] as number);
        if (magnitude > 0 && err / magnitude > maxRel) maxRel = err / magnitude;
      }
      return { equal: true, firstMismatch: null, maxAbsError: maxAbs, maxRelError: maxRel };
    },
  };
}
