/**
 * One attempt of a supervised run: the runner (run-child.ts) in a child process of its own process group, inside the
 * OS sandbox when one can start, every call it announces bounded, and its measure stage driven from here
 * (judge-sampler.ts: this process's clock times each sample). When a call overruns, the runner ends without finishing,
 * or it sends a message the protocol does not expect, the whole process group is killed and the case named; the
 * supervisor (supervisor.ts) then starts the next attempt without it.
 * Input: the job, the run's declarations, the sandbox's command. Output: the run's entries, samples and notes, filled
 * in place, and how the attempt ended.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { errorText } from '../errors.ts';
import { bwrapCommand, sandboxEnv, type SandboxLimits } from './os-sandbox.ts';
import { runProcesses } from '../measure/competing-load.ts';
import { caseLabel, type CorrectnessEntry } from '@parallel-course/core';
import type { Activity, CaseInfo, RunJob, RunnerMessage } from '../measure/run-protocol.ts';
import { JudgeChannel, RefusedAnswer, type Watch } from '../measure/judge-sampler.ts';
import type { CheckJudge } from '../measure/judge-outputs.ts';
import { checkMismatchText, CHECK_CALL_TIMEOUT_MS } from '../measure/check.ts';
import type { Comparison } from '../lab-definition.ts';
import type { MeasureMeeting } from '../measure/measure-meeting.ts';
import type { SupervisedRun, SuperviseOptions } from '../measure/supervised-run.ts';

const RUN_CHILD = fileURLToPath(new URL('../measure/run-child.ts', import.meta.url));

/** Extra time the supervisor allows past a call's limit, in ms: the runner's own timeouts answer first when they can. */
export const LIMIT_GRACE_MS = 5_000;
/** Bytes of the runner's stderr kept for the message when it dies. */
const STDERR_TAIL_BYTES = 4096;
/** How often the supervisor reads the resident memory of the run's processes, in ms (one scan of /proc: about 1 ms per 100 processes). */
export const MEMORY_POLL_MS = 500;
/**
 * While a sample is in flight the memory poll waits (its /proc scan would delay the answer's time stamp), but never
 * longer than this, in ms: a process that grows during a long sample is still ended.
 */
const MEMORY_POLL_DEFER_MS = 2_000;
/** Lab notes kept from the runner's `notes` message (a lab has a handful). */
const MAX_LAB_NOTES = 40;
/** Collecting the cases' observations after the last sample may take this long, in ms (as a teardown). */
const FINISH_LIMIT_MS = 30_000;

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
    case 'between':
      return `answering the harness between samples (the process measuring ${label})`;
  }
}

