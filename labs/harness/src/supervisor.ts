/**
 * The supervisor: runs the runner (run-child.ts) in a child process of its own process group and bounds every call
 * the runner announces. The harness's own event loop is never the one learner code can block.
 *
 * When a call overruns its limit, or the runner ends without finishing (`process.exit` in learner code, a native
 * crash, an uncaught error), the whole process group is killed (the lab's servers and pools with it), the case that
 * was running fails with the reason and the learner file named, and the run starts again without that case, as
 * JMH forks a fresh JVM: no state of the failed attempt colours the next. Each attempt drops at least one more
 * variant, so a run ends after at most MAX_ATTEMPTS attempts.
 *
 * SIGINT, SIGTERM and SIGHUP end the runner's process group and the run; nothing is written (run-lab.ts says so).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSandboxNeeds, sandboxExecArgv, sandboxGrants } from './sandbox.ts';
import { bwrapCommand, probeOsSandbox, sandboxEnv, sandboxLimits, type OsSandboxProbe, type SandboxLimits } from './os-sandbox.ts';
import { competingLoadNote, readCpuSnapshot, roundLoad, runProcesses, type CpuSnapshot, type RoundLoad } from './competing-load.ts';
import { caseLabel, type CorrectnessEntry, type RawObservation, type SampleUnit } from '@parallel-course/core';
import type { Activity, CaseInfo, LabInfo, RunJob, RunnerMessage } from './run-protocol.ts';
import { changedFiles, fingerprintFiles } from './reference-fingerprint.ts';

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

const RUN_CHILD = fileURLToPath(new URL('./run-child.ts', import.meta.url));

/** Extra time the supervisor allows past a call's limit, in ms: the runner's own timeouts answer first when they can. */
export const LIMIT_GRACE_MS = 5_000;
/**
 * Attempts of one run at most. Each attempt after the first runs without the variant whose case ended the process
 * before it, so a lab with V variants needs at most V + 1; this caps the time a badly broken exercise costs.
 */
export const MAX_ATTEMPTS = 5;
/** How long SIGTERM'd processes get before SIGKILL when the run is interrupted, in ms. */
export const INTERRUPT_GRACE_MS = 1_500;
/** Bytes of the runner's stderr kept for the message when it dies. */
const STDERR_TAIL_BYTES = 4096;
/** How often the supervisor reads the resident memory of the run's processes, in ms (one scan of /proc: about 1 ms per 100 processes). */
export const MEMORY_POLL_MS = 500;
/** Lab notes kept from the runner's `notes` message (a lab has a handful). */
const MAX_LAB_NOTES = 40;
/** The flag that lets an instructor grade trusted code where no OS sandbox can start. */
export const TRUSTED_CODE_FLAG = '--trusted-code';

export type { LabInfo };

export interface MeasuredData {
  samplesMs: number[];
  sampleRounds: number[];
  observations: Record<string, RawObservation>;
  workPerSample: { amount: number; unit: string };
  sample: SampleUnit;
}

export interface SupervisedRun {
  /** The run's declarations, as given (SuperviseOptions.lab), with the lab's notes as the runner computed them. */
  lab: LabInfo;
  /** One entry per case that was checked, in the lab's case order. */
  correctness: CorrectnessEntry[];
  /** Cases measured without failing, by case key. */
  measured: Map<string, MeasuredData>;
  harnessOverheadMs: number | null;
  /** A failure that is not one case's (the lab does not load): the run has no results. */
  fatal: { kind: 'usage' | 'internal'; message: string } | null;
  /** The signal that interrupted the run, if one did. */
  interrupted: NodeJS.Signals | null;
  /** What the supervisor did that a reader should know (restarts, a teardown that was cut short, competing load). */
  notes: string[];
  /** What other processes used while each round's cases were timed, by round (Linux; empty elsewhere). */
  competingCpus: Map<number, RoundLoad>;
}

export interface SuperviseOptions {
  job: Omit<RunJob, 'exclude'>;
  /** The run's declarations, from this process's own load of the lab (run-cases.ts); the runner computes the same. */
  lab: LabInfo;
  /** Forward the runner's stdout and stderr to this process's (off in tests). */
  forwardOutput?: boolean;
  onProgress?(progress: Extract<RunnerMessage, { type: 'progress' }>): void;
  /** Told when something is stopped or restarted, as one line (for the terminal). */
  onEvent?(line: string): void;
  /** Multiplies every announced limit, grace included (tests shorten limits; default 1). */
  limitScale?: number;
  /** Ends the run as SIGTERM would (--watch stops a check this way when it closes). */
  stop?: AbortSignal;
  /**
   * `--trusted-code`: grade even where no OS sandbox can start (an instructor's own code, a machine without user
   * namespaces). Without it a graded job there ends at once: "not sandboxed: not a grade".
   */
  trustedCode?: boolean;
  /** Overrides the run's limits (tests use small ones). */
  limits?: Partial<SandboxLimits>;
}

