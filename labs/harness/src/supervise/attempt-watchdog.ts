/**
 * The watchdog of one runner: the limit of what it waits for (a call the runner announced, or the judge's request in
 * flight), and the memory of every process of the run, polled. Past either it kills the runner's process group and
 * keeps what it saw, which the attempt's outcome reads (attempt-outcome.ts).
 * Input: the runner's process, the run's memory limit, the limits' scale, what to watch next. Output: what it watched
 * last (`activity`), the last call into lab or learner code it watched of each case (`lastCalls`), the call that overran its limit
 * (`overran`), the memory held past the limit (`overMemory`).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runProcesses } from '../measure/competing-load.ts';
import { isStopped } from '../measure/runner-freeze.ts';
import type { Watch } from '../measure/judge-channel.ts';
import { killGroup } from './runner-process.ts';

/** Extra time the supervisor allows past a call's limit, in ms: the runner's own timeouts answer first when they can. */
export const LIMIT_GRACE_MS = 5_000;
/** How often the supervisor reads the resident memory of the run's processes, in ms (one scan of /proc: about 1 ms per 100 processes). */
export const MEMORY_POLL_MS = 500;
/**
 * While a sample is in flight the memory poll waits (its /proc scan would delay the answer's time stamp), but never
 * longer than this, in ms: a process that grows during a long sample is still ended.
 */
const MEMORY_POLL_DEFER_MS = 2_000;

/** The time a call may take before the supervisor ends the runner, in ms. */
export function effectiveLimitMs(limitMs: number, scale = 1): number {
  return Math.max(1, Math.round((limitMs + LIMIT_GRACE_MS) * scale));
}

/** A process's resident pages that are not backed by a file (/proc/<pid>/statm: resident - shared); 0 once it is gone. */
function anonymousPages(pid: number): number {
  try {
    const [, resident = 0, shared = 0] = readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ').map(Number);
    return Math.max(0, resident - shared);
  } catch {
    return 0;
  }
}

/** Bytes per page of /proc's resident set counts (4 KiB on x86-64; 4, 16 or 64 KiB on arm64), from this process's own. */
function pageBytes(): number {
  try {
    const pages = Number(readFileSync('/proc/self/statm', 'utf8').split(' ')[1]);
    const ratio = process.memoryUsage().rss / pages;
    return Number.isFinite(ratio) && ratio > 0 ? 2 ** Math.round(Math.log2(ratio)) : 4096;
  } catch {
    return 4096;
  }
}

export class AttemptWatchdog {
  #activity: Watch | null = null;
  /** The last call of each case, the most recent last. */
  readonly #lastCalls = new Map<string, Watch>();
  #stopped = false;
  #overran: Watch | null = null;
  #overMemory: number | null = null;
  readonly #child: ChildProcess;
  readonly #limitScale: number | undefined;
  #timer: NodeJS.Timeout | null = null;
  readonly #memoryTimer: NodeJS.Timeout;

  /** `inFlight()` says whether a request of the judge waits for its answer (the memory poll waits then, a while). */
  constructor(child: ChildProcess, memoryBytes: number, limitScale: number | undefined, inFlight: () => boolean) {
    this.#child = child;
    this.#limitScale = limitScale;
    this.#memoryTimer = this.#pollMemory(memoryBytes, inFlight);
  }

  /** What the runner is watched for now (null: nothing is running, or the runner is between calls). */
  get activity(): Watch | null {
    return this.#activity;
  }

  /**
   * The last call into lab or learner code it watched of each case (a set-up, a check call, a sample, a teardown; not
   * the judge's requests between samples), kept after the call ended, the most recent first.
   */
  get lastCalls(): Watch[] {
    return [...this.#lastCalls.values()].reverse();
  }

  /** What overran its limit: the runner was ended for it. */
  get overran(): Watch | null {
    return this.#overran;
  }

  /** The run's anonymous resident memory when it passed the limit, in bytes: the runner was ended for it. */
  get overMemory(): number | null {
    return this.#overMemory;
  }

  /** Watches `next` (ends the runner past its limit), or, with null, nothing. */
  watch(next: Watch | null): void {
    this.#clearTimer();
    this.#activity = next;
    if (next !== null && next.activity.stage !== 'between') {
      this.#lastCalls.delete(next.activity.caseKey);
      this.#lastCalls.set(next.activity.caseKey, next);
    }
    // Once the runner has ended, what its last messages announce is only recorded (no timer kills a group that is gone).
    if (next === null || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#overran = next;
      killGroup(this.#child, 'SIGKILL');
    }, effectiveLimitMs(next.limitMs, this.#limitScale));
  }

  /** Stops both watches (the runner has ended). */
  stop(): void {
    this.#stopped = true;
    this.#clearTimer();
    clearInterval(this.#memoryTimer);
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * Memory: the anonymous resident memory of every process of the run, polled (RLIMIT_AS and RLIMIT_DATA count V8's
   * reservations; see os-sandbox.ts). Anonymous: the node binary's and the libraries' pages are shared by every
   * process of a pool and counted by none. A run that touches memory faster than the poll may pass the limit briefly.
   */
  #pollMemory(memoryBytes: number, inFlight: () => boolean): NodeJS.Timeout {
    const child = this.#child;
    const page = pageBytes();
    let lastPoll = performance.now();
    const timer = setInterval(() => {
      if (child.pid === undefined || this.#overMemory !== null) return;
      // A runner the judge stopped (runner-freeze.ts) cannot grow, and a graded run's 10 idle runners' scans (about
      // 2 ms of this process's CPU each, 20 a second) fell inside the samples of the one being timed.
      if (isStopped(child.pid)) return;
      if (inFlight() && performance.now() - lastPoll < MEMORY_POLL_DEFER_MS) return;
      lastPoll = performance.now();
      const processes = runProcesses(child.pid);
      if (!processes) return;
      const bytes = processes.reduce((sum, p) => sum + anonymousPages(p.pid), 0) * page;
      if (bytes > memoryBytes) {
        this.#overMemory = bytes;
        killGroup(child, 'SIGKILL');
      }
    }, MEMORY_POLL_MS);
    timer.unref();
    return timer;
  }
}
