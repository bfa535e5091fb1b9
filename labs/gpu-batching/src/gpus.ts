/**
 * GPU detection with nvidia-smi: which GPUs this node has and how much of their memory is free. nvidia-smi lists
 * GPUs whether or not ONNX Runtime can use them; whether the CUDA execution provider actually works is a separate
 * question (cuda-probe.ts). Tests put a stand-in `nvidia-smi` first on PATH (test/fixtures/bin/nvidia-smi).
 */
import { execFileSync } from 'node:child_process';

export interface GpuInfo {
  /** The index nvidia-smi reports: the value CUDA_VISIBLE_DEVICES takes to show this GPU alone. */
  index: number;
  name: string;
  totalMiB: number;
  usedMiB: number;
  freeMiB: number;
}

export const NVIDIA_SMI_ARGS = ['--query-gpu=index,name,memory.total,memory.used,memory.free', '--format=csv,noheader,nounits'];

/**
 * Parses `nvidia-smi --query-gpu=index,name,memory.total,memory.used,memory.free --format=csv,noheader,nounits`,
 * e.g. "0, NVIDIA A100-SXM4-40GB, 40960, 1024, 39936". A name may itself contain commas, so the numbers are taken
 * from the ends. Lines that do not parse are reported, not skipped silently.
 */
export function parseGpuQuery(output: string): { gpus: GpuInfo[]; problems: string[] } {
  const gpus: GpuInfo[] = [];
  const problems: string[] = [];
  for (const line of output.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length < 5) {
      problems.push(`cannot read nvidia-smi line "${line}": expected index, name, total, used, free`);
      continue;
    }
    const index = Number(fields[0]);
    const [total, used, free] = fields.slice(-3).map(Number) as [number, number, number];
    const name = fields.slice(1, -3).join(', ');
    if (!Number.isInteger(index) || ![total, used, free].every(Number.isFinite)) {
      problems.push(`cannot read nvidia-smi line "${line}": index and memory (MiB) must be numbers`);
      continue;
    }
    gpus.push({ index, name, totalMiB: total, usedMiB: used, freeMiB: free });
  }
  return { gpus, problems };
}

export interface GpuDetection {
  gpus: GpuInfo[];
  /** Why there is no GPU list (nvidia-smi missing or failing), or lines that did not parse; empty when all went well. */
  problems: string[];
}

/** Runs nvidia-smi (as found on PATH) and parses its answer; never throws. */
export function detectGpus(env: NodeJS.ProcessEnv = process.env): GpuDetection {
  let output: string;
  try {
    output = execFileSync('nvidia-smi', NVIDIA_SMI_ARGS, { encoding: 'utf8', timeout: 10_000, env, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { gpus: [], problems: [code === 'ENOENT' ? 'nvidia-smi not found: no NVIDIA driver on this machine' : `nvidia-smi failed: ${(error as Error).message.split('\n')[0]}`] };
  }
  return parseGpuQuery(output);
}