/** How the runner is walled in: bubblewrap (os-sandbox.ts) or the permission model alone, and why. */
export function osSandboxNote(probe: OsSandboxProbe, limits: SandboxLimits): string {
  const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  return probe.available
    ? `Sandbox: bubblewrap (no network, its own PID namespace, a read-only view of the course, a private temp folder; at most ${gib(limits.memoryBytes)} of memory, ` +
        `${limits.cpuSeconds} CPU s per process, ${limits.processes} processes and threads, ${limits.outputBytes / 2 ** 20} MiB of output per stream) and Node's permission model.`
    : `Sandbox: Node's permission model only, no OS sandbox (${probe.reason}); at most ${gib(limits.memoryBytes)} of memory. A practice run; a grade needs the sandbox.`;
}

/** The message of a graded job where no OS sandbox can start. */
export function notSandboxedMessage(reason: string): string {
  return (
    `not sandboxed: not a grade. bubblewrap cannot wall in the learner's code here (${reason}). ` +
    `Practise without --grade, grade on a Linux machine with bubblewrap (apt install bubblewrap), or, as an instructor grading code you trust, pass ${TRUSTED_CODE_FLAG}.`
  );
}

/** The time a call may take before the supervisor ends the runner, in ms. */
export function effectiveLimitMs(limitMs: number, scale = 1): number {
  return Math.max(1, Math.round((limitMs + LIMIT_GRACE_MS) * scale));
}

function describeActivity(activity: Activity, info: CaseInfo | undefined): string {
  const label = info ? caseLabel(info) : activity.caseKey;
  switch (activity.stage) {
    case 'setup':
      return `setting up ${label}`;
    case 'check':
      return `checking ${label} on input #${activity.input}`;
    case 'warm-up':
      return `warming up ${label}`;
    case 'measure':
      return `measuring ${label} (round ${activity.round + 1})`;
    case 'teardown':
      return `tearing down ${label}`;
  }
}

