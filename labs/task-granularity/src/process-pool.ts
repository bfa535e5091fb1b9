/**
 * A small pool of child processes for the same chunk tasks piscina runs on threads: the "processes" side of
 * Dask's threads-vs-processes choice. Each child is a whole Node process (its own heap, its own event loop, its own
 * copy of the code); tasks and results travel as JSON over a pipe.
 *
 * Faults: a task that throws is rejected with the child's message; a child that dies rejects the task it was
 * running with a TaskCrashedError naming the task, and is replaced, so the pool carries on. close() kills every child
 * and waits for each to exit: no process is left behind.
 */
import type { ChildProcess } from 'node:child_process';
import { startChild } from '@parallel-course/harness';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FromChild, ToChild } from './process-protocol.ts';
import { describeTask, type FaultyChunkTask, type TaskRunner } from './task-runner.ts';

const WORKER_SCRIPT = fileURLToPath(new URL('./process-worker.ts', import.meta.url));

/** How long a child may take to start and say 'ready', in ms: a cold Node start with type stripping is ~100 ms here. */
const START_TIMEOUT_MS = 30_000;
/** Replacements a pool forks over its life before it gives up (a worker script that crashes on start-up). */
const MAX_RESPAWNS = 20;

export interface ProcessPoolOptions {
  workers: number;
}

/** A child process exited (crashed, was killed, or called process.exit) while it was running a task. */
export class TaskCrashedError extends Error {
  readonly code = 'TASK_CRASHED';
  readonly task: FaultyChunkTask;
  constructor(task: FaultyChunkTask, pid: number | undefined, how: string) {
    super(`process worker (pid ${pid}) ${how} while running the task for ${describeTask(task)}`);
    this.name = 'TaskCrashedError';
    this.task = task;
  }
}

interface Pending {
  id: number;
  task: FaultyChunkTask;
  resolve: (counts: number[]) => void;
  reject: (error: Error) => void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  busy: Pending | null;
  exited: Promise<void>;
}

/** Resident set size of a process in MiB, from /proc (Linux); null elsewhere. */
export function residentMiB(pid: number | undefined): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export class ProcessPool implements TaskRunner {
  readonly workers: number;
  /** Per child: ms from fork() to its 'ready' message (a cold Node start plus loading the worker's modules). */
  readonly startupMs: number[] = [];
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private respawns = 0;
  private closing = false;
  private readonly starting = new Set<Promise<void>>();
  private computeNs = 0;

  private constructor(options: ProcessPoolOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) {
      throw new RangeError(`options.workers must be a positive integer, got ${options.workers}`);
    }
    this.workers = options.workers;
  }

  /** Starts the pool and resolves once every child is ready. */
  static async start(options: ProcessPoolOptions): Promise<ProcessPool> {
    const pool = new ProcessPool(options);
    try {
      await Promise.all(Array.from({ length: pool.workers }, () => pool.spawn()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** Resident memory of each child, in MiB (Linux only; empty elsewhere). */
  memoryMiB(): number[] {
    return this.slots.map((s) => residentMiB(s.child.pid)).filter((m): m is number => m !== null);
  }

  /** Compute time the children reported since the last reset, in ns (the process side of busy-clock.ts). */
  busyNs(): number {
    return this.computeNs;
  }

  resetBusyNs(): void {
    this.computeNs = 0;
  }

  /** Process ids of the children, for tests that check nothing is left behind. */
  pids(): number[] {
    return this.slots.map((s) => s.child.pid).filter((p): p is number => p !== undefined);
  }

  run(task: FaultyChunkTask): Promise<number[]> {
    if (this.closing) return Promise.reject(new Error('the process pool is closed: start a new one with ProcessPool.start()'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.dispatch();
    });
  }

  /** Kills every child and waits until each has exited. Queued tasks are rejected. */
  async close(): Promise<void> {
    this.closing = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('the process pool was closed before this task ran'));
    await Promise.allSettled([...this.starting]);
    for (const slot of this.slots) slot.child.kill('SIGTERM');
    await Promise.all(this.slots.map((s) => s.exited));
  }

  /** Starts one child; close() waits for starts in progress, so no child is left behind. */
  private spawn(): Promise<void> {
    const start = this.startOne();
    this.starting.add(start);
    const forget = () => this.starting.delete(start);
    start.then(forget, forget);
    return start;
  }

  private async startOne(): Promise<void> {
    // The slot is counted from fork() on, so pids() and close() see a child that is still starting.
    let starting: Slot | null = null;
    let handle;
    try {
      handle = await startChild<FromChild, Extract<FromChild, { type: 'ready' }>>({
        script: WORKER_SCRIPT,
        name: 'a process worker',
        startTimeoutMs: START_TIMEOUT_MS,
        isReady: (m): m is Extract<FromChild, { type: 'ready' }> => m.type === 'ready',
        stdout: 'inherit',
        forwardStderr: true,
        onSpawn: (spawned) => {
          starting = { child: spawned, ready: false, busy: null, exited: new Promise<void>((resolve) => spawned.once('exit', () => resolve())) };
          this.slots.push(starting);
        },
      });
    } catch (error) {
      const failed = starting as Slot | null;
      if (failed) this.slots.splice(this.slots.indexOf(failed), 1);
      throw error;
    }
    const { child } = handle;
    const slot = starting as unknown as Slot;
    slot.ready = true;
    this.startupMs.push(handle.startupMs);
    if (this.closing) {
      child.kill('SIGTERM');
      await handle.exited;
      return;
    }
    child.on('message', (message: FromChild) => {
      if (message.type === 'ready') return;
      const pending = slot.busy;
      if (!pending || pending.id !== message.id) return;
      slot.busy = null;
      if (message.type === 'result') {
        this.computeNs += message.computeNs;
        pending.resolve(message.counts);
      } else {
        pending.reject(new Error(message.message));
      }
      this.dispatch();
    });
    child.on('exit', (code, signal) => {
      this.slots.splice(this.slots.indexOf(slot), 1);
      const pending = slot.busy;
      slot.busy = null;
      if (pending) pending.reject(new TaskCrashedError(pending.task, child.pid, signal ? `was killed by ${signal}` : `exited with code ${code}`));
      // Isolation: one child's death costs only its task; a replacement takes its place and the queue goes on.
      // A child that cannot even start would be replaced forever: after MAX_RESPAWNS the queue is rejected instead.
      if (this.closing) return;
      if (this.respawns++ < MAX_RESPAWNS) {
        this.spawn().catch(() => {
          if (this.slots.length === 0) for (const queued of this.queue.splice(0)) queued.reject(new Error('every process worker died and no replacement started'));
        });
      } else if (this.slots.length === 0) {
        for (const queued of this.queue.splice(0)) queued.reject(new Error('every process worker died and the pool stopped replacing them'));
      }
    });
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy || !slot.ready || !slot.child.connected) continue;
      const pending = this.queue.shift() as Pending;
      slot.busy = pending;
      slot.child.send({ type: 'task', id: pending.id, task: pending.task } satisfies ToChild);
    }
  }
}
