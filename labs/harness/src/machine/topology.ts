/**
 * The node's shape, from Linux's sysfs, limited to the CPUs this job may use (its affinity mask): physical cores and
 * their SMT siblings (hardware threads sharing one core's execution units), sockets, NUMA nodes and cache sizes.
 * It tells where a sweep stops adding cores and starts adding hardware threads (a core's second thread adds far less
 * than a core), and where it crosses into a second socket (memory and caches then sit across an interconnect).
 * Everything is null where sysfs cannot be read (macOS, a container that hides it): the run says "unknown".
 */
import { countCpuList, cpuAffinityList, expandCpuList, readSystemFile } from './cpus.ts';

export interface CacheInfo {
  level: number;
  /** Data, Instruction or Unified. */
  type: string;
  sizeKiB: number;
  /** How many of the job's CPUs share one such cache. */
  sharedByCpus: number;
}

export interface Topology {
  /** The job's CPUs (logical CPUs: hardware threads). */
  logicalCpus: number;
  /** Distinct physical cores among them. */
  physicalCores: number | null;
  /** Hardware threads per core (2 with SMT / Hyper-Threading on). */
  threadsPerCore: number | null;
  sockets: number | null;
  numaNodes: number | null;
  /** Physical cores per socket among the job's CPUs (the smallest socket's count). */
  coresPerSocket: number | null;
  caches: CacheInfo[];
}


/** "32K", "1024K", "32M" -> KiB. */
export function parseCacheSize(text: string): number | null {
  const match = /^(\d+)\s*([KMG]?)/i.exec(text.trim());
  if (!match) return null;
  const unit = (match[2] ?? '').toUpperCase();
  return Number(match[1]) * (unit === 'M' ? 1024 : unit === 'G' ? 1024 * 1024 : 1);
}

/** The topology of the CPUs in `allowed` (the affinity mask), read through `readText` (sysfs by default). */
export function readTopology(allowed: number[], readText: (file: string) => string | null = readSystemFile): Topology {
  const cpuDir = (cpu: number) => `/sys/devices/system/cpu/cpu${cpu}`;
  const cores = new Set<string>();
  const socketCores = new Map<string, Set<string>>();
  let known = allowed.length > 0;
  for (const cpu of allowed) {
    const pkg = readText(`${cpuDir(cpu)}/topology/physical_package_id`)?.trim();
    const core = readText(`${cpuDir(cpu)}/topology/core_id`)?.trim();
    if (pkg === undefined || core === undefined) {
      known = false;
      break;
    }
    cores.add(`${pkg}:${core}`);
    const set = socketCores.get(pkg) ?? new Set<string>();
    set.add(core);
    socketCores.set(pkg, set);
  }
  const physicalCores = known ? cores.size : null;
  const sockets = known ? socketCores.size : null;
  const coresPerSocket = known ? Math.min(...[...socketCores.values()].map((s) => s.size)) : null;

  // NUMA nodes that hold at least one of the job's CPUs.
  let numaNodes: number | null = null;
  const online = readText('/sys/devices/system/node/online');
  if (online !== null) {
    const allowedSet = new Set(allowed);
    numaNodes = expandCpuList(online).filter((node) => {
      const list = readText(`/sys/devices/system/node/node${node}/cpulist`);
      return list !== null && expandCpuList(list).some((cpu) => allowedSet.has(cpu));
    }).length;
  }

  // Caches of the first allowed CPU: one entry per index (L1d, L1i, L2, L3...).
  const caches: CacheInfo[] = [];
  const first = allowed[0];
  for (let index = 0; first !== undefined && index < 8; index++) {
    const base = `${cpuDir(first)}/cache/index${index}`;
    const level = readText(`${base}/level`);
    if (level === null) break;
    const size = parseCacheSize(readText(`${base}/size`) ?? '');
    const shared = readText(`${base}/shared_cpu_list`);
    const allowedSet = new Set(allowed);
    if (size === null) continue;
    caches.push({
      level: Number(level.trim()),
      type: readText(`${base}/type`)?.trim() ?? 'Unknown',
      sizeKiB: size,
      sharedByCpus: shared === null ? 1 : expandCpuList(shared).filter((c) => allowedSet.has(c)).length || 1,
    });
  }
  return {
    logicalCpus: allowed.length,
    physicalCores,
    threadsPerCore: physicalCores ? Math.round(allowed.length / physicalCores) : null,
    sockets,
    numaNodes,
    coresPerSocket,
    caches,
  };
}

/** The topology of this process's CPUs (its affinity mask from /proc/self/status, else CPUs 0..n-1). */
export function currentTopology(readText: (file: string) => string | null = readSystemFile, fallbackCount = 1): Topology {
  const list = cpuAffinityList(readText('/proc/self/status'));
  const allowed = list && countCpuList(list) ? expandCpuList(list) : Array.from({ length: fallbackCount }, (_, i) => i);
  return readTopology(allowed, readText);
}

/**
 * What a sweep up to `maxWorkers` workers crosses on this topology, one sentence each: SMT siblings (more workers
 * than physical cores) and a second socket (more than one socket's cores). Empty when it crosses neither or the
 * topology is unknown.
 */
export function topologyWarnings(t: Topology, maxWorkers: number): string[] {
  const warnings: string[] = [];
  if (t.physicalCores !== null && t.threadsPerCore !== null && t.threadsPerCore > 1 && maxWorkers > t.physicalCores) {
    warnings.push(
      `The sweep goes past the ${t.physicalCores} physical cores into their SMT siblings (${t.threadsPerCore} hardware threads per core): ` +
        `cases with more than ${t.physicalCores} workers share cores, and their efficiency falls for that reason, not only for the code's.`,
    );
  }
  if (t.sockets !== null && t.sockets > 1 && t.coresPerSocket !== null && maxWorkers > t.coresPerSocket) {
    warnings.push(
      `The sweep crosses sockets (${t.sockets} sockets, ${t.coresPerSocket} cores each, ${t.numaNodes ?? '?'} NUMA nodes): cases with more than ` +
        `${t.coresPerSocket} workers reach memory and caches across the interconnect; first touch decides where a buffer's pages live.`,
    );
  }
  return warnings;
}

/** One line for the terminal: "2 cores x 1 thread, 1 socket, 1 NUMA node; L1d 32 KiB, L2 512 KiB, L3 32 MiB". */
export function describeTopology(t: Topology): string {
  if (t.physicalCores === null) return `${t.logicalCpus} CPUs (cores, sockets and caches unknown here)`;
  const caches = t.caches
    .filter((c) => c.type !== 'Instruction')
    .map((c) => `L${c.level}${c.type === 'Data' ? 'd' : ''} ${c.sizeKiB >= 1024 ? `${c.sizeKiB / 1024} MiB` : `${c.sizeKiB} KiB`}`)
    .join(', ');
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(t.physicalCores, 'core')} x ${plural(t.threadsPerCore ?? 1, 'thread')}, ${plural(t.sockets ?? 1, 'socket')}, ${plural(t.numaNodes ?? 1, 'NUMA node')}${caches ? `; ${caches}` : ''}`;
}
