/**
 * The environment manifest: what a reader needs to judge a number measured on this machine.
 * Every probe is best-effort: a fact that cannot be read is recorded as null, never guessed. The commands (git,
 * nvidia-smi) run through probe.ts: bounded in time, their output sanitised, so a hung driver delays a run by at
 * most PROBE_TIMEOUT_MS plus two grace periods, and says so in one line.
 */
import { recordedWebGpuAdapters } from './webgpu-adapters.ts';
import os from 'node:os';
import { describeProbeFailure, oneLine, runProbe } from './probe.ts';
import { cpuAffinityList, readSystemFile } from './cpus.ts';
import type { Environment } from '@parallel-course/core';

/** Time each command of the manifest may take, in ms: git and nvidia-smi answer in well under a second when healthy. */
export const PROBE_TIMEOUT_MS = 5000;

/** A command's stdout, or null when it is missing, fails or overruns; an overrun is also reported (one line). */
async function run(command: string, args: string[], report: (line: string) => void, cwd?: string): Promise<string | null> {
  const result = await runProbe(command, args, { cwd, timeoutMs: PROBE_TIMEOUT_MS });
  if (result.timedOut) report(`note: ${describeProbeFailure(command, result)}; the results record it as unknown`);
  return result.ok ? result.stdout : null;
}

/** More GPUs than any node has: past this, nvidia-smi's output is garbage, not a list. */
const MAX_GPUS = 64;

/**
 * Parses `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`: "name, MiB" per GPU, the
 * memory a number or a bracketed "[N/A]" (recorded as null). Other lines are not GPUs and are dropped.
 */
export function parseNvidiaSmi(output: string | null): Environment['gpus'] {
  if (!output) return [];
  const gpus: Environment['gpus'] = [];
  for (const line of output.split('\n').map((l) => oneLine(l, 200)).filter(Boolean)) {
    const comma = line.lastIndexOf(',');
    if (comma <= 0) continue;
    const name = line.slice(0, comma).trim();
    const field = line.slice(comma + 1).trim();
    const memory = field === '' ? Number.NaN : Number(field);
    if (!Number.isFinite(memory) && !/^\[[^\]]*\]$/.test(field)) continue;
    gpus.push({ name, memoryMiB: Number.isFinite(memory) ? memory : null });
    if (gpus.length === MAX_GPUS) break;
  }
  return gpus;
}

/**
 * The commit and whether tracked files differ from it, from one `git status --porcelain=v2 --branch
 * --untracked-files=no`: its `# branch.oid` header names the commit ("(initial)" before the first), and every line
 * that is not a header is a changed file. Null for both when git failed (not a repository, no git) or has no commit.
 */
export function parseGitStatus(output: string | null): Environment['git'] {
  const lines = (output ?? '').split('\n').filter(Boolean);
  const oid = lines.find((l) => l.startsWith('# branch.oid '))?.slice('# branch.oid '.length).trim();
  if (!oid || !/^[0-9a-f]{7,64}$/.test(oid)) return { commit: null, dirty: null };
  return { commit: oid, dirty: lines.some((l) => !l.startsWith('# ')) };
}

/**
 * The manifest of this machine now. The commands run concurrently (git status; nvidia-smi).
 * `report` receives one line per command that overran its time limit (default: stderr).
 */
export async function collectEnvironment(
  rootDir: string,
  report: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<Environment> {
  const cpus = os.cpus();
  const slurm: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('SLURM_') && value !== undefined) slurm[key] = value;
  }
  const git = run('git', ['status', '--porcelain=v2', '--branch', '--untracked-files=no'], report, rootDir);
  const smi = run('nvidia-smi', ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'], report);
  const [gitState, smiOutput] = await Promise.all([git, smi]);
  return {
    node: process.versions.node,
    v8: process.versions.v8,
    uv: process.versions.uv ?? 'unknown',
    platform: process.platform,
    arch: process.arch,
    osRelease: os.release(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    availableParallelism: os.availableParallelism(),
    totalMemoryBytes: os.totalmem(),
    // The quota is recorded once, in results.cpus (cpus.ts reads it, with every ancestor cgroup); the affinity list here.
    cpuAffinity: cpuAffinityList(readSystemFile('/proc/self/status')),
    uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null,
    slurm,
    git: parseGitStatus(gitState),
    gpus: parseNvidiaSmi(smiOutput),
    webgpuAdapters: recordedWebGpuAdapters().slice(0, 64),
    hostname: os.hostname(),
    loadAverage: os.loadavg() as [number, number, number],
  };
}
