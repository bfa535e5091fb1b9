/**
 * GPU detection with nvidia-smi: which GPUs this node has and how much of their memory is free. nvidia-smi lists
 * GPUs whether or not ONNX Runtime can use them; whether the CUDA execution provider actually works is a separate
 * question (cuda-probe.ts). Tests put a stand-in `nvidia-smi` first on PATH (test/fixtures/bin/nvidia-smi).
 * nvidia-smi runs through the harness's probe (probe.ts): a hung driver costs at most NVIDIA_SMI_TIMEOUT_MS plus two
 * grace periods and one line in `problems`, and what it prints is sanitised before anyone sees it.
 */
import { describeProbeFailure, oneLine, type ProbeOptions, type ProbeResult, runProbe, runProbeSync } from '@parallel-course/harness';

export interface GpuInfo {
  /** The index nvidia-smi reports: the value CUDA_VISIBLE_DEVICES takes to show this GPU alone. */
  index: number;
  name: string;
  totalMiB: number;
  usedMiB: number;
  freeMiB: number;
}

const NVIDIA_SMI_ARGS = ['--query-gpu=index,name,memory.total,memory.used,memory.free', '--format=csv,noheader,nounits'];
/** nvidia-smi may take several seconds on a node without persistence mode; past 10 s the driver is taken as hung. */
const NVIDIA_SMI_TIMEOUT_MS = 10_000;
/** At most this many unreadable lines are quoted in `problems`; a flood of garbage is counted, not printed. */
const MAX_QUOTED_LINES = 3;

/**
 * Parses `nvidia-smi --query-gpu=index,name,memory.total,memory.used,memory.free --format=csv,noheader,nounits`,
 * e.g. "0, NVIDIA A100-SXM4-40GB, 40960, 1024, 39936". A name may itself contain commas, so the numbers are taken
 * from the ends. Lines that do not parse are reported, not skipped silently.
 */
export function parseGpuQuery(output: string): { gpus: GpuInfo[]; problems: string[] } {
  const gpus: GpuInfo[] = [];
  const problems: string[] = [];
  let unquoted = 0;
  const problem = (line: string, why: string) => {
    if (problems.length < MAX_QUOTED_LINES) problems.push(`cannot read nvidia-smi line "${oneLine(line, 120)}": ${why}`);
    else unquoted++;
  };
  for (const line of output.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length < 5) {
      problem(line, 'expected index, name, total, used, free');
      continue;
    }
    const index = Number(fields[0]);
    const [total, used, free] = fields.slice(-3).map(Number) as [number, number, number];
    const name = oneLine(fields.slice(1, -3).join(', '), 120);
    if (!Number.isInteger(index) || ![total, used, free].every(Number.isFinite)) {
      problem(line, 'index and memory (MiB) must be numbers');
      continue;
    }
    gpus.push({ index, name, totalMiB: total, usedMiB: used, freeMiB: free });
  }
  if (unquoted > 0) problems.push(`and ${unquoted} more nvidia-smi line(s) that cannot be read`);
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

/** The detection from nvidia-smi's probe result: its GPUs, or one line saying why there are none. */
function detectionFrom(result: ProbeResult, env: NodeJS.ProcessEnv): GpuDetection {
  if (!result.ok) {
    if (result.error === 'ENOENT') return { gpus: [], problems: ['nvidia-smi not found: no NVIDIA driver on this machine'] };
    const hint = result.timedOut ? ': is the driver hung? Run nvidia-smi by hand to see' : '';
    return { gpus: [], problems: [`${describeProbeFailure('nvidia-smi', result)}${hint}`] };
  }
  const parsed = parseGpuQuery(result.stdout);
  const visible = restrictToVisible(parsed.gpus, env['CUDA_VISIBLE_DEVICES']);
  return { gpus: visible.gpus, problems: [...parsed.problems, ...visible.problems] };
}

function probeOptions(env: NodeJS.ProcessEnv, probe: ProbeOptions): ProbeOptions {
  return { timeoutMs: NVIDIA_SMI_TIMEOUT_MS, ...probe, env };
}

/**
 * Runs nvidia-smi (as found on env's PATH) and parses its answer, keeping the GPUs this job may use; never throws.
 * `probe` overrides the time limits (tests use short ones).
 */
export async function detectGpus(env: NodeJS.ProcessEnv = process.env, probe: ProbeOptions = {}): Promise<GpuDetection> {
  return detectionFrom(await runProbe('nvidia-smi', NVIDIA_SMI_ARGS, probeOptions(env, probe)), env);
}

/**
 * detectGpus for a caller that must answer synchronously, with the same bounds (runProbeSync): the lab's choice of
 * execution provider, which LabDefinition.cases() needs. Everything else uses detectGpus.
 */
export function detectGpusSync(env: NodeJS.ProcessEnv = process.env, probe: ProbeOptions = {}): GpuDetection {
  return detectionFrom(runProbeSync('nvidia-smi', NVIDIA_SMI_ARGS, probeOptions(env, probe)), env);
}
