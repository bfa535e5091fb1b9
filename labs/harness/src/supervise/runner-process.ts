/**
 * The judged runner's process (run-child.ts): started inside the OS sandbox when one can start (os-sandbox.ts
 * bwrapCommand, Node's permissions from sandbox.ts), in a process group of its own so one kill ends it and everything
 * it started; its output passed through to the terminal within the run's limit, the tail of its stderr kept for the
 * message when it dies; its exit read through bwrap's.
 * Input: the job, the sandbox's command and limits. Output: the process, its stderr tail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bwrapCommand, sandboxEnv, type SandboxLimits } from './os-sandbox.ts';
import type { RunJob } from '../measure/run-protocol.ts';
import { continueRunner } from '../measure/runner-freeze.ts';

const RUN_CHILD = fileURLToPath(new URL('../measure/run-child.ts', import.meta.url));

/** Bytes of the runner's stderr kept for the message when it dies. */
const STDERR_TAIL_BYTES = 4096;

/** How a runner is walled in: Node's flags (sandbox.ts), its own temp folder, the OS sandbox (null: none) and its limits. */
export interface RunnerSandbox {
  execArgv: string[];
  tmpDir: string;
  wall: Parameters<typeof bwrapCommand>[0] | null;
  limits: SandboxLimits;
}

export interface RunnerProcess {
  child: ChildProcess;
  /** The last STDERR_TAIL_BYTES of what the runner wrote to stderr. */
  stderrTail(): string;
}

/**
 * Ends the runner's process group (the runner, or bwrap and with it its PID namespace, and all they started), and
 * continues what the judge had stopped of it (runner-freeze.ts): a stopped process acts on SIGTERM only once continued.
 */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
  continueRunner(child.pid);
}

/**
 * How long the supervisor waits, after the runner's exit, for its channel to be read to the end, in ms. A process
 * the runner started that holds the channel open (outside the OS sandbox, one that left its process group) delays the
 * end; everything the runner sent is in the socket by its exit, read at the next turn of the event loop.
 */
const CHANNEL_READ_MS = 2_000;

/**
 * Resolves once every message the runner sent has been read: Node emits 'exit' when the process ends, which may come
 * before it has read the channel's last messages ('disconnect' comes at its end), or after CHANNEL_READ_MS and one turn
 * of the event loop (what is in the socket is read then) when another process holds the channel open.
 */
export function channelRead(child: ChildProcess): Promise<void> {
  if (!child.connected) return Promise.resolve();
  return new Promise((resolve) => {
    const read = () => {
      clearTimeout(timer);
      child.off('disconnect', read);
      resolve();
    };
    const timer = setTimeout(() => setImmediate(read), CHANNEL_READ_MS);
    child.once('disconnect', read);
  });
}

/** Starts the runner for `job`; with `forwardOutput`, its stdout and stderr go on to this process's, `notes` told when cut. */
export function startRunner(job: RunJob, sandbox: RunnerSandbox, forwardOutput: boolean, notes: string[]): RunnerProcess {
  // Not the parent's flags (`node -e <script>` would run the script again instead of the runner): the sandbox's.
  const command = [process.execPath, ...sandbox.execArgv, RUN_CHILD, JSON.stringify(job)];
  const launch = sandbox.wall ? bwrapCommand(sandbox.wall, command) : { file: command[0] as string, args: command.slice(1) };
  const child = spawn(launch.file, launch.args, {
    cwd: job.rootDir,
    env: sandbox.wall ? sandboxEnv(process.env, sandbox.tmpDir) : { ...process.env, TMPDIR: sandbox.tmpDir },
    detached: true, // its own process group: one kill ends the runner (or bwrap, and with it its PID namespace)
    stdio: ['ignore', forwardOutput ? 'pipe' : 'ignore', 'pipe', 'ipc'],
    // Structured clone on the channel: a sample's output (a typed array) arrives as it was sent, for the judge's check.
    serialization: 'advanced',
  });
  const limit = sandbox.limits.outputBytes;
  child.stdout?.on('data', forwardOutput ? passThrough('stdout', process.stdout, limit, notes) : () => {});
  const forwardStderr = forwardOutput ? passThrough('stderr', process.stderr, limit, notes) : () => {};
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    forwardStderr(chunk);
    stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_BYTES);
  });
  return { child, stderrTail: () => stderrTail };
}

/** Output passed through to the terminal, capped at `limit` bytes per stream (learner code may print without end). */
function passThrough(name: 'stdout' | 'stderr', target: NodeJS.WriteStream, limit: number, notes: string[]): (chunk: Buffer) => void {
  let passed = 0;
  return (chunk) => {
    if (passed >= limit) return;
    const part = chunk.subarray(0, limit - passed);
    target.write(part);
    passed += part.length;
    if (passed >= limit) {
      target.write(`\n[output truncated: the lab process wrote more than ${limit} bytes to ${name}; the rest is not shown]\n`);
      notes.push(`Output truncated: the lab process wrote more than ${limit} bytes to ${name}.`);
    }
  };
}

/** The runner's exit as the runner's own: bwrap ends with 128 + N when the runner was killed by signal N. */
export function runnerExit(code: number | null, signal: NodeJS.Signals | null, walled: boolean): { code: number | null; signal: NodeJS.Signals | null } {
  if (walled && signal === null && code !== null && code > 128 && code < 128 + 65) {
    const name = Object.entries(os.constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name) return { code: null, signal: name as NodeJS.Signals };
  }
  return { code, signal };
}
