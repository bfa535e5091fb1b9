/**
 * P, the CPUs this job may use: the smaller of the CPU affinity mask (taskset, Slurm's --cpu-bind, a cpuset) and
 * the cgroup CPU quota (a container's or a Slurm job's --cpus-per-task under cgroup limits), or a count the user
 * forced with `--cpus N` / COURSE_CPUS for teaching, oversubscription experiments and tests.
 *
 * Why not just `os.availableParallelism()`: libuv 1.52 (Node 24.21) reads the affinity mask and, on Linux, the
 * quota in cgroup v2's cpu.max and in a cgroup v1 hierarchy mounted as "cpu,cpuacct"; where the cpu controller is
 * mounted on its own (this project's VMs), it ignores the quota. Tried here: a 0.5-CPU v1 quota and Node still
 * reported 2. So the harness reads both limits itself and records which one set P.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatFixed } from '@parallel-course/core';

export type CpuLimit = 'affinity' | 'cgroup-quota' | 'forced';

export interface CpuBudget {
  /** The CPU count the sweeps plan for: forced when `forced`, else the smaller of affinity and quota. */
  p: number;
  /** What set the CPU count of this job (before forcing): the affinity mask or the cgroup quota. */
  limit: Exclude<CpuLimit, 'forced'>;
  /** The CPUs the job may really use (what oversubscription is judged against), whatever was forced. */
  available: number;
  /** True when `p` was forced with --cpus or COURSE_CPUS. */
  forced: boolean;
  /** CPUs in the affinity mask. */
  affinity: number;
  /** CPUs the cgroup quota grants (quota / period, may be fractional), or null when there is none. */
  quota: number | null;
  /** What Node itself reports (`os.availableParallelism()`), for comparison. */
  nodeReports: number;
}

/** The most CPUs a list may name: beyond any machine, so a garbled list cannot make a huge array. */
const MAX_CPU_LIST = 1 << 16;

/** The one CPU-list parser: every CPU number in a Linux CPU list such as "0-3,8,10-11"; [] when the text is not one. */
export function expandCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!match) return [];
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    if (high < low || cpus.length + high - low >= MAX_CPU_LIST) return [];
    for (let c = low; c <= high; c++) cpus.push(c);
  }
  return cpus;
}

/** Number of CPUs in a Linux CPU list such as "0-3,8,10-11"; null when the text is not one. */
export function countCpuList(list: string): number | null {
  return expandCpuList(list).length || null;
}

/** CPUs granted by a cgroup v2 `cpu.max` ("50000 100000" = 0.5; "max 100000" = no limit); null when unlimited. */
export function quotaFromCpuMax(text: string): number | null {
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === undefined || quota === 'max') return null;
  const q = Number(quota);
  const p = Number(period ?? 100_000);
  return Number.isFinite(q) && q > 0 && Number.isFinite(p) && p > 0 ? q / p : null;
}

/** CPUs granted by cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us` (-1 = no limit); null when unlimited. */
export function quotaFromCfs(quotaText: string, periodText: string): number | null {
  const q = Number(quotaText.trim());
  const p = Number(periodText.trim());
  return Number.isFinite(q) && q > 0 && Number.isFinite(p) && p > 0 ? q / p : null;
}

/** The folders whose quota applies to this process: its cgroup and every ancestor, for v2 and v1 (`/proc/self/cgroup`). */
export function cgroupQuotaFiles(procSelfCgroup: string, root = '/sys/fs/cgroup'): { v2: string[]; v1: string[] } {
  const v2: string[] = [];
  const v1: string[] = [];
  const chain = (base: string, cgroupPath: string) => {
    const dirs: string[] = [];
    for (let p = cgroupPath; ; p = path.posix.dirname(p)) {
      dirs.push(path.join(base, p));
      if (p === '/' || p === '.' || p === '') break;
    }
    return dirs;
  };
  for (const line of procSelfCgroup.split('\n')) {
    const [, controllers, cgroupPath] = /^\d+:([^:]*):(.*)$/.exec(line.trim()) ?? [];
    if (cgroupPath === undefined) continue;
    if (controllers === '') v2.push(...chain(root, cgroupPath));
    else if (controllers?.split(',').includes('cpu')) v1.push(...chain(path.join(root, controllers), cgroupPath), ...chain(path.join(root, 'cpu'), cgroupPath));
  }
  return { v2: [...new Set(v2)], v1: [...new Set(v1)] };
}

