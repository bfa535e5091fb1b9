/**
 * Is the CUDA execution provider actually usable? nvidia-smi listing a GPU is not enough: ONNX Runtime also needs its
 * CUDA provider library, CUDA 12 and cuDNN 9. The only honest test is to create a session with `cuda` alone, in a
 * separate process (a broken driver may crash it), with CUDA_VISIBLE_DEVICES showing one GPU.
 * Run as a script, it prints one JSON line: {"usable": true} or {"usable": false, "reason": "..."}.
 */
import { fileURLToPath } from 'node:url';
import { describeProbeFailure, oneLine, runProbe } from '@parallel-course/harness';

export interface CudaProbe {
  usable: boolean;
  reason: string | null;
}

const SELF = fileURLToPath(import.meta.url);
const PROBE_TIMEOUT_MS = 60_000;

/**
 * Parses the probe's stdout; anything else is "not usable" with what the process said. stdout and stderr come
 * sanitised from runProbe; the reason is kept to one line either way (ONNX Runtime's messages can be long).
 */
export function parseProbeOutput(status: number | null, stdout: string, stderr: string): CudaProbe {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    const parsed = JSON.parse(line) as Partial<CudaProbe>;
    if (typeof parsed.usable === 'boolean') return { usable: parsed.usable, reason: parsed.reason == null ? null : oneLine(String(parsed.reason), 400) };
  } catch {
    // fall through: the probe crashed before printing
  }
  const tail = oneLine(stderr.trim().split('\n').slice(-3).join(' / '), 400);
  return { usable: false, reason: `the probe process exited with status ${status}${tail ? `: ${tail}` : ''}` };
}

/** Creates a CUDA session on GPU `gpuIndex` in a child process and reports whether that worked; never throws. */
export async function probeCuda(modelPath: string, gpuIndex = 0, env: NodeJS.ProcessEnv = process.env): Promise<CudaProbe> {
  const run = await runProbe(process.execPath, [SELF, modelPath], {
    env: { ...env, CUDA_DEVICE_ORDER: 'PCI_BUS_ID', CUDA_VISIBLE_DEVICES: String(gpuIndex) },
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  // Killed (timeout, a crash by signal) or never started: say which, in one line.
  if (run.code === null) {
    return { usable: false, reason: describeProbeFailure('the CUDA probe process', run) };
  }
  return parseProbeOutput(run.code, run.stdout, run.stderr);
}

if (process.argv[1] === SELF) {
  const { openModel } = await import('./session.ts');
  try {
    const model = await openModel({ modelPath: process.argv[2] as string, ep: 'cuda', threads: 1, deviceId: 0 });
    await model.infer(new Float32Array(model.features), 1);
    await model.release();
    process.stdout.write(`${JSON.stringify({ usable: true, reason: null })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ usable: false, reason: (error as Error).message })}\n`);
  }
}