export function failedEntry(info: CaseInfo, reason: string, previous: CorrectnessEntry | undefined, stage: NonNullable<CorrectnessEntry['failedAt']>['stage'], sample: number | null): CorrectnessEntry {
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

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export type AttemptOutcome = { kind: 'finished' } | { kind: 'case-ended'; caseKey: string; label: string; variant: string };

export function runAttempt(
  job: RunJob,
  options: SuperviseOptions,
  run: SupervisedRun,
  entries: Map<string, CorrectnessEntry>,
  started: (child: ChildProcess) => void,
  sandbox: { execArgv: string[]; tmpDir: string; wall: Parameters<typeof bwrapCommand>[0] | null; limits: SandboxLimits },
  side: { name: 'learner' | 'solution'; meeting: MeasureMeeting; stopped(): boolean },
  checks: CheckJudge,
): Promise<AttemptOutcome> {
  return new Promise((settle) => {
    /**
     * Per case, the judge's comparisons of its check outputs and then its 'checked', in the order they arrived (each
     * may wait on the judge's expected output); the attempt ends, and the case meets the measure stage, once they are done.
     */
    const checking = new Map<string, Promise<void>>();
    const judgedChecks = new Map<string, { failed: CorrectnessEntry | null; inputs: Set<number>; maxAbsError: number | null; maxRelError: number | null }>();
    // A step that rejects (the channel closed under a 'show': the process ended) leaves the case to the exit handler.
    const afterChecks = () => Promise.all(checking.values()).then(() => undefined);
    const resolve = (outcome: AttemptOutcome) => void afterChecks().then(() => settle(outcome));
    const inTurn = (key: string, step: () => Promise<void> | void) =>
      checking.set(
        key,
        (checking.get(key) ?? Promise.resolve()).then(step).catch(() => {}),
      );
    // Not the parent's flags (`node -e <script>` would run the script again instead of the runner): the sandbox's.
    const command = [process.execPath, ...sandbox.execArgv, RUN_CHILD, JSON.stringify(job)];
    const launch = sandbox.wall ? bwrapCommand(sandbox.wall, command) : { file: command[0] as string, args: command.slice(1) };
    const child = spawn(launch.file, launch.args, {
      cwd: job.rootDir,
      env: sandbox.wall ? sandboxEnv(process.env, sandbox.tmpDir) : { ...process.env, TMPDIR: sandbox.tmpDir },
      detached: true, // its own process group: one kill ends the runner (or bwrap, and with it its PID namespace)
      stdio: ['ignore', options.forwardOutput ? 'pipe' : 'ignore', 'pipe', 'ipc'],
      // Structured clone on the channel: a sample's output (a typed array) arrives as it was sent, for the judge's check.
      serialization: 'advanced',
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
    let lastPoll = performance.now();
    const memoryTimer = setInterval(() => {
      if (child.pid === undefined || overMemory !== null) return;
      if (channel.inFlightSince !== null && performance.now() - lastPoll < MEMORY_POLL_DEFER_MS) return;
      lastPoll = performance.now();
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
    const fileOf = (key: string) => {
      const file = infoOf(key)?.learnerFile;
      return file ? `. Look at ${file}.` : '';
    };
    let activity: Watch | null = null;
    let timer: NodeJS.Timeout | null = null;
    let overran: Watch | null = null;
    /** The case whose message the protocol refused (the process is then ended and the case failed). */
    let refused: string | null = null;
    let done = false;
    let measuringStarted = false;
    let measuringFinished = false;
    /** Whether this runner has met the others for the measure stage, or said it will not. */
    let met = false;
    const judged = side.meeting.judged;

    const clearTimer = () => {
      if (timer) clearTimeout(timer);
      timer = null;
    };
    const watch = (next: Watch | null) => {
      clearTimer();
      activity = next;
      if (next === null) return;
      timer = setTimeout(() => {
        overran = next;
        killGroup(child, 'SIGKILL');
      }, effectiveLimitMs(next.limitMs, options.limitScale));
    };
    const channel = new JudgeChannel((request) => child.connected && child.send(request), watch);
    /**
     * A message the protocol does not expect (an answer not asked for, a second one, a round or a call while the judge
     * measures): lab or learner code wrote to the channel. The case it concerns fails and the process is ended; with
     * no case to name, the run fails.
     */
    const refuse = (why: string, caseKey: string | null) => {
      const key = caseKey ?? channel.pendingCase ?? activity?.activity.caseKey ?? null;
      const info = key === null ? undefined : infoOf(key);
      const reason = `${why}: lab or learner code wrote to the harness's channel`;
      if (info && refused === null) {
        refused = info.key;
        entries.set(info.key, failedEntry(info, `${reason}${fileOf(info.key)}`, entries.get(info.key), measuringStarted ? 'measure' : 'check', null));
      } else if (!info) {
        run.fatal ??= { kind: 'internal', message: `${reason}; the run was ended. Look at the learner's files.` };
      }
      channel.close(new Error(reason));
      killGroup(child, 'SIGKILL');
    };

    child.on('message', (message: RunnerMessage) => {
      const receivedAt = performance.now();
      if (refused !== null || run.fatal) return;
      switch (message?.type) {
        case 'prepared':
        case 'sampled':
        case 'output':
        case 'shown':
        case 'ok':
          try {
            channel.deliver(message, receivedAt);
          } catch (error) {
            if (error instanceof RefusedAnswer) refuse(error.message, error.caseKey);
            else throw error;
          }
          break;
        case 'notes':
          // The learner's process computes the lab's notes, as in a practice run; the solution's are the same lab's.
          if (side.name !== 'learner') break;
          // Text from the lab process (which learner code shares): strings only, bounded, never instructions.
          run.lab = { ...run.lab, notes: (Array.isArray(message.notes) ? message.notes : []).filter((n): n is string => typeof n === 'string').slice(0, MAX_LAB_NOTES).map((n) => n.slice(0, 2000)) };
          break;
        case 'call':
          // While the judge measures, the runner announces nothing: the judge bounds its own requests.
          if (channel.inFlightSince !== null || (measuringStarted && !measuringFinished)) return refuse('a call was announced while the harness was measuring', message.activity?.caseKey ?? null);
          watch({ activity: message.activity, limitMs: message.limitMs, why: message.why });
          break;
        case 'called':
          if (channel.inFlightSince !== null || (measuringStarted && !measuringFinished)) return refuse('a call ended while the harness was measuring', null);
          watch(null);
          break;
        case 'check-output': {
          if (measuringStarted) return refuse(`a check output arrived after the check (${String(message.caseKey).slice(0, 200)})`, message.caseKey);
          const info = infoOf(message.caseKey);
          if (!info) return refuse('a check output arrived for a case the harness does not know', null);
          const { input, output } = message;
          inTurn(info.key, async () => {
            const state = judgedChecks.get(info.key) ?? { failed: null, inputs: new Set<number>(), maxAbsError: null, maxRelError: null };
            judgedChecks.set(info.key, state);
            const sent = output as { kind?: unknown; length?: unknown } | null;
            // The runner waits for the 'show' of an output too large to send: it is asked even when nothing is to be
            // checked (no positions), so the runner goes on.
            const watchShow: Watch = { activity: { stage: 'check', caseKey: info.key, input }, limitMs: CHECK_CALL_TIMEOUT_MS, why: `the harness's check of one output may take ${CHECK_CALL_TIMEOUT_MS / 1000} s` };
            if (state.failed && sent?.kind === 'large') await channel.ask({ type: 'show', caseKey: info.key, positions: [] }, watchShow).catch(() => {});
            if (state.failed) return;
            state.inputs.add(input);
            let comparison: Comparison | null;
            let reason: string | null = null;
            try {
              if (sent?.kind === 'large') {
                // Too large to send: values at positions drawn now, which the runner waits to be asked for.
                const drawn = await checks.positions(info.key, input, Number(sent.length)).catch((e: unknown) => new Error(errorText(e)));
                const positions = Array.isArray(drawn) ? drawn : [];
                const shown = (await channel.ask({ type: 'show', caseKey: info.key, positions }, watchShow)).answers[0];
                const values = shown?.type === 'shown' && (ArrayBuffer.isView(shown.values) || Array.isArray(shown.values)) ? (shown.values as ArrayLike<number>) : [];
                if (drawn instanceof Error) throw drawn;
                comparison = Array.isArray(drawn) ? await checks.checkAt(info.key, input, positions, values) : drawn;
              } else {
                comparison = await checks.check(info.key, input, output);
              }
            } catch (error) {
              comparison = { equal: false, firstMismatch: null, maxAbsError: null, maxRelError: null };
              reason = `its output on check input #${input} could not be checked: ${errorText(error)}`;
            }
            if (comparison === null) return;
            if (comparison.maxAbsError !== null) state.maxAbsError = Math.max(state.maxAbsError ?? 0, comparison.maxAbsError);
            if (comparison.maxRelError !== null) state.maxRelError = Math.max(state.maxRelError ?? 0, comparison.maxRelError);
            if (comparison.equal) return;
            const failed = failedEntry(info, `${reason ?? checkMismatchText(input, comparison)}${fileOf(info.key)}`, undefined, 'check', null);
            state.failed = { ...failed, comparator: checks.comparator, firstMismatch: comparison.firstMismatch, maxAbsError: state.maxAbsError, maxRelError: state.maxRelError, inputsChecked: input + 1 };
          });
          break;
        }
        case 'checked': {
          if (measuringStarted) return refuse(`a check result arrived after the check (${message.caseKey})`, message.caseKey);
          const { caseKey: key, entry } = message;
          // The judge's comparisons decide: a wrong output it found fails the case whatever the runner says, and a
          // case the runner says passed must have sent the judge an output for every check input.
          inTurn(key, async () => {
            const judged = judgedChecks.get(key);
            let decided: CorrectnessEntry = judged?.failed ?? entry;
            if (!judged?.failed && entry.passed) {
              const count = await checks.inputCount(key).catch(() => Number.NaN);
              const info = infoOf(key);
              decided =
                (judged?.inputs.size ?? 0) === count
                  ? { ...entry, maxAbsError: judged?.maxAbsError ?? null, maxRelError: judged?.maxRelError ?? null }
                  : info
                    ? failedEntry(info, `its check outputs did not all reach the harness (${judged?.inputs.size ?? 0} of ${count}): lab or learner code wrote to the harness's channel${fileOf(key)}`, entry, 'check', null)
                    : entry;
            }
            entries.set(key, { ...decided, failedAt: decided.passed ? null : { stage: 'check', sample: null } });
          });
          break;
        }
        case 'progress':
          options.onProgress?.(message);
          break;
        case 'measuring':
          if (measuringStarted) return refuse('the measure stage was announced twice', null);
          measuringStarted = true;
          met = true;
          watch(null);
          {
            const party = { name: side.name, channel, pid: child.pid, cases: message.cases };
            // Once the judge has compared every check output: the meeting measures only the cases that passed.
            void afterChecks()
              .then(() => side.meeting.arrive(party))
              .then(() => {
              // Observations, then the runner tears down and ends: as long as a teardown may take.
              measuringFinished = true;
              const keys = side.meeting.keysOf(party);
              watch({ activity: { stage: 'teardown', caseKey: keys[0] ?? '' }, limitMs: FINISH_LIMIT_MS, why: `collecting observations may take ${FINISH_LIMIT_MS / 1000} s` });
              channel.tell({ type: 'finish', caseKeys: keys });
              });
          }
          break;
        case 'case-failed': {
          judged.delete(message.caseKey);
          const info = infoOf(message.caseKey);
          if (info) entries.set(message.caseKey, failedEntry(info, `${message.reason}${fileOf(message.caseKey)}`, entries.get(message.caseKey), message.stage, message.sample));
          break;
        }
        case 'measured': {
          const s = judged.get(message.caseKey);
          if (!measuringFinished || !s) return refuse(`a measured case arrived that the harness did not measure (${message.caseKey})`, message.caseKey);
          judged.delete(message.caseKey);
          run.measured.set(message.caseKey, { ...s, observations: message.observations, workPerSample: message.workPerSample, sample: message.sample });
          break;
        }
        case 'done':
          done = true;
          if (!met) side.meeting.leave();
          met = true;
          break;
        case 'fatal':
          run.fatal = { kind: message.kind, message: message.message };
          break;
        default:
          // A message of no type the protocol has (an old 'round' of samples timed in the lab process, say).
          refuse(`a message the protocol does not have arrived ('${String((message as { type?: unknown })?.type).slice(0, 40)}')`, null);
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
      channel.close(new Error('the lab process ended'));
      if (!met) side.meeting.leave();
      met = true;
      // Ended by the supervisor because the other runner of the attempt ended a case: nothing of this one's to say.
      if (side.stopped()) return resolve({ kind: 'finished' });
      if (refused !== null) {
        const info = infoOf(refused);
        return resolve({ kind: 'case-ended', caseKey: refused, label: info ? caseLabel(info) : refused, variant: info?.variant ?? refused });
      }
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
      if (ended.activity.stage === 'between') {
        // No case was running: code left behind by one (a timer, a callback) kept the process from answering.
        const implDir = `${job.impl === 'exercise' ? 'exercises' : 'solutions'}/`;
        const files = [...new Set(run.lab.cases.map((c) => c.learnerFile).filter((f): f is string => f !== null && f.startsWith(implDir)))];
        run.fatal = {
          kind: 'internal',
          message:
            `the lab process did not answer the harness between samples within ${(effectiveLimitMs(ended.limitMs, options.limitScale) / 1000).toFixed(1)} s (${ended.why}) and was ended: ` +
            `code left running after a call (a timer, a callback that loops) blocks it.${files.length ? ` Look at ${files.join(', ')}.` : ''}`,
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
