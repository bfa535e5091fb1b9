/**
 * Is onnxruntime-node's WebGPU execution provider usable with a given environment? Like the CUDA probe, the only
 * honest test is to create a session with `webgpu` alone and run one sample, in a separate process: Dawn reads the
 * Vulkan environment (VK_ICD_FILENAMES, the loader on the library path) once per process, and a broken driver may
 * crash it. Synchronous (runProbeSync, bounded), because the lab decides its target inside LabDefinition.cases().
 * Run as a script, it prints one JSON line: {"usable": true} or {"usable": false, "reason": "..."}.
 */
import { fileURLToPath } from 'node:url';
import { describeProbeFailure, runProbeSync } from '@parallel-course/harness';
import { parseProbeOutput, type CudaProbe } from './cuda-probe.ts';
import { ensureModelFile } from './model-file.ts';
import { describeAdapter, describeIgnored, emulatedAdapterEnv, lookUpWebGpuAdapters, SWIFTSHADER_ADAPTER, vulkanLoaderFound, WEBGPU_FIX, type WebGpuAdapter } from './webgpu.ts';

export type ProviderProbe = CudaProbe;

const SELF = fileURLToPath(import.meta.url);
/** Node start, ONNX Runtime, Dawn and the 15 MB model: about 1-2 s; a Vulkan driver compiling shaders may take longer. */
const PROBE_TIMEOUT_MS = 60_000;

/** Creates a WebGPU session in a child process with `env` and runs one sample; never throws. */
function probeWebGpuSync(modelPath: string, env: NodeJS.ProcessEnv): ProviderProbe {
  const run = runProbeSync(process.execPath, [SELF, modelPath], { env, timeoutMs: PROBE_TIMEOUT_MS });
  if (run.code === null) return { usable: false, reason: describeProbeFailure('the WebGPU probe process', run) };
  return parseProbeOutput(run.code, run.stdout, run.stderr);
}

if (process.argv[1] === SELF) {
  const { openModel } = await import('./session.ts');
  try {
    const model = await openModel({ modelPath: process.argv[2] as string, ep: 'webgpu', threads: 1 });
    await model.infer(new Float32Array(model.features), 1);
    await model.release();
    process.stdout.write(`${JSON.stringify({ usable: true, reason: null })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ usable: false, reason: (error as Error).message })}\n`);
  }
}

/** What the lab found for `webgpu`: an adapter it can use (with the environment that gives it), or why not. */
export interface WebGpuChoice {
  usable: boolean;
  adapter: WebGpuAdapter | null;
  /** Variables to set in this process (before its first WebGPU session) and its device processes. */
  env: Record<string, string>;
  /** Why it is usable or not, in one line. */
  reason: string;
}

/**
 * Finds a WebGPU adapter: `real` (what `auto` asks) takes only a real GPU and never an emulated or unknown one;
 * `any` (an explicit GPU_BATCHING_EP=webgpu) takes a real GPU first, then an ICD the user chose with VK_ICD_FILENAMES
 * or VK_DRIVER_FILES, then Debian's SwiftShader, set up here, also when the real one's session failed. A real GPU is
 * a driver with its device in this machine (lookUpWebGpuAdapters), never a manifest alone. Every candidate is proven
 * by a probe session. `probe`, `exists` and `io` (a fake file-system root) are for tests.
 */
export function findWebGpu(
  mode: 'real' | 'any',
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  probe: (env: NodeJS.ProcessEnv) => ProviderProbe = (e) => probeWebGpuSync(ensureModelFile().path, e),
  exists?: (file: string) => boolean,
  io: { root?: string } = {},
): WebGpuChoice {
  const { adapters, ignored } = lookUpWebGpuAdapters(env, platform, io);
  const real = adapters.filter((a) => a.emulated === false);
  // Drivers installed without their device (Mesa's on a machine with no GPU) in one clause; other reasons in full.
  const absent = ignored.filter((i) => i.reason.endsWith('(driver installed, device absent)'));
  const listed =
    [
      ...adapters.map(describeAdapter),
      ...(absent.length ? [`drivers left out, their device absent: ${absent.map((i) => `${i.vendor} (${i.driver})`).join(', ')}`] : []),
      ...ignored.filter((i) => !absent.includes(i)).map(describeIgnored),
    ].join('; ') || 'none';
  const loaderMissing = platform === 'linux' && !vulkanLoaderFound(env, exists);
  const noLoader = "the Vulkan loader (libvulkan.so.1) is not installed: apt-get install libvulkan1 (or your distribution's Vulkan loader)";
  const failures: string[] = [];
  if (real.length > 0) {
    const adapter = real[0] as WebGpuAdapter;
    if (loaderMissing) return { usable: false, adapter, env: {}, reason: noLoader };
    const result = probe(env);
    if (result.usable) {
      return { usable: true, adapter, env: {}, reason: `${describeAdapter(adapter)}${real.length > 1 ? ` (Dawn picks among ${real.length} real adapters: ${listed})` : ''}` };
    }
    failures.push(`a WebGPU session on ${describeAdapter(adapter)} failed (${result.reason})`);
    if (mode === 'real') return { usable: false, adapter, env: {}, reason: `${failures[0]}. Fix: ${WEBGPU_FIX}` };
  } else if (mode === 'real') {
    return { usable: false, adapter: null, env: {}, reason: `no real WebGPU adapter (found: ${listed}; an emulated or unknown one is never chosen by auto)` };
  }
  if (env.VK_ICD_FILENAMES || env.VK_DRIVER_FILES || platform !== 'linux') {
    // The user chose the driver (or the platform gives no choice): take it as it is, named as what it is.
    const adapter = adapters[0] ?? null;
    if (failures.length > 0) return { usable: false, adapter, env: {}, reason: `${failures[0]}. Fix: ${WEBGPU_FIX}` };
    if (loaderMissing) return { usable: false, adapter, env: {}, reason: noLoader };
    const result = probe(env);
    const name = adapter ? describeAdapter(adapter) : 'the adapter Dawn picks';
    return result.usable
      ? { usable: true, adapter, env: {}, reason: name }
      : { usable: false, adapter, env: {}, reason: `a WebGPU session on ${name} failed (${result.reason}). Fix: ${WEBGPU_FIX}` };
  }
  // Debian's SwiftShader, the one emulated adapter Dawn accepts here (it refuses Mesa's lavapipe).
  const before = failures.length > 0 ? `${failures[0]}; ` : `no real WebGPU adapter (found: ${listed}); `;
  const emulated = emulatedAdapterEnv(env, platform, exists);
  if ('error' in emulated) return { usable: false, adapter: null, env: {}, reason: `${before}no emulated one: ${emulated.error}` };
  const adapter = SWIFTSHADER_ADAPTER;
  const name = describeAdapter(adapter);
  const result = probe({ ...env, ...emulated.env });
  return result.usable
    ? { usable: true, adapter, env: emulated.env, reason: failures.length > 0 ? `${name}, chosen because ${failures[0]}` : name }
    : { usable: false, adapter, env: {}, reason: `${before}a WebGPU session on ${name} failed (${result.reason}). Fix: ${WEBGPU_FIX}` };
}