function failedEntry(info: CaseInfo, reason: string, previous: CorrectnessEntry | undefined, stage: NonNullable<CorrectnessEntry['failedAt']>['stage'], sample: number | null): CorrectnessEntry {
  return {
    variant: info.variant,
    params: info.params,
    passed: false,
    comparator: previous?.comparator ?? 'not compared',
    reason: reason.slice(0, 2000),
    notImplemented: false,
    firstMismatch: previous?.firstMismatch ?? null,
    maxAbsError: previous?.maxAbsError ?? null,
    maxRelError: previous?.maxRelError ?? null,
    inputsChecked: previous?.inputsChecked ?? 0,
    failedAt: { stage, sample },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Runs a job under supervision; never throws for anything learner code does. */
export async function supervise(options: SuperviseOptions): Promise<SupervisedRun> {
  const run: SupervisedRun = { lab: options.lab, correctness: [], measured: new Map(), harnessOverheadMs: null, fatal: null, interrupted: null, notes: [], competingCpus: new Map() };
  const entries = new Map<string, CorrectnessEntry>();
  const failedKeys = new Set<string>();
  let current: ChildProcess | null = null;

  const onSignal = (signal: NodeJS.Signals) => {
    run.interrupted ??= signal;
    if (current) {
      const child = current;
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), INTERRUPT_GRACE_MS).unref();
    }
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  const onStop = () => onSignal('SIGTERM');
  if (options.stop?.aborted) onStop();
  options.stop?.addEventListener('abort', onStop);
  // The runner's own temp folder: with the lab's declared folders, the only place its code may write (sandbox.ts).
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), `lab-run-${options.job.lab}-`));
  // Also on a signal that ends this process before the finally below runs (SIGTERM from scancel or a --time limit).
  const removeTmpDir = () => rmSync(tmpDir, { recursive: true, force: true });
  process.once('exit', removeTmpDir);
  const needs = readSandboxNeeds(options.job.rootDir, options.job.lab);
  // A folder granted to the runner must exist when it starts: Node resolves the grants then (a missing one is a file).
  for (const w of needs.writes) mkdirSync(path.join(options.job.rootDir, 'labs', options.job.lab, w), { recursive: true });
  const sandboxOptions = { rootDir: options.job.rootDir, lab: options.job.lab, impl: options.job.impl, grade: options.job.grade === true, tmpDir, needs };
  const execArgv = sandboxExecArgv(sandboxOptions);
  const probe = probeOsSandbox();
  const limits = { ...sandboxLimits(options.job.availableParallelism, options.lab.memoryBytes), ...options.limits };
  const wall = probe.available ? { probe, grants: sandboxGrants(sandboxOptions), needs, limits, cwd: options.job.rootDir } : null;
  run.notes.push(osSandboxNote(probe, limits));
  if (!probe.available && options.job.grade && !options.trustedCode) {
    run.fatal = { kind: 'usage', message: notSandboxedMessage(probe.reason) };
  } else if (!probe.available && options.job.grade) {
    run.notes.push(`Graded without an OS sandbox (${TRUSTED_CODE_FLAG}): the code was trusted, not walled in.`);
  }

  // The reference's build outputs (native addons built from solutions/<lab>), fingerprinted before any learner code
  // runs and again after the run: the grade is a ratio to the reference only if it ran what was built.
  const referenceBuild = options.job.grade ? fingerprintFiles(options.lab.referenceBuildOutputs) : null;
  try {
    for (let attempt = 1; !run.interrupted && !run.fatal; attempt++) {
      const job: RunJob = { ...options.job, exclude: [...failedKeys], caseKeys: options.lab.cases.map((c) => c.key), ...(options.limitScale !== undefined ? { limitScale: options.limitScale } : {}) };
      const outcome = await runAttempt(job, options, run, entries, (child) => (current = child), { execArgv, tmpDir, wall, limits });
      current = null;
      if (outcome.kind === 'finished' || run.fatal || run.interrupted) break;
      // A case ended the process: start again without it and without the rest of its variant (the same code would
      // most likely end it again, one restart per chunk size), and without the cases that failed their check.
      failedKeys.add(outcome.caseKey);
      for (const info of run.lab.cases) {
        if (info.variant !== outcome.variant || info.key === outcome.caseKey || failedKeys.has(info.key)) continue;
        failedKeys.add(info.key);
        entries.set(info.key, failedEntry(info, `skipped: ${outcome.label} of the same variant ended the lab process; fix that first`, undefined, 'check', null));
      }
      for (const [key, entry] of entries) if (!entry.passed) failedKeys.add(key);
      run.measured.clear();
      run.competingCpus.clear();
      run.harnessOverheadMs = null;
      if (attempt >= MAX_ATTEMPTS) {
        const left = (run.lab.cases).filter((c) => !failedKeys.has(c.key));
        for (const info of left) {
          entries.set(info.key, failedEntry(info, `not measured: the lab process had to be ended ${attempt} times in this run; fix the cases above first`, entries.get(info.key), 'check', null));
        }
        run.notes.push(`The run stopped after ${attempt} attempts: each ended a lab process that overran or crashed.`);
        break;
      }
      const line = `restarting the lab process without ${outcome.variant} (attempt ${attempt + 1} of at most ${MAX_ATTEMPTS})`;
      options.onEvent?.(line);
      run.notes.push(`The lab process was restarted without ${outcome.variant}, after ${outcome.label} ended it; every other case was checked and measured again from the start.`);
    }
  } finally {
    for (const s of signals) process.off(s, onSignal);
    options.stop?.removeEventListener('abort', onStop);
    removeTmpDir();
    process.removeListener('exit', removeTmpDir);
  }
  const changed = referenceBuild ? changedFiles(referenceBuild, fingerprintFiles(options.lab.referenceBuildOutputs)) : [];
  if (changed.length > 0 && !run.fatal && !run.interrupted) {
    const files = changed.map((f) => path.relative(options.job.rootDir, f)).join(', ');
    run.fatal = {
      kind: 'usage',
      message:
        `not a grade: the reference solution's build output changed during the run (${files}), so the reference measured may not be the one built. ` +
        `Something in the run wrote it (code that runs when a module loads, such as a native static initializer, or a build while the run went on). ` +
        `Rebuild it (npm ci builds every lab's native code again) and grade again; look at the learner's files.`,
    };
  }
  const load = competingLoadNote(run.competingCpus);
  if (load !== null) run.notes.push(load);
  const order = run.lab.cases.map((c) => c.key);
  run.correctness = order.filter((k) => entries.has(k)).map((k) => entries.get(k) as CorrectnessEntry);
  return run;
}

