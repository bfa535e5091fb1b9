import ort from 'onnxruntime-node';
import { ensureModelFile } from '../src/model-file.ts';
const m = ensureModelFile(); console.log(m);
const F = 784, B = 64, N = 1024;
const mk = () => ort.InferenceSession.create(m.path, { intraOpNumThreads: 1, interOpNumThreads: 1 });
const [a, b] = [await mk(), await mk()];
const data = new Float32Array(N * F).fill(0.5);
const pass = async (s: ort.InferenceSession, from: number, to: number) => { for (let i = from; i < to; i += B) await s.run({ input: new ort.Tensor('float32', data.subarray(i * F, (i + B) * F), [B, F]) }); };
for (let k = 0; k < 3; k++) {
  let t = performance.now(); await pass(a, 0, N); const one = performance.now() - t;
  t = performance.now(); await Promise.all([pass(a, 0, N / 2), pass(b, N / 2, N)]); const two = performance.now() - t;
  // is the main thread blocked during run?
  let ticks = 0; const iv = setInterval(() => ticks++, 1);
  t = performance.now(); await pass(a, 0, N); const three = performance.now() - t; clearInterval(iv);
  console.log('one session', one.toFixed(0), 'two sessions', two.toFixed(0), 'ticks during', three.toFixed(0), 'ms:', ticks);
}
