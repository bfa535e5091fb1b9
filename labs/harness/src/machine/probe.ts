/**
 * The one way the harness and the labs run an external command (nvidia-smi, git, a compiler, a probe script): bounded
 * in time and in output whatever the command does, so a hung driver costs a known delay and a clear line, never a
 * hang, and nothing it prints reaches the terminal raw.
 *
 * - The command runs in its own process group (detached). On timeout the whole group gets SIGTERM, then SIGKILL after
 *   a grace period: a script's children (a `sleep`, a helper) go with it, even when the script ignores SIGTERM.
 * - The promise settles whatever the pipes do: a grandchild that inherited stdout cannot keep it waiting (the streams
 *   are destroyed), and a process that SIGKILL cannot end yet (stuck in the kernel, state D: what a hung GPU driver
 *   does) is abandoned after one more grace period. Worst case: timeoutMs + 2 x graceMs.
 * - At most maxBytes of stdout and of stderr are kept (the rest is read and dropped, so the command never blocks on
 *   a full pipe), decoded as UTF-8, with terminal escape sequences and control characters removed.
 * - It never rejects: a command that cannot be started resolves with `error` ('ENOENT', 'EACCES', ...).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { formatSeconds, terminalText } from '@parallel-course/core';

/** Defaults: 10 s is what nvidia-smi may take on a node without persistence mode; 1 s to clean up after SIGTERM. */
const DEFAULT_PROBE_TIMEOUT_MS = 10_000;
const DEFAULT_PROBE_GRACE_MS = 1_000;
/** Bytes kept per stream: far more than any probe's answer, small enough to print or store. */
const DEFAULT_PROBE_MAX_BYTES = 64 * 1024;

export interface ProbeOptions {
  /** Time the command may run before its process group gets SIGTERM, in ms. Default 10 000. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL (and the longest wait for pipes or an unkillable process after that), in ms. Default 1 000. */
  graceMs?: number;
  /** The command's environment (PATH in it is where the command is looked up). Default: this process's. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Bytes of stdout and of stderr kept, each. Default 65 536. */
  maxBytes?: number;
}

export interface ResolvedProbeOptions {
  timeoutMs: number;
  graceMs: number;
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  maxBytes: number;
}

export interface ProbeResult {
  /** It exited by itself, with status 0, within the time limit. */
  ok: boolean;
  /** Sanitised (terminalText, multiline) and capped output. */
  stdout: string;
  stderr: string;
  /** Exit status, or null when it was ended by a signal, never exited, or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** It overran timeoutMs and its process group was killed. */
  timedOut: boolean;
  /** Why it could not be started or waited for: an errno code ('ENOENT', 'EACCES') or a message; null otherwise. */
  error: string | null;
  /** More than maxBytes arrived on stdout or stderr; the rest was dropped. */
  truncated: boolean;
  /** The time limit it ran under, and how long it took to settle, in ms. */
  timeoutMs: number;
  elapsedMs: number;
}

function checkNumber(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new RangeError(`options.${name} must be a finite number >= ${min}, got ${String(value)}`);
  }
  return value;
}

/** Fills in the defaults; throws a RangeError naming the option and the rule for a bad value. */
export function resolveProbeOptions(options: ProbeOptions = {}): ResolvedProbeOptions {
  const maxBytes = checkNumber('maxBytes', options.maxBytes, DEFAULT_PROBE_MAX_BYTES, 0);
  if (!Number.isInteger(maxBytes)) throw new RangeError(`options.maxBytes must be a whole number of bytes, got ${maxBytes}`);
  return {
    timeoutMs: checkNumber('timeoutMs', options.timeoutMs, DEFAULT_PROBE_TIMEOUT_MS, 1),
    graceMs: checkNumber('graceMs', options.graceMs, DEFAULT_PROBE_GRACE_MS, 0),
    env: options.env ?? process.env,
    cwd: options.cwd,
    maxBytes,
  };
}


/** One sanitised line of at most `maxChars` characters (whitespace runs collapsed, an ellipsis where cut). */
export function oneLine(text: string, maxChars = 200): string {
  const line = terminalText(text, { multiline: true, controls: 'drop' }).replace(/\s+/g, ' ').trim();
  return line.length <= maxChars ? line : `${line.slice(0, Math.max(0, maxChars - 1))}…`;
}

/**
 * One line saying why a probe failed, e.g. "nvidia-smi did not finish within 10 s and was killed",
 * "nvidia-smi exited with status 9: NVIDIA-SMI has failed ..."; null when it succeeded.
 */
export function describeProbeFailure(name: string, result: ProbeResult): string | null {
  if (result.ok) return null;
  if (result.timedOut) return `${name} did not finish within ${formatSeconds(result.timeoutMs)} and was killed`;
  if (result.error === 'ENOENT') return `${name} not found`;
  if (result.error !== null && result.code === null && result.signal === null) return `${name} could not be run: ${oneLine(result.error, 120)}`;
  const said = oneLine(result.stderr.trim().split('\n')[0] ?? '', 160);
  const how = result.signal !== null ? `was ended by ${result.signal}` : `exited with status ${result.code}`;
  return `${name} ${how}${said ? `: ${said}` : ''}`;
}

