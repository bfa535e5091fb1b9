/**
 * The environment manifest: what a reader needs to judge a number measured on this machine.
 * Every probe is best-effort: a fact that cannot be read is recorded as null, never guessed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { Environment } from './results-schema.ts';

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function run(command: string, args: string[], cwd?: string): string | null {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/**
 * CPUs granted by the cgroup CPU quota: quota / period from cgroup v2 `cpu.max` ("max 100000" means unlimited)
 * or cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`. `os.availableParallelism()` ignores quotas, so a
 * container limited to 1.5 CPUs still reports every core: this is the number to compare workers against there.
 */
export function parseCgroupQuota(cpuMax: string | null, v1Quota: string | null, v1Period: string | null): number | null {
  if (cpuMax !== null) {
    const [quota, period] = cpuMax.trim().split(/\s+/);
    if (quota === undefined || quota === 'max' || period === undefined) return null;
    const value = Number(quota) / Number(period);
    return Number.isFinite(value) && value > 0 ? value : null;
  }
  if (v1Quota !== null && v1Period !== null) {
    const quota = Number(v1Quota.trim());
    const period = Number(v1Period.trim());
    return quota > 0 && period > 0 ? quota / period : null;
  }
  return null;
}

/** `Cpus_allowed_list` from /proc/self/status, e.g. "0-1": the affinity mask taskset or Slurm set. */
export function parseCpuAffinity(status: string | null): string | null {
  const match = status?.match(/^Cpus_allowed_list:\s*(\S+)/m);
  return match?.[1] ?? null;
}

/** Parses `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`. */
export function parseNvidiaSmi(output: string | null): Environment['gpus'] {
  if (!output) return [];
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const comma = line.lastIndexOf(',');
      const name = (comma >= 0 ? line.slice(0, comma) : line).trim();
      const memory = comma >= 0 ? Number(line.slice(comma + 1).trim()) : Number.NaN;
      return { name, memoryMiB: Number.isFinite(memory) ? memory : null };
    });
}

export function collectEnvironment(rootDir: string): Environment {
  const cpus = os.cpus();
  const slurm: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('SLURM_') && value !== undefined) slurm[key] = value;
  }
  const commit = run('git', ['rev-parse', 'HEAD'], rootDir)?.trim() ?? null;
  const status = commit === null ? null : run('git', ['status', '--porcelain', '--untracked-files=no'], rootDir);
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
    cgroupCpuQuota: parseCgroupQuota(
      readText('/sys/fs/cgroup/cpu.max'),
      readText('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'),
      readText('/sys/fs/cgroup/cpu/cpu.cfs_period_us'),
    ),
    cpuAffinity: parseCpuAffinity(readText('/proc/self/status')),
    uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null,
    slurm,
    git: { commit, dirty: status === null ? null : status.trim().length > 0 },
    gpus: parseNvidiaSmi(run('nvidia-smi', ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'])),
    hostname: os.hostname(),
    loadAverage: os.loadavg() as [number, number, number],
  };
}
