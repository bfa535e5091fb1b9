import ort from 'onnxruntime-node';
import { encodeModel } from '../src/model-onnx.ts';
import { buildLayers } from '../src/model-spec.ts';
const F = 784;
for (const layers of [[784, 1024, 1024, 10], [784, 2048, 1024, 10]]) {
  const bytes = encodeModel(buildLayers({ layers, seed: 1 }));
  const s = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const N = 256;
  const data = new Float32Array(N * F); for (let i = 0; i < data.length; i++) data[i] = ((i * 2654435761) >>> 0) / 2 ** 32;
  for (const B of [1, 1, 8, 32, 64, 128, 256]) {
    const t = performance.now();
    for (let s0 = 0; s0 < N; s0 += B) {
      await s.run({ input: new ort.Tensor('float32', data.subarray(s0 * F, (s0 + B) * F), [B, F]) });
    }
    const ms = performance.now() - t;
    console.log(layers.join('-'), 'B', B, 'per sample us', (ms * 1000 / N).toFixed(1));
  }
}