/**
 * A system file's text (/proc, /sys, a cgroup's files), or null where it is missing or cannot be read (not Linux, no
 * permission): the one reader of the machine's files for machine/ and the doctor.
 */
export function readSystemFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The smallest quota on the way from this process's cgroup to the root, in CPUs; null when none applies. */
export function readCgroupQuota(readText: (file: string) => string | null = readSystemFile): number | null {
  const self = readText('/proc/self/cgroup');
  if (self === null) return null;
  const files = cgroupQuotaFiles(self);
  const quotas: number[] = [];
  for (const dir of files.v2) {
    const text = readText(path.join(dir, 'cpu.max'));
    const q = text === null ? null : quotaFromCpuMax(text);
    if (q !== null) quotas.push(q);
  }
  for (const dir of files.v1) {
    const quota = readText(path.join(dir, 'cpu.cfs_quota_us'));
    const period = readText(path.join(dir, 'cpu.cfs_period_us'));
    const q = quota === null || period === null ? null : quotaFromCfs(quota, period);
    if (q !== null) quotas.push(q);
  }
  return quotas.length > 0 ? Math.min(...quotas) : null;
}

/** The one affinity parser: `Cpus_allowed_list` from /proc/self/status text, e.g. "0-1" (what taskset or Slurm set); null when absent. */
export function cpuAffinityList(status: string | null): string | null {
  return status?.match(/^Cpus_allowed_list:\s*(\S+)/m)?.[1] ?? null;
}

/** CPUs in this process's affinity mask (`Cpus_allowed_list`); where that cannot be read, what Node reports. */
function readAffinity(readText: (file: string) => string | null = readSystemFile): number {
  const list = cpuAffinityList(readText('/proc/self/status'));
  return (list ? countCpuList(list) : null) ?? os.availableParallelism();
}

/** The largest forced CPU count accepted: beyond the biggest nodes a course meets, and a bound on planned work. */
const MAX_FORCED_CPUS = 1024;

/** Reads a forced CPU count from `--cpus` or COURSE_CPUS; throws a RangeError naming the rule. */
export function parseForcedCpus(text: string, source: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > MAX_FORCED_CPUS) {
    throw new RangeError(`${source} must be a whole number of CPUs from 1 to ${MAX_FORCED_CPUS}, not '${text}'`);
  }
  return n;
}

/**
 * P and what set it. `forced` comes from --cpus; otherwise COURSE_CPUS in the environment forces it (how the test
 * suite runs as if on 1 or 64 CPUs). A fractional quota is rounded down (1.5 CPUs run 1 worker without throttling),
 * never below 1.
 */
export function cpuBudget(forced?: number, env: NodeJS.ProcessEnv = process.env, readText: (file: string) => string | null = readSystemFile): CpuBudget {
  const affinity = readAffinity(readText);
  const quota = readCgroupQuota(readText);
  const quotaCpus = quota === null ? null : Math.max(1, Math.floor(quota));
  const available = quotaCpus !== null && quotaCpus < affinity ? quotaCpus : affinity;
  const limit = quotaCpus !== null && quotaCpus < affinity ? 'cgroup-quota' : 'affinity';
  const fromEnv = env.COURSE_CPUS !== undefined && env.COURSE_CPUS !== '' ? parseForcedCpus(env.COURSE_CPUS, 'COURSE_CPUS') : undefined;
  const force = forced ?? fromEnv;
  return { p: force ?? available, limit, available, forced: force !== undefined, affinity, quota, nodeReports: os.availableParallelism() };
}

/** One line for the terminal and the report: "P = 2 (the affinity mask; Node reports 2)". */
export function describeBudget(b: CpuBudget): string {
  const why = b.limit === 'cgroup-quota' ? `the cgroup quota of ${formatFixed(b.quota, 2)} CPUs` : `the affinity mask of ${b.affinity} CPUs`;
  if (b.forced) {
    return `P = ${b.p}, forced (the job may use ${b.available}: ${why})${b.p > b.available ? `; cases with more than ${b.available} workers are oversubscribed` : ''}`;
  }
  return `P = ${b.p}: ${why}${b.nodeReports !== b.p ? ` (Node's os.availableParallelism() says ${b.nodeReports})` : ''}`;
}
