import { writeFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { generateModelBytes, MODEL_PATH } from '/work/main/labs/gpu-batching/src/model-onnx.ts';
import { buildLayers, forwardReference } from '/work/main/labs/gpu-batching/src/model-spec.ts';
let t = performance.now();
const bytes = generateModelBytes();
console.log('gen ms', performance.now() - t, bytes.length);
writeFileSync(MODEL_PATH, bytes);
const s = await ort.InferenceSession.create(MODEL_PATH, { intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ['cpu'] });
const N = 512, F = 784;
const data = new Float32Array(N * F); for (let i = 0; i < data.length; i++) data[i] = ((i * 2654435761) >>> 0) / 2 ** 32;
t = performance.now();
const ref = forwardReference(buildLayers(), data, N);
console.log('ref ms', performance.now() - t);
for (const B of [1, 1, 4, 16, 64, 128, 256, 512]) {
  t = performance.now();
  let maxErr = 0;
  for (let s0 = 0; s0 < N; s0 += B) {
    const x = new ort.Tensor('float32', data.subarray(s0 * F, (s0 + B) * F), [B, F]);
    const r = await s.run({ input: x });
    const out = r.logits!.data as Float32Array;
    for (let k = 0; k < out.length; k++) maxErr = Math.max(maxErr, Math.abs(out[k]! - ref[s0 * 10 + k]!));
  }
  const ms = performance.now() - t;
  console.log('B', B, 'ms', ms.toFixed(1), 'per sample us', (ms * 1000 / N).toFixed(1), 'maxErr', maxErr);
}
