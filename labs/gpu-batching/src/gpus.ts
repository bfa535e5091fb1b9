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

/**
 * The GPUs this job may use. nvidia-smi lists every GPU of the node, but a scheduler (Slurm's --gpus, a container)
 * may have given this job only some of them, through CUDA_VISIBLE_DEVICES: then only those are kept, so the lab never
 * starts a device process on a GPU that belongs to another job. Unset: all. Empty or "-1": none. Indices: those.
 * UUIDs or MIG names: none, with the reason (the lab maps devices by index only).
 */
export function restrictToVisible(gpus: GpuInfo[], visible: string | undefined): GpuDetection {
  if (visible === undefined) return { gpus, problems: [] };
  const entries = visible.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (entries.length === 0 || entries[0] === '-1') {
    return { gpus: [], problems: [`CUDA_VISIBLE_DEVICES is "${visible}": no GPU is visible to this job`] };
  }
  if (!entries.every((e) => /^\d+$/.test(e))) {
    return {
      gpus: [],
      problems: [
        `CUDA_VISIBLE_DEVICES="${visible}" names GPUs by UUID or MIG instance; this lab maps devices by index only: ` +
          'set it to indices (e.g. 0,1) or unset it to use the GPUs nvidia-smi lists',
      ],
    };
  }
  const allowed = new Set(entries.map(Number));
  const kept = gpus.filter((g) => allowed.has(g.index));
  const missing = [...allowed].filter((i) => !gpus.some((g) => g.index === i));
  return {
    gpus: kept,
    problems: missing.length ? [`CUDA_VISIBLE_DEVICES lists GPU ${missing.join(', ')}, which nvidia-smi does not show`] : [],
  };
}

/** Runs nvidia-smi (as found on PATH) and parses its answer, keeping the GPUs this job may use; never throws. */
export function detectGpus(env: NodeJS.ProcessEnv = process.env): GpuDetection {
  let output: string;
  try {
    output = execFileSync('nvidia-smi', NVIDIA_SMI_ARGS, { encoding: 'utf8', timeout: 10_000, env, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { gpus: [], problems: [code === 'ENOENT' ? 'nvidia-smi not found: no NVIDIA driver on this machine' : `nvidia-smi failed: ${(error as Error).message.split('\n')[0]}`] };
  }
  const parsed = parseGpuQuery(output);
  const visible = restrictToVisible(parsed.gpus, env['CUDA_VISIBLE_DEVICES']);
  return { gpus: visible.gpus, problems: [...parsed.problems, ...visible.problems] };
}
