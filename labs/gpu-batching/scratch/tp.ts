import { pbkdf2 } from 'node:crypto';
import ort from 'onnxruntime-node';
import { ensureModelFile } from '../src/model-file.ts';
const s = await ort.InferenceSession.create(ensureModelFile().path, { intraOpNumThreads: 1 });
const x = new ort.Tensor('float32', new Float32Array(784 * 8), [8, 784]);
await s.run({ input: x });
let t = performance.now(); await s.run({ input: x }); console.log('alone', (performance.now() - t).toFixed(1));
const p = new Promise((r) => pbkdf2('a', 'b', 300000, 32, 'sha256', r)); // ~100+ ms on the threadpool
t = performance.now(); await s.run({ input: x }); console.log('with pbkdf2 queued (UV_THREADPOOL_SIZE=' + process.env.UV_THREADPOOL_SIZE + ')', (performance.now() - t).toFixed(1));
t = performance.now(); await p; console.log('pbkdf2 rest', (performance.now() - t).toFixed(1));
