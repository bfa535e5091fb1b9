/**
 * Episode 08's inference, off the page's main thread: this module worker loads the site's copy of onnxruntime-web,
 * creates one session of the lab's model on one backend (wasm or webgpu) and answers run requests
 * ({ id, batch, reps } -> { id, result: logits }). Loading the 27 MB runtime, compiling it and every session.run
 * happen here, so the page keeps drawing frames; the page times each request around its round trip.
 */
import type * as Ort from 'onnxruntime-web';
import { INPUT_NAME, OUTPUT_NAME } from '@parallel-course/gpu-batching/model-spec.ts';
import { FEATURES, seededInputs } from '../gpu-batching-inputs.ts';

export interface OrtInit {
  id: number;
  init: { backend: 'wasm' | 'webgpu'; base: string; modelUrl: string; numThreads: number };
}
export interface OrtRun {
  id: number;
  batch: number;
  reps: number;
}

let session: Ort.InferenceSession | null = null;
let ort: typeof Ort | null = null;
const INPUT = seededInputs();
const tensors = new Map<number, Ort.Tensor>();

async function init({ backend, base, modelUrl, numThreads }: OrtInit['init']): Promise<number> {
  ort = (await import(/* @vite-ignore */ `${base}ort/ort.webgpu.bundle.min.mjs`)) as typeof Ort;
  ort.env.wasm.wasmPaths = { wasm: `${base}ort/ort-wasm-simd-threaded.asyncify.wasm` };
  ort.env.wasm.numThreads = numThreads;
  const response = await fetch(modelUrl);
  if (!response.ok) throw new Error(`the model ${modelUrl} is missing (HTTP ${response.status}): the site build writes it; rebuild the site`);
  session = await ort.InferenceSession.create(new Uint8Array(await response.arrayBuffer()), { executionProviders: [backend] });
  return 0;
}

async function run(batch: number, reps: number): Promise<Float32Array> {
  if (!session || !ort) throw new Error('the session is not created yet');
  let tensor = tensors.get(batch);
  if (!tensor) {
    tensor = new ort.Tensor('float32', INPUT.slice(0, batch * FEATURES), [batch, FEATURES]);
    tensors.set(batch, tensor);
  }
  let logits = new Float32Array(0);
  for (let r = 0; r < reps; r++) {
    const out = await session.run({ [INPUT_NAME]: tensor });
    logits = Float32Array.from(out[OUTPUT_NAME]!.data as Float32Array);
  }
  return logits;
}

self.onmessage = async (event: MessageEvent<OrtInit | OrtRun>) => {
  const data = event.data;
  try {
    if ('init' in data) {
      self.postMessage({ id: data.id, result: await init(data.init) });
      return;
    }
    const logits = await run(data.batch, data.reps);
    self.postMessage({ id: data.id, result: logits }, [logits.buffer]);
  } catch (error) {
    self.postMessage({ id: data.id, error: (error as Error)?.message ?? String(error) });
  }
};
