/**
 * One ONNX Runtime session on one device, behind the small interface the variants use: `infer(samples, count)`.
 * It records what really ran (the execution provider the session was created with: no silent fallback, creation
 * with `cuda` either succeeds or throws), the latency of every call (ms) and the time spent inferring (busy ms).
 * Session creation happens in a case's setup, never in a timed region.
 */
import ort from 'onnxruntime-node';
import { withHalving, type InferFn } from './allocation.ts';
import { INPUT_NAME, inputFeatures, MODEL_SPEC, OUTPUT_NAME, outputFeatures } from './model-spec.ts';
import { HarnessError } from '@parallel-course/harness/learner.ts';

export type ExecutionProvider = 'cpu' | 'cuda' | 'webgpu';

export interface OpenModelOptions {
  modelPath: string;
  ep: ExecutionProvider;
  /** ONNX Runtime intra-op threads: the CPU threads one call may use (on CUDA, the host-side threads). */
  threads: number;
  /** CUDA device inside this process: always 0 when CUDA_VISIBLE_DEVICES isolates one GPU per process. */
  deviceId?: number;
  /** Said when an allocation failure halves the batch (default: a line on stderr). */
  onHalve?: (from: number, to: number, error: unknown) => void;
  /** Test hook: replaces the session's run, to inject failures such as an out-of-memory error. */
  wrapRun?: (run: InferFn) => InferFn;
}

/** The interface every variant (and the learner's code) uses. */
export interface Model {
  /** The execution provider the session was created with: what really runs. */
  readonly ep: ExecutionProvider;
  readonly features: number;
  readonly outputs: number;
  /** Runs `count` samples stored one after another in `samples`; resolves to count x outputs floats. */
  infer(samples: Float32Array, count: number): Promise<Float32Array>;
  /** Latency of every infer call since the last reset, in ms. */
  readonly latenciesMs: number[];
  /** Total time spent inside infer since the last reset, in ms. */
  busyMs: number;
  resetStats(): void;
  release(): Promise<void>;
}

export class SessionError extends HarnessError { readonly code = 'SESSION_FAILED'; override name = 'SessionError'; }

/** The fix for an unusable CUDA provider, shared by every message that reports one. */
export const CUDA_FIX =
  'install the CUDA execution provider (labs/gpu-batching/README.md, "On a GPU node"), or run on CPU with GPU_BATCHING_EP=cpu';

/** The fix for an unusable WebGPU provider. */
const WEBGPU_SESSION_FIX =
  'run `npm run memory-plan -w labs/gpu-batching` to see the WebGPU adapters found; labs/gpu-batching/README.md (its WebGPU paragraph) says what each needs; or run on the CPU with GPU_BATCHING_EP=cpu';

/**
 * One provider's options. WebGPU takes no device id in onnxruntime-node 1.30 (the binding forwards `deviceId` to
 * CUDA, TensorRT and DirectML only): the adapter is whichever Dawn picks in this process (see target.ts).
 */
export function providerOption(ep: ExecutionProvider, deviceId: number): ort.InferenceSession.ExecutionProviderConfig {
  if (ep === 'cuda') return { name: 'cuda', deviceId };
  // 'basic' validation (the default, said out loud): a WebGPU error becomes an exception, not a crash of the process.
  if (ep === 'webgpu') return { name: 'webgpu', validationMode: 'basic' };
  return 'cpu';
}

export async function openModel(options: OpenModelOptions): Promise<Model> {
  const features = inputFeatures(MODEL_SPEC);
  const outputs = outputFeatures(MODEL_SPEC);
  let session: ort.InferenceSession;
  // onnxruntime-node otherwise writes mat-debug-<pid>.log and .ses into the temp folder and tries to send telemetry
  // over HTTPS from every process that opens a session: nothing may reach the network at run time.
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
  try {
    session = await ort.InferenceSession.create(options.modelPath, {
      // Exactly one provider: with ['cuda', 'cpu'] ONNX Runtime may quietly place work on the CPU.
      executionProviders: [providerOption(options.ep, options.deviceId ?? 0)],
      intraOpNumThreads: options.threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // On WebGPU, no operator may quietly run on the CPU: creation fails instead (every operator of this model has a
      // WebGPU kernel; tried on SwiftShader). Not on CPU, where every operator would count as a fallback.
      ...(options.ep === 'webgpu' ? { extra: { session: { disable_cpu_ep_fallback: '1' } } } : {}),
    });
  } catch (error) {
    const why = (error as Error).message;
    throw new SessionError(
      options.ep === 'cuda'
        ? `the CUDA execution provider is not usable in this process (${why}): ${CUDA_FIX}`
        : options.ep === 'webgpu'
          ? `the WebGPU execution provider is not usable in this process (${why}): ${WEBGPU_SESSION_FIX}`
          : `could not load the model ${options.modelPath} on CPU: ${why}`,
      { cause: error },
    );
  }
  const rawRun: InferFn = async (samples, count) => {
    const result = await session.run({ [INPUT_NAME]: new ort.Tensor('float32', samples, [count, features]) });
    const logits = result[OUTPUT_NAME];
    if (!logits) throw new SessionError(`the model returned no '${OUTPUT_NAME}' output`);
    return logits.data as Float32Array;
  };
  const halving = withHalving(options.wrapRun ? options.wrapRun(rawRun) : rawRun, {
    features,
    outputs,
    onHalve:
      options.onHalve ??
      ((from, to, error) =>
        process.stderr.write(`allocation failed for a batch of ${from} on ${options.ep} (${(error as Error).message}): halving to ${to} and retrying\n`)),
  });
  const model: Model = {
    ep: options.ep,
    features,
    outputs,
    latenciesMs: [],
    busyMs: 0,
    async infer(samples, count) {
      if (!Number.isInteger(count) || count < 1 || samples.length !== count * features) {
        throw new RangeError(`infer: ${count} samples of ${features} features need ${count * features} floats, got ${samples.length}`);
      }
      const t0 = performance.now();
      const out = await halving.infer(samples, count);
      const ms = performance.now() - t0;
      model.latenciesMs.push(ms);
      model.busyMs += ms;
      return out;
    },
    resetStats() {
      model.latenciesMs.length = 0;
      model.busyMs = 0;
    },
    async release() {
      await session.release();
    },
  };
  return model;
}
