/**
 * The transfer of inputs to the device and of results back, measured apart from the model's compute. onnxruntime-node
 * 1.30 has no GPU-resident tensors and no I/O binding (tensors live in CPU memory), so every call uploads its inputs
 * and reads its outputs back inside the call, and the two cannot be timed separately within it. What can be measured:
 * a call on a stand-in model with the same input and output sizes and almost no compute (one 784 x 10 Gemm of zeros,
 * 0.2% of the lab model's multiply-adds per sample). Its latency is the upload of a batch, the download of its logits
 * and the fixed cost of a call; the lab model's call latency minus it is, roughly, the compute.
 */
import ort from 'onnxruntime-node';
import { encodeModel } from './model-onnx.ts';
import { INPUT_NAME, inputFeatures, MODEL_SPEC, outputFeatures } from './model-spec.ts';
import { providerOption, type ExecutionProvider } from './session.ts';

/** The stand-in: input [batch, 784] -> logits [batch, 10] through zero weights. */
function transferModelBytes(): Uint8Array {
  const inputs = inputFeatures(MODEL_SPEC);
  const outputs = outputFeatures(MODEL_SPEC);
  return encodeModel([{ inputs, outputs, weights: new Float32Array(inputs * outputs), bias: new Float32Array(outputs) }]);
}

/**
 * Latencies (ms) of `calls` calls of `batch` samples on the stand-in model, after one warm-up call (shader compilation
 * and buffer creation happen there). Run in a case's setup, never in a timed region.
 */
export async function measureTransferMs(ep: ExecutionProvider, batch: number, calls = 5): Promise<number[]> {
  const session = await ort.InferenceSession.create(transferModelBytes(), { executionProviders: [providerOption(ep, 0)], intraOpNumThreads: 1, interOpNumThreads: 1 });
  try {
    const input = new ort.Tensor('float32', new Float32Array(batch * inputFeatures(MODEL_SPEC)), [batch, inputFeatures(MODEL_SPEC)]);
    const times: number[] = [];
    for (let i = 0; i <= calls; i++) {
      const t0 = performance.now();
      await session.run({ [INPUT_NAME]: input });
      if (i > 0) times.push(performance.now() - t0);
    }
    return times;
  } finally {
    await session.release();
  }
}
