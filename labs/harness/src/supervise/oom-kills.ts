/**
 * Whether the kernel's out-of-memory killer ended a runner: Linux counts its kills in /proc/vmstat (`oom_kill`, since
 * 4.13; a memory cgroup's kills included), and the victim dies of SIGKILL. A graded run has 1 + 2F runners at once
 * (run-cases.ts GRADE_FORKS), each under the sandbox's memory limit, and those limits add up to more than a small
 * machine holds (11 x 4.5 GiB on the course's 23 GiB VM); the supervisor's own poll ends a runner over its limit with a
 * message, but when the machine runs out first the kernel picks a process, and "killed by SIGKILL: a crash in native
 * code?" would send the learner looking in the wrong place.
 * Input: /proc/vmstat. Output: the count now (null where it cannot be read), and whether one exit was such a kill.
 */
import { readFileSync } from 'node:fs';

/** The kernel's count of out-of-memory kills since boot, or null (no /proc, or a kernel without the counter). */
export function oomKillCount(vmstat = '/proc/vmstat'): number | null {
  try {
    const line = readFileSync(vmstat, 'utf8').split('\n').find((l) => l.startsWith('oom_kill '));
    const count = line === undefined ? Number.NaN : Number(line.slice('oom_kill '.length));
    return Number.isInteger(count) && count >= 0 ? count : null;
  } catch {
    return null;
  }
}

/**
 * Whether an exit by `signal` was most likely the out-of-memory killer's: SIGKILL, and the kernel's count grew while
 * the runner lived (another process of the machine may have been the victim too; the runner's SIGKILL says it was one).
 */
export function killedForMemory(signal: NodeJS.Signals | null, countAtStart: number | null, countAtExit: number | null): boolean {
  return signal === 'SIGKILL' && countAtStart !== null && countAtExit !== null && countAtExit > countAtStart;
}
