/**
 * A graded run's idle runners, stopped by the OS while the judge asks another (issue 42, review session 20): a graded
 * run has 1 + 2F runner processes and the judge asks one at a time, so every other runner is idle and learner code in
 * an idle runner knows it (none of its calls is in flight); it could spin threads to slow whatever is timed meanwhile,
 * the solution's samples. So during the measure stage each runner that the judge is not asking anything is stopped
 * (SIGSTOP to every process of its tree: its group and every descendant, a setsid'd or double-forked child inside
 * bubblewrap included, competing-load.ts runProcesses) and continued (SIGCONT) right before the judge asks it anything
 * (a sample, its outputs, 'between'); both sides alike, so the solution's idle forks are stopped too. A practice run
 * (one runner) is never stopped.
 * The watchdog is not fooled by it: it times only a request in flight, and a runner is continued before its request
 * is sent; the memory poll skips a stopped runner (attempt-watchdog.ts). Every kill of a runner's group continues
 * what was stopped of it (runner-process.ts killGroup: SIGTERM waits for SIGCONT, SIGKILL does not but a process
 * outside the group would stay stopped), and so does this process's exit.
 * Input: the runners' root pids. Output: the processes stopped, by root; the switches' time together (freezeCost).
 */
import { runProcesses } from './competing-load.ts';

/** The processes stopped of each runner (by its root pid), in the order stopped. */
const stopped = new Map<number, number[]>();
let exitHook = false;
/** Every switch of this process's measure stages so far and their time together, in ms (what the docs' cost is measured from). */
export const freezeCost = { switches: 0, ms: 0 };

/** Continues every stopped process of every runner (this process's exit: nothing is left stopped behind it). */
export function continueAll(): void {
  for (const root of [...stopped.keys()]) continueRunner(root);
}

function send(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // ESRCH: it ended
  }
}

/**
 * Stops every process of the runner `root` (its group and descendants), scanning again after each stop until no new
 * process appears (one may fork while the scan reads /proc). False where /proc cannot be read (nothing stopped).
 */
export function stopRunner(root: number): boolean {
  const done = stopped.get(root) ?? [];
  const seen = new Set(done);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', continueAll);
  }
  stopped.set(root, done);
  for (let scan = 0; scan < 100; scan++) {
    const processes = runProcesses(root);
    if (processes === null) return seen.size > 0;
    const fresh = processes.map((p) => p.pid).filter((pid) => !seen.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      seen.add(pid);
      if (send(pid, 'SIGSTOP')) done.push(pid);
    }
  }
  return true;
}

/** Continues what was stopped of the runner `root` (the processes it had when stopped), the root first. */
export function continueRunner(root: number): void {
  const done = stopped.get(root);
  if (!done) return;
  stopped.delete(root);
  for (const pid of done) send(pid, 'SIGCONT');
}

/** Whether any process of the runner `root` is stopped by this file. */
export function isStopped(root: number): boolean {
  return (stopped.get(root)?.length ?? 0) > 0;
}

/** The pids stopped now, every runner's (tests). */
export function stoppedPids(): number[] {
  return [...stopped.values()].flat();
}

/**
 * The judge's switch between the runners of one measure stage: `activate(pid)` before any request to that runner
 * stops the runner asked last (every other is stopped already) and continues this one. Each switch's cost in ms
 * (stop and continue together) is added to `freezeCost`.
 */
export class RunnerFreezer {
  #roots: number[];
  #active: number | null = null;

  /** `roots`: the runners' pids (their process groups); with fewer than two, nothing is ever stopped. */
  constructor(roots: (number | undefined)[]) {
    this.#roots = roots.filter((r): r is number => r !== undefined);
  }

  /** Stops every runner but `first` (the measure stage begins). */
  start(first: number | undefined): void {
    if (this.#roots.length < 2) return;
    const t = performance.now();
    for (const root of this.#roots) if (root !== first) stopRunner(root);
    this.#active = first ?? null;
    this.#took(performance.now() - t);
  }

  /** The judge is about to ask runner `root` something: it runs, the one asked before is stopped. */
  activate(root: number | undefined): void {
    if (this.#roots.length < 2 || root === undefined || root === this.#active) return;
    const t = performance.now();
    if (this.#active !== null) stopRunner(this.#active);
    continueRunner(root);
    this.#active = root;
    this.#took(performance.now() - t);
  }

  #took(ms: number): void {
    freezeCost.switches++;
    freezeCost.ms += ms;
  }

  /** The measure stage is over (or failed): every runner continues. */
  end(): void {
    for (const root of this.#roots) continueRunner(root);
    this.#active = null;
  }
}
