/**
 * The harness's one helper for child processes: every process a lab or the harness forks ends by itself when its
 * parent goes away, so a killed harness (SIGKILL, a Slurm job cancelled, a closed laptop lid) never leaves servers
 * listening or pools spinning.
 *
 * Two signals tell a child its parent is gone:
 * - the IPC channel closes ('disconnect'): immediate, but only noticed while the child's event loop runs;
 * - the parent PID changes (the child was re-parented to init or a subreaper): polled by a small watchdog thread,
 *   whose own event loop keeps running while learner code blocks the child's main thread in a synchronous loop.
 *   Node has no prctl(PR_SET_PDEATHSIG); a worker thread polling `process.ppid` is the portable stand-in.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { ChildCrashedError, ChildStartError } from './errors.ts';

export { ChildCrashedError, ChildStartError };

/**
 * How long a child may take to say it is ready, in ms, unless its caller knows better: a cold Node start, loading
 * TypeScript, then the child's own set-up (starting pool threads, loading a model). A lab's servers and devices use it.
 */
const CHILD_START_TIMEOUT_MS = 60_000;
/** How long a child may take to exit after it is asked to close, in ms, before it is killed. */
export const CHILD_CLOSE_TIMEOUT_MS = 10_000;

/** How often the watchdog thread looks at the parent PID, in ms. A killed harness's children are gone within it. */
const PARENT_POLL_MS = 250;

/** The exit code of a child that ended because its parent went away (EX_UNAVAILABLE in sysexits.h). */
const EXIT_PARENT_GONE = 69;