/** Output of one stream, kept up to a byte limit. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private readonly maxBytes: number;
  truncated = false;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  push(chunk: Buffer): void {
    const room = this.maxBytes - this.bytes;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.bytes += kept.length;
  }

  text(): string {
    return terminalText(Buffer.concat(this.chunks).toString('utf8'), { multiline: true, controls: 'drop' });
  }
}

// Process groups of probes still running: killed when this process (or worker thread) exits, so a probe never outlives it.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // A negative pid signals the whole process group, which the detached child leads. Windows has no groups.
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) killGroup(child, 'SIGKILL');
  });
}

/** Runs `command args` bounded in time and output (see the module comment). Never rejects, except for bad options. */
export function runProbe(command: string, args: readonly string[], options: ProbeOptions = {}): Promise<ProbeResult> {
  const o = resolveProbeOptions(options);
  const started = performance.now();
  const stdout = new CappedOutput(o.maxBytes);
  const stderr = new CappedOutput(o.maxBytes);
  let code: number | null = null;
  let signal: NodeJS.Signals | null = null;
  let error: string | null = null;
  let timedOut = false;
  let exited = false;

  return new Promise<ProbeResult>((resolve) => {
    const finish = (): ProbeResult => {
      const result: ProbeResult = {
        ok: exited && code === 0 && !timedOut && error === null,
        stdout: stdout.text(),
        stderr: stderr.text(),
        code,
        signal,
        timedOut,
        error,
        truncated: stdout.truncated || stderr.truncated,
        timeoutMs: o.timeoutMs,
        elapsedMs: performance.now() - started,
      };
      return result;
    };

    let child: ChildProcess;
    try {
      child = spawn(command, [...args], {
        cwd: o.cwd,
        env: o.env,
        detached: process.platform !== 'win32',
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (spawnError) {
      // Thrown synchronously for arguments spawn refuses (a NUL byte in them, a cwd that is not a string...).
      error = (spawnError as NodeJS.ErrnoException).code ?? (spawnError as Error).message;
      resolve(finish());
      return;
    }

    const timers = new Set<NodeJS.Timeout>();
    const after = (ms: number, fn: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
    };
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      running.delete(child);
      // Pipes a grandchild still holds, and a process that could not be killed, must not keep this process alive.
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.unref();
      resolve(finish());
    };

    running.add(child);
    installExitHook();
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdout?.on('error', () => {});
    child.stderr?.on('error', () => {});
    child.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
      // Not started at all (ENOENT, EACCES): there is no process to wait for.
      if (child.pid === undefined) settle();
    });
    child.on('exit', (exitCode, exitSignal) => {
      exited = true;
      code = exitCode;
      signal = exitSignal;
      // 'close' normally follows at once. When a child the command left behind holds the pipes, wait a grace
      // period for it, then end the group and stop reading.
      after(o.graceMs, () => {
        killGroup(child, 'SIGKILL');
        settle();
      });
    });
    child.on('close', settle);
    after(o.timeoutMs, () => {
      if (exited) return; // it finished in time; only its pipes are still open (handled above)
      timedOut = true;
      killGroup(child, 'SIGTERM');
      after(o.graceMs, () => {
        killGroup(child, 'SIGKILL');
        // SIGKILL cannot be caught, but a process stuck in the kernel dies only when it leaves it: give up waiting.
        after(o.graceMs, settle);
      });
    });
  });
}

/** Extra wait of runProbeSync beyond the probe's own worst case: the helper thread's start-up on a busy machine, in ms. */
const SYNC_SLACK_MS = 10_000;

// An eval'd worker that loads this module, runs the probe and wakes the waiting thread. Only dynamic import(), no
// require: the same text must run as CommonJS and as an ES module (a worker inherits --input-type=module).
const SYNC_WORKER_SOURCE = `
(async () => {
  const { workerData } = await import('node:worker_threads');
  let result;
  try {
    const { runProbe } = await import(workerData.moduleUrl);
    result = await runProbe(workerData.command, workerData.args, workerData.options);
  } catch (error) {
    result = { error: String(error && error.message || error) };
  }
  workerData.port.postMessage(result);
  Atomics.store(workerData.flag, 0, 1);
  Atomics.notify(workerData.flag, 0);
})();
`;

/**
 * runProbe for a caller that must answer synchronously: the probe runs on a helper thread while this thread waits
 * (Atomics.wait), so it keeps every guarantee of runProbe (process-group kill, no wait on pipes or on an unkillable
 * process), which spawnSync does not: after its timeout spawnSync still waits for the process to exit. It costs a
 * thread start (tens of ms) and blocks this thread meanwhile. Prefer runProbe; the one caller is the gpu-batching
 * lab's choice of execution provider, which its synchronous LabDefinition.cases() needs.
 */
export function runProbeSync(command: string, args: readonly string[], options: ProbeOptions = {}): ProbeResult {
  const o = resolveProbeOptions(options);
  const started = performance.now();
  const failed = (why: string, timedOut: boolean): ProbeResult => ({
    ok: false, stdout: '', stderr: '', code: null, signal: null, timedOut, error: why, truncated: false,
    timeoutMs: o.timeoutMs, elapsedMs: performance.now() - started,
  });
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    worker = new Worker(SYNC_WORKER_SOURCE, {
      eval: true,
      workerData: {
        moduleUrl: import.meta.url,
        command,
        args: [...args],
        options: { timeoutMs: o.timeoutMs, graceMs: o.graceMs, env: { ...o.env }, cwd: o.cwd, maxBytes: o.maxBytes },
        flag,
        port: port2,
      },
      transferList: [port2],
    });
  } catch (error) {
    port1.close();
    return failed(`could not start the probe thread: ${(error as Error).message}`, false);
  }
  Atomics.wait(flag, 0, 0, o.timeoutMs + 2 * o.graceMs + SYNC_SLACK_MS);
  const answer = receiveMessageOnPort(port1)?.message as Partial<ProbeResult> | undefined;
  port1.close();
  worker.unref();
  void worker.terminate();
  if (answer === undefined) return failed('the probe thread did not answer', true);
  if (typeof answer.ok !== 'boolean') return failed(String(answer.error ?? 'the probe thread failed'), false);
  return answer as ProbeResult;
}