type AttemptOutcome = { kind: 'finished' } | { kind: 'case-ended'; caseKey: string; label: string; variant: string };

function runAttempt(
  job: RunJob,
  options: SuperviseOptions,
  run: SupervisedRun,
  entries: Map<string, CorrectnessEntry>,
  started: (child: ChildProcess) => void,
  sandbox: { execArgv: string[]; tmpDir: string; wall: Parameters<typeof bwrapCommand>[0] | null; limits: SandboxLimits },
): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    // Not the parent's flags (`node -e <script>` would run the script again instead of the runner): the sandbox's.
    const command = [process.execPath, ...sandbox.execArgv, RUN_CHILD, JSON.stringify(job)];
    const launch = sandbox.wall ? bwrapCommand(sandbox.wall, command) : { file: command[0] as string, args: command.slice(1) };
    const child = spawn(launch.file, launch.args, {
      cwd: job.rootDir,
      env: sandbox.wall ? sandboxEnv(process.env, sandbox.tmpDir) : { ...process.env, TMPDIR: sandbox.tmpDir },
      detached: true, // its own process group: one kill ends the runner (or bwrap, and with it its PID namespace)
      stdio: ['ignore', options.forwardOutput ? 'pipe' : 'ignore', 'pipe', 'ipc'],
    });
    started(child);
    let stderrTail = '';
    // Output passed through to the terminal is capped per stream (learner code may print without end).
    const passThrough = (name: 'stdout' | 'stderr', target: NodeJS.WriteStream) => {
      let passed = 0;
      return (chunk: Buffer) => {
        if (!options.forwardOutput) return;
        if (passed >= sandbox.limits.outputBytes) return;
        const part = chunk.subarray(0, sandbox.limits.outputBytes - passed);
        target.write(part);
        passed += part.length;
        if (passed >= sandbox.limits.outputBytes) {
          const line = `output truncated: the lab process wrote more than ${sandbox.limits.outputBytes} bytes to ${name}; the rest is not shown`;
          target.write(`\n[${line}]\n`);
          run.notes.push(`Output truncated: the lab process wrote more than ${sandbox.limits.outputBytes} bytes to ${name}.`);
        }
      };
    };
    child.stdout?.on('data', passThrough('stdout', process.stdout));
    const forwardStderr = passThrough('stderr', process.stderr);
    child.stderr?.on('data', (chunk: Buffer) => {
      forwardStderr(chunk);
      stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    // Memory: the anonymous resident memory of every process of the run, polled (RLIMIT_AS and RLIMIT_DATA count
    // V8's reservations; see os-sandbox.ts). Anonymous: the node binary's and the libraries' pages are shared by every
    // process of a pool and counted by none. A run that touches memory faster than the poll may pass the limit briefly.
    let overMemory: number | null = null;
    const PAGE_BYTES = pageBytes();
    const memoryTimer = setInterval(() => {
      if (child.pid === undefined || overMemory !== null) return;
      const processes = runProcesses(child.pid);
      if (!processes) return;
      const bytes = processes.reduce((sum, p) => sum + anonymousPages(p.pid), 0) * PAGE_BYTES;
      if (bytes > sandbox.limits.memoryBytes) {
        overMemory = bytes;
        killGroup(child, 'SIGKILL');
      }
    }, MEMORY_POLL_MS);
    memoryTimer.unref();
    const infoOf = (key: string) => run.lab.cases.find((c) => c.key === key);
    const samples = new Map<string, { samplesMs: number[]; sampleRounds: number[] }>();
    const forged = new Set<string>();
    /** The rounds received of each case: each at most once. */
    const roundsSeen = new Map<string, Set<number>>();
    // The CPU other processes took while each measured round was timed (competing-load.ts).
    let roundStart: CpuSnapshot | null = null;
    let activity: { activity: Activity; limitMs: number; why: string } | null = null;
    /** Rounds already received for the announced call: one is expected, a second is forged (seal.ts). */
    let roundsInCall = 0;
    let timer: NodeJS.Timeout | null = null;
    let overran: { activity: Activity; limitMs: number; why: string } | null = null;
    let done = false;
    let measuringFinished = false;

    const clearTimer = () => {
      if (timer) clearTimeout(timer);
      timer = null;
    };

    child.on('message', (message: RunnerMessage) => {
      switch (message.type) {
        case 'notes':
          // Text from the lab process (which learner code shares): strings only, bounded, never instructions.
          run.lab = { ...run.lab, notes: (Array.isArray(message.notes) ? message.notes : []).filter((n): n is string => typeof n === 'string').slice(0, MAX_LAB_NOTES).map((n) => n.slice(0, 2000)) };
          break;
        case 'call':
          clearTimer();
          activity = { activity: message.activity, limitMs: message.limitMs, why: message.why };
          roundsInCall = 0;
          roundStart = message.activity.stage === 'measure' && child.pid !== undefined ? readCpuSnapshot(child.pid) : null;
          timer = setTimeout(() => {
            overran = activity;
            killGroup(child, 'SIGKILL');
          }, effectiveLimitMs(message.limitMs, options.limitScale));
          break;
        case 'called':
          clearTimer();
          activity = null;
          break;
        case 'checked':
          entries.set(message.caseKey, { ...message.entry, failedAt: message.entry.passed ? null : { stage: 'check', sample: null } });
          break;
        case 'progress':
          options.onProgress?.(message);
          break;
        case 'round': {
          const announced = activity?.activity;
          const plan = run.lab.plan;
          const key = announced?.caseKey ?? message.caseKey;
          // Only the runner's measuring loop sends rounds: one per announced call, each round of a case once, with
          // the plan's samples per round, each a time. Anything else was forged (lab or learner code on the channel).
          let why: string | null = null;
          if (announced?.stage !== 'measure' || announced.caseKey !== message.caseKey || announced.round !== message.round || ++roundsInCall > 1) {
            why = `a measured round arrived that the harness did not take (round ${message.round} of ${message.caseKey})`;
          } else if (!Array.isArray(message.samplesMs) || message.samplesMs.length !== plan.samplesPerRound || !message.samplesMs.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0)) {
            why = `round ${message.round} of ${message.caseKey} brought ${Array.isArray(message.samplesMs) ? message.samplesMs.length : 'no'} samples where the plan takes ${plan.samplesPerRound}`;
          } else if (roundsSeen.get(key)?.has(message.round)) {
            why = `round ${message.round} of ${message.caseKey} arrived twice`;
          }
          if (why !== null) {
            samples.delete(key);
            forged.add(key);
            const info = infoOf(key);
            if (info) entries.set(key, failedEntry(info, `${why}: lab or learner code wrote to the harness's channel${info.learnerFile ? `. Look at ${info.learnerFile}.` : ''}`, entries.get(key), 'measure', null));
            break;
          }
          roundsSeen.set(key, (roundsSeen.get(key) ?? new Set()).add(message.round));
          if (forged.has(message.caseKey)) break;
          const roundEnd = roundStart && child.pid !== undefined ? readCpuSnapshot(child.pid) : null;
          if (roundStart && roundEnd) {
            const load = roundLoad(roundStart, roundEnd);
            const sum = run.competingCpus.get(message.round) ?? { othersTicks: 0, seconds: 0 };
            run.competingCpus.set(message.round, { othersTicks: sum.othersTicks + load.othersTicks, seconds: sum.seconds + load.seconds });
          }
          const s = samples.get(message.caseKey) ?? { samplesMs: [], sampleRounds: [] };
          s.samplesMs.push(...message.samplesMs);
          s.sampleRounds.push(...message.samplesMs.map(() => message.round));
          samples.set(message.caseKey, s);
          break;
        }
        case 'case-failed': {
          samples.delete(message.caseKey);
          const info = infoOf(message.caseKey);
          if (info) entries.set(message.caseKey, failedEntry(info, message.reason, entries.get(message.caseKey), message.stage, message.sample));
          break;
        }
        case 'measured': {
          const s = forged.has(message.caseKey) ? undefined : samples.get(message.caseKey);
          const expected = run.lab.plan.rounds * run.lab.plan.samplesPerRound;
          if (s && s.samplesMs.length !== expected) {
            // The plan's count, no more and no fewer: a case with extra (or missing) rounds was not measured as planned.
            samples.delete(message.caseKey);
            forged.add(message.caseKey);
            const info = infoOf(message.caseKey);
            if (info) entries.set(message.caseKey, failedEntry(info, `${s.samplesMs.length} samples arrived where the plan takes ${expected} (${run.lab.plan.rounds} rounds of ${run.lab.plan.samplesPerRound}): lab or learner code wrote to the harness's channel${info.learnerFile ? `. Look at ${info.learnerFile}.` : ''}`, entries.get(message.caseKey), 'measure', null));
          } else if (s) run.measured.set(message.caseKey, { ...s, observations: message.observations, workPerSample: message.workPerSample, sample: message.sample });
          measuringFinished = true;
          break;
        }
        case 'overhead':
          run.harnessOverheadMs = message.harnessOverheadMs;
          break;
        case 'done':
          done = true;
          break;
        case 'fatal':
          run.fatal = { kind: message.kind, message: message.message };
          break;
      }
    });

    child.on('exit', (exitCode, exitSignal) => {
      clearTimer();
      clearInterval(memoryTimer);
      // bwrap ends with 128 + N when the runner was killed by signal N.
      let code = exitCode;
      let signal = exitSignal;
      if (sandbox.wall && signal === null && code !== null && code > 128 && code < 128 + 65) {
        const name = Object.entries(os.constants.signals).find(([, n]) => n === code! - 128)?.[0];
        if (name) [code, signal] = [null, name as NodeJS.Signals];
      }
      killGroup(child, 'SIGKILL'); // anything the runner started and left behind
      if (done || run.fatal || run.interrupted) return resolve({ kind: 'finished' });
      const ended = overran ?? activity;
      if (ended === null) {
        const tail = stderrTail.trim().split('\n').filter((l) => l.trim() !== '').slice(-6).join(' / ');
        run.fatal = {
          kind: 'internal',
          message:
            overMemory !== null
              ? `the lab process held ${(overMemory / 2 ** 30).toFixed(1)} GiB of memory outside any case, over the run's limit of ${(sandbox.limits.memoryBytes / 2 ** 30).toFixed(1)} GiB, and was ended`
              : `the lab process ended unexpectedly (${signal ?? `exit code ${code}`}) outside any case${tail ? `: ${tail}` : ''}`,
        };
        return resolve({ kind: 'finished' });
      }
      const info = infoOf(ended.activity.caseKey);
      const label = info ? caseLabel(info) : ended.activity.caseKey;
      const where = info?.learnerFile ? ` Look at ${info.learnerFile}.` : '';
      const what = describeActivity(ended.activity, info);
      let reason: string;
      if (overMemory !== null) {
        reason =
          `${what} held ${(overMemory / 2 ** 30).toFixed(1)} GiB of memory, over the run's limit of ${(sandbox.limits.memoryBytes / 2 ** 30).toFixed(1)} GiB: ` +
          `the lab process was ended. Does the code keep every result, or allocate per call?${where}`;
      } else if (signal === 'SIGXCPU') {
        reason = `${what} used more than ${sandbox.limits.cpuSeconds} CPU seconds in one process, the run's limit: the lab process was ended. Does the code loop forever?${where}`;
      } else if (overran) {
        reason =
          `${what} did not finish within ${(effectiveLimitMs(ended.limitMs, options.limitScale) / 1000).toFixed(1)} s ` +
          `(${ended.why}, plus ${LIMIT_GRACE_MS / 1000} s${options.limitScale !== undefined && options.limitScale !== 1 ? `, all x ${options.limitScale}` : ''}): ` +
          `the lab process was ended. Does the code loop forever, or wait on a promise that never settles?${where}`;
      } else {
        const last = stderrTail.trim().split('\n').slice(-2).join(' / ');
        reason =
          `the lab process ended while ${what} (${signal ? `killed by ${signal}` : `exit code ${code}`}): ` +
          `${signal ? 'a crash in native code?' : code === 0 ? 'does the code call process.exit()?' : 'an uncaught error, or process.exit()?'}` +
          `${where}${last ? ` Last output: ${last}` : ''}`;
      }
      options.onEvent?.(`${label}: ${reason}`);
      if (ended.activity.stage === 'teardown' && measuringFinished) {
        // Measuring was over: keep what was measured, and say the teardown was cut short.
        run.notes.push(`Teardown of ${label} was cut short: ${reason}`);
        return resolve({ kind: 'finished' });
      }
      const stage = ended.activity.stage;
      if (info) entries.set(info.key, failedEntry(info, reason, entries.get(info.key), stage, null));
      resolve({ kind: 'case-ended', caseKey: ended.activity.caseKey, label, variant: info?.variant ?? ended.activity.caseKey });
    });
  });
}