// CommonJS in an eval'd worker: the smallest thread that can watch (no module graph to load).
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.ppid) process.kill(process.pid, 'SIGKILL');
}, workerData.pollMs);
`;

export interface ExitWithParentOptions {
  /**
   * Also end the process when its main thread is blocked (learner code in a synchronous loop) by watching the parent
   * PID from a worker thread. Costs one thread (a few MiB); leave it off in children whose memory is being measured.
   */
  evenIfBlocked?: boolean;
}

let installed = false;
let leaving = false;

/**
 * Closes the IPC channel on purpose (after a clean shutdown): the process then exits with its own exit code once
 * queued messages are out, instead of EXIT_PARENT_GONE.
 */
export function leaveParent(): void {
  leaving = true;
  process.disconnect?.();
}

/** Makes this process exit when its parent goes away. Idempotent; a no-op in a process that was not forked. */
export function exitWithParent(options: ExitWithParentOptions = {}): void {
  if (installed || !process.send) return;
  installed = true;
  process.on('disconnect', () => process.exit(leaving ? Number(process.exitCode ?? 0) : EXIT_PARENT_GONE));
  if (options.evenIfBlocked) {
    const watchdog = new Worker(WATCHDOG_SOURCE, {
      eval: true,
      workerData: { ppid: process.ppid, pollMs: PARENT_POLL_MS },
      // The watchdog needs none of the parent's flags or stdio.
      stdout: false,
      stderr: false,
      env: {},
    });
    watchdog.unref();
  }
}

export interface StartChildOptions<Message, Ready extends Message> {
  /** Absolute path of the child's entry point (it calls exitWithParent()). */
  script: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Default [] : a child must not inherit the parent's flags (the test runner's, --cpu-prof...). */
  execArgv?: string[];
  serialization?: 'json' | 'advanced';
  /** What the child is, for messages: "the pool server", "device 0 (cpu)". */
  name: string;
  /** Default CHILD_START_TIMEOUT_MS. */
  startTimeoutMs?: number;
  /** The child's "I am ready" message. */
  isReady(message: Message): message is Ready;
  /** The reason in the child's "I could not start" message, or null for any other message. */
  startFailure?(message: Message): string | null;
  /** Where the child's stdout goes (its stderr is captured for messages, and forwarded when `forwardStderr`). */
  stdout?: 'inherit' | 'ignore';
  forwardStderr?: boolean;
  /** Called right after fork(), before the child is ready (a pool that counts its processes while they start). */
  onSpawn?(child: ChildProcess): void;
}

export interface ChildHandle<Ready> {
  child: ChildProcess;
  ready: Ready;
  /** ms from fork() to the ready message. */
  startupMs: number;
  /** The last lines the child wrote to stderr (at most 4,000 characters). */
  stderrTail(): string;
  /** Resolves when the child has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `closeMessage` (if any), waits up to `timeoutMs` (default CHILD_CLOSE_TIMEOUT_MS) for the child to exit, then kills it. */
  close(closeMessage?: unknown, timeoutMs?: number): Promise<void>;
}

const STDERR_TAIL_CHARS = 4000;

/**
 * Forks a child and waits for its ready message: the one way the labs start processes (event-loop servers,
 * task-granularity's process pool, gpu-batching's devices). Rejects with a ChildStartError naming the child, the
 * reason and its last stderr lines; a child that did not start is never left running.
 */
export function startChild<Message, Ready extends Message>(options: StartChildOptions<Message, Ready>): Promise<ChildHandle<Ready>> {
  const started = performance.now();
  const child = fork(options.script, options.args ?? [], {
    execArgv: options.execArgv ?? [],
    env: options.env ?? process.env,
    ...(options.serialization ? { serialization: options.serialization } : {}),
    stdio: ['ignore', options.stdout ?? 'ignore', 'pipe', 'ipc'],
  });
  options.onSpawn?.(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (options.forwardStderr) process.stderr.write(chunk);
    stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  const tail = () => stderr.trim().split('\n').slice(-6).join('\n');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const close = async (closeMessage?: unknown, timeoutMs = CHILD_CLOSE_TIMEOUT_MS) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (closeMessage !== undefined && child.connected) child.send(closeMessage as never);
    else child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    // `own`: the child's own failure message, passed on as it is (it names the problem, e.g. "not implemented: ...").
    const fail = (why: string, own = false) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.kill('SIGKILL');
      const lines = tail();
      reject(new ChildStartError(own ? why : `${options.name} did not start: ${why}${lines ? `\n${lines}` : ''}`));
    };
    const startTimeoutMs = options.startTimeoutMs ?? CHILD_START_TIMEOUT_MS;
    const timer = setTimeout(() => fail(`no ready message within ${startTimeoutMs / 1000} s`), startTimeoutMs);
    const onMessage = (message: Message) => {
      const failure = options.startFailure?.(message) ?? null;
      if (failure !== null) return fail(failure, true);
      if (!options.isReady(message)) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve({ child, ready: message, startupMs: performance.now() - started, stderrTail: tail, exited, close });
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => fail(`it exited during start-up (${signal ? `killed by ${signal}` : `exit code ${code}`})`);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export interface RunScriptOptions {
  /** Absolute path of a Node script (a .ts file runs on this Node); it runs with no flags of this process. */
  script: string;
  args?: string[];
  /** The child is killed (SIGTERM) after this many ms. */
  timeoutMs: number;
  /** Most bytes of stdout kept; a child that writes more is killed. Default 16 MiB. */
  maxOutputBytes?: number;
  /** The Node binary that runs it; default this process's (a caller on an older Node names one that runs .ts files). */
  node?: string;
  /** Its working directory; default this process's. */
  cwd?: string;
  /** Its whole environment; default this process's. */
  env?: NodeJS.ProcessEnv;
}

export interface ScriptOutcome {
  /** Everything the script wrote to stdout (UTF-8). */
  stdout: string;
  /** The last lines it wrote to stderr (at most 4,000 characters). */
  stderrTail: string;
  /** Its exit code; null when it was killed. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** True when it was killed for running past `timeoutMs`. */
  timedOut: boolean;
}

/**
 * Runs a Node script to its end, synchronously, and returns what it wrote: for a caller that must stay synchronous
 * (the site's build reads its runs and plans its tables while it renders) and wants a bounded child rather than the
 * work in its own process. Nothing is inherited but the environment (or the one given) and the working directory;
 * stdin is closed. Never throws for the child's failure: the outcome says how it ended, and the caller words the
 * message.
 */
export function runScriptSync(options: RunScriptOptions): ScriptOutcome {
  const result = spawnSync(options.node ?? process.execPath, [options.script, ...(options.args ?? [])], {
    encoding: 'utf8',
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    timeout: options.timeoutMs,
    maxBuffer: options.maxOutputBytes ?? 16 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const timedOut = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  return {
    stdout: result.stdout ?? '',
    stderrTail: (result.stderr ?? '').slice(-STDERR_TAIL_CHARS),
    exitCode: result.status,
    signal: result.signal,
    timedOut,
  };
}
