/**
 * Competing load, measured per round (issue 25: two runs at once on one machine took a headline from 1.84x to 1.08x
 * and 1.03x, and nothing said so; load was sampled only at the start). The supervisor reads, around each measured
 * round, the CPU time the whole machine spent busy (/proc/stat) and the time the run's own processes spent (every
 * process of the runner's process group: the runner, its pools, servers and devices); the difference is what other
 * processes took, in CPUs, while that round was timed. Linux only; elsewhere nothing is measured (and nothing said).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { formatFixed } from '@parallel-course/core';

/** Clock ticks per second of /proc's CPU times (USER_HZ): 100 on every Linux this course runs on. */
const TICKS_PER_SECOND = 100;
/** Rounds with other processes using more than this many CPUs on average are named in the results' notes. */
const COMPETING_CPUS_FLAG = 0.5;

export interface CpuSnapshot {
  atMs: number;
  /** Busy ticks of all CPUs (user, nice, system, irq, softirq, steal). */
  busyTicks: number;
  /** Ticks spent by the processes of the run's group (user + system, and their reaped children's). */
  ownTicks: number;
}

/** Busy ticks from /proc/stat's first line. */
export function busyTicksOf(procStat: string): number {
  const fields = (procStat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return user + nice + system + irq + softirq + steal;
}

/** A process's parent, group, CPU ticks and resident pages from its /proc/<pid>/stat (the name may hold spaces and parentheses). */
export function processTicksOf(stat: string): { ppid: number; pgrp: number; ticks: number; rssPages: number } | null {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state(0) ppid(1) pgrp(2) ... utime(11) stime(12) cutime(13) cstime(14) ... rss(21).
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const ticks = Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]);
  const rssPages = Number(rest[21] ?? 0);
  return Number.isFinite(pgrp) && Number.isFinite(ticks) ? { ppid, pgrp, ticks, rssPages: Number.isFinite(rssPages) ? rssPages : 0 } : null;
}

/** One process of a run: its CPU ticks and resident pages (/proc/<pid>/stat). */
export interface RunProcess {
  pid: number;
  ticks: number;
  rssPages: number;
}

/**
 * The processes of the run started as `root`: its process group and every descendant of `root` (a sandboxed runner
 * is in a session of its own, inside bubblewrap, so the group alone would miss it), from one scan of /proc; null
 * where /proc is not there.
 */
export function runProcesses(root: number): RunProcess[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const all: (RunProcess & { ppid: number; pgrp: number })[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const p = processTicksOf(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (p) all.push({ pid: Number(name), ...p });
    } catch {
      // the process ended between the listing and the read
    }
  }
  const children = new Map<number, number[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const mine = new Set<number>();
  const queue = [root, ...all.filter((p) => p.pgrp === root).map((p) => p.pid)];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    if (mine.has(pid)) continue;
    mine.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return all.filter((p) => mine.has(p.pid)).map(({ pid, ticks, rssPages }) => ({ pid, ticks, rssPages }));
}

/** The machine's and the run's CPU ticks now (the group `pgid` leads and its descendants), or null where /proc is not there. */
export function readCpuSnapshot(pgid: number): CpuSnapshot | null {
  let busyTicks: number;
  try {
    busyTicks = busyTicksOf(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null;
  }
  let ownTicks = 0;
  for (const p of runProcesses(pgid) ?? []) ownTicks += p.ticks;
  return { atMs: performance.now(), busyTicks, ownTicks };
}

/** Other processes' ticks and the seconds between two snapshots (a round's cases add up: ticks are coarse). */
export interface RoundLoad {
  othersTicks: number;
  seconds: number;
}

/** What other processes used between two snapshots. */
export function roundLoad(before: CpuSnapshot, after: CpuSnapshot): RoundLoad {
  return { othersTicks: after.busyTicks - before.busyTicks - (after.ownTicks - before.ownTicks), seconds: Math.max(0, (after.atMs - before.atMs) / 1000) };
}

/** CPUs other processes used on average (never below 0: the counters are coarse). */
export function competingCpus(load: RoundLoad, ticksPerSecond = TICKS_PER_SECOND): number {
  return load.seconds <= 0 ? 0 : Math.max(0, load.othersTicks / ticksPerSecond / load.seconds);
}

/** A round shorter than this (all its cases together) is not judged: at 100 ticks a second, one tick is too much of it. */
export const MIN_JUDGED_SECONDS = 0.2;

/** The note for the results, or null when no round had more competing load than COMPETING_CPUS_FLAG. */
export function competingLoadNote(perRound: ReadonlyMap<number, RoundLoad>): string | null {
  const loaded = [...perRound]
    .filter(([, load]) => load.seconds >= MIN_JUDGED_SECONDS)
    .map(([round, load]) => ({ round, cpus: competingCpus(load) }))
    .filter((r) => r.cpus > COMPETING_CPUS_FLAG);
  if (loaded.length === 0) return null;
  const worst = loaded.reduce((a, b) => (b.cpus > a.cpus ? b : a));
  return (
    `Competing load: other processes on this machine used more than ${COMPETING_CPUS_FLAG} CPU while ${loaded.length} of ${perRound.size} measured rounds ` +
    `were timed (the most: ${formatFixed(worst.cpus, 1)} CPUs in round ${worst.round + 1}). The cases shared the machine with them, so speedups may be lower than ` +
    'the machine gives; rerun on a quiet machine (or through Slurm with --exclusive) before reading meaning into them.'
  );
}
