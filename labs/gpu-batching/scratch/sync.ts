import ort from 'onnxruntime-node';
import { ensureModelFile } from '../src/model-file.ts';
const s = await ort.InferenceSession.create(ensureModelFile().path, { intraOpNumThreads: 1 });
const x = new ort.Tensor('float32', new Float32Array(784 * 256), [256, 784]);
await s.run({ input: x });
for (let i = 0; i < 3; i++) {
  const t = performance.now(); const p = s.run({ input: x }); const syncMs = performance.now() - t; await p;
  console.log('sync part', syncMs.toFixed(1), 'total', (performance.now() - t).toFixed(1));
}
