/**
 * How an attempt ended, once its runner has exited: finished (the run goes on to its statistics, or ends with its
 * fatal failure), or a case ended the runner (the supervisor starts the next attempt without it). A case that ended
 * the runner fails with the reason (over its time limit, over the run's memory or CPU limit, a crash, process.exit)
 * and the learner's file named; so does the case whose call ran last when a runner that runs learner code ends by
 * itself between calls (code a call left behind: a timer, a callback).
 * Input: what the attempt saw (the runner's exit, the watchdog's, the messages'). Output: the outcome, with the run's
 * fatal failure, notes and the failed case's entry written in place.
 */
import { caseLabel, formatFixed, formatGiB, type CorrectnessEntry } from '@parallel-course/core';
import type { Activity, CaseInfo, RunJob, RunnerSide } from '../measure/run-protocol.ts';
import type { Watch } from '../measure/judge-channel.ts';
import type { SupervisedRun, SuperviseOptions } from '../measure/supervised-run.ts';
import type { SandboxLimits } from './os-sandbox.ts';
import { effectiveLimitMs, LIMIT_GRACE_MS } from './attempt-watchdog.ts';
import { gradeForks } from '../measure/run-cases.ts';

export type AttemptOutcome = { kind: 'finished' } | { kind: 'case-ended'; caseKey: string; label: string; variant: string };

/** What the attempt saw by the time its runner exited. */
export interface AttemptEnd {
  exit: { code: number | null; signal: NodeJS.Signals | null };
  /** Its SIGKILL was most likely the kernel's out-of-memory killer's (oom-kills.ts). */
  oomKilled: boolean;
  /** Ended by the supervisor because the other runner of the attempt ended a case. */
  stopped: boolean;
  /** The case whose message the protocol refused (attempt-messages.ts). */
  refused: string | null;
  /** The runner said it was done. */
  done: boolean;
  /** The measure stage was over: the runner was collecting observations and tearing down. */
  measuringFinished: boolean;
  /** Which runner of the attempt this was (the solution's never loads learner code). */
  side: RunnerSide;
  /**
   * What the watchdog watched last, the last call into lab or learner code of each case (the most recent first), what
   * overran its limit, the memory held past the limit (attempt-watchdog.ts).
   */
  activity: Watch | null;
  lastCalls: Watch[];
  overran: Watch | null;
  overMemory: number | null;
  stderrTail: string;
}

/** Where the outcome is written, and what its messages name. */
export interface AttemptRecord {
  job: RunJob;
  run: SupervisedRun;
  entries: Map<string, CorrectnessEntry>;
  options: SuperviseOptions;
  limits: SandboxLimits;
}

/** The entry of a case that failed at `stage` for `reason`, keeping what an earlier entry of it had compared. */
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

const FINISHED: AttemptOutcome = { kind: 'finished' };

/** The attempt's outcome, once its runner has exited (its channel closed, its process group killed). */
export function attemptOutcome(end: AttemptEnd, record: AttemptRecord): AttemptOutcome {
  const { run, entries, options } = record;
  // Ended by the supervisor because the other runner of the attempt ended a case: nothing of this one's to say.
  if (end.stopped) return FINISHED;
  if (end.refused !== null) return caseEnded(run, end.refused);
  if (end.done || run.fatal || run.interrupted) return FINISHED;
  const ended = end.overran ?? end.activity;
  // The runner ended by itself while none of its calls ran (between two calls, or while the judge waited for its
  // answer between samples): code a call left behind (a timer, a callback) ended it. Where learner code runs, the case
  // of the learner's code whose call ran last fails (else the case whose call ran last), naming its file.
  const last = end.overran === null && end.overMemory === null && (ended === null || ended.activity.stage === 'between') && end.side !== 'solution' ? lastLearnerCall(end.lastCalls, record) : null;
  if (last !== null) {
    const stage = last.activity.stage;
    if (stage !== 'between') return caseEndedBy(last.activity.caseKey, stage, (info) => endedAfterCallReason(last, info, end, record), end, record);
  }
  if (ended === null) {
    run.fatal = { kind: 'internal', message: endedOutsideAnyCase(end, record) };
    return FINISHED;
  }
  const stage = ended.activity.stage;
  if (stage === 'between') {
    run.fatal = { kind: 'internal', message: endedBetweenSamples(ended, record) };
    return FINISHED;
  }
  return caseEndedBy(ended.activity.caseKey, stage, (info) => caseEndReason(ended, info, end, record), end, record);
}

/**
 * Case `key` ended the runner at `stage`, for the reason `why` gives: it fails with it (or, when measuring was over and
 * it was tearing down, what was measured is kept with a note).
 */
function caseEndedBy(
  key: string,
  stage: NonNullable<CorrectnessEntry['failedAt']>['stage'],
  why: (info: CaseInfo | undefined) => string,
  end: AttemptEnd,
  { run, entries, options }: AttemptRecord,
): AttemptOutcome {
  const info = run.lab.cases.find((c) => c.key === key);
  const label = info ? caseLabel(info) : key;
  const reason = why(info);
  options.onEvent?.(`${label}: ${reason}`);
  if (stage === 'teardown' && end.measuringFinished) {
    // Measuring was over: keep what was measured, and say the teardown was cut short.
    run.notes.push(`Teardown of ${label} was cut short: ${reason}`);
    return FINISHED;
  }
  if (info) entries.set(info.key, failedEntry(info, reason, entries.get(info.key), stage, null));
  return caseEnded(run, key);
}

function caseEnded(run: SupervisedRun, key: string): AttemptOutcome {
  const info = run.lab.cases.find((c) => c.key === key);
  return { kind: 'case-ended', caseKey: key, label: info ? caseLabel(info) : key, variant: info?.variant ?? key };
}


/** The runner ended while no case was running: over the memory limit, or a crash. */
function endedOutsideAnyCase(end: AttemptEnd, record: AttemptRecord): string {
  const { limits } = record;
  if (end.overMemory !== null) {
    return `the lab process held ${formatGiB(end.overMemory)} of memory outside any case, over the run's limit of ${formatGiB(limits.memoryBytes)}, and was ended`;
  }
  if (end.oomKilled) return `the lab process ended outside any case: ${outOfMemory(record)}`;
  const tail = end.stderrTail.trim().split('\n').filter((l) => l.trim() !== '').slice(-6).join(' / ');
  return `the lab process ended unexpectedly (${end.exit.signal ?? `exit code ${end.exit.code}`}) outside any case${tail ? `: ${tail}` : ''}`;
}

/**
 * The kernel's out-of-memory killer ended the runner (oom-kills.ts): the machine ran out of memory before the run's
 * own limit was reached. In a graded run the runners share the machine, so it says how many there were.
 */
function outOfMemory({ job, limits }: Pick<AttemptRecord, 'job' | 'limits'>): string {
  const forks = gradeForks(job);
  const together = job.grade === true ? `, and this graded run had ${1 + 2 * forks} lab processes at once (the learner's, and ${forks} each of its graded cases' and the solution's), each allowed ${formatGiB(limits.memoryBytes)}` : ` before the run's limit of ${formatGiB(limits.memoryBytes)}`;
  return (
    `killed by the kernel's out-of-memory killer (SIGKILL; the machine's count of such kills, /proc/vmstat oom_kill, went up meanwhile): ` +
    `the machine ran out of memory${together}. Close other programs and run again; does the code keep every result, or allocate per call?`
  );
}

/** No case was running: code left behind by one (a timer, a callback) kept the process from answering. */
function endedBetweenSamples(ended: Watch, { job, run, options }: AttemptRecord): string {
  const implDir = `${job.impl === 'exercise' ? 'exercises' : 'solutions'}/`;
  const files = [...new Set(run.lab.cases.map((c) => c.learnerFile).filter((f): f is string => f !== null && f.startsWith(implDir)))];
  return (
    `the lab process did not answer the harness between samples within ${formatFixed(effectiveLimitMs(ended.limitMs, options.limitScale) / 1000, 1)} s (${ended.why}) and was ended: ` +
    `code left running after a call (a timer, a callback that loops) blocks it.${files.length ? ` Look at ${files.join(', ')}.` : ''}`
  );
}

/** Why the case that was running ended the runner: memory, CPU time, its time limit, or the process ended. */
function caseEndReason(ended: Watch, info: CaseInfo | undefined, end: AttemptEnd, record: AttemptRecord): string {
  const { options, limits } = record;
  const where = info?.learnerFile ? ` Look at ${info.learnerFile}.` : '';
  const what = describeActivity(ended.activity, info);
  const { code, signal } = end.exit;
  if (end.overMemory !== null) {
    return (
      `${what} held ${formatGiB(end.overMemory)} of memory, over the run's limit of ${formatGiB(limits.memoryBytes)}: ` +
      `the lab process was ended. Does the code keep every result, or allocate per call?${where}`
    );
  }
  if (signal === 'SIGXCPU') {
    return `${what} used more than ${limits.cpuSeconds} CPU seconds in one process, the run's limit: the lab process was ended. Does the code loop forever?${where}`;
  }
  if (end.overran) {
    const scale = options.limitScale !== undefined && options.limitScale !== 1 ? `, all x ${options.limitScale}` : '';
    return (
      `${what} did not finish within ${formatFixed(effectiveLimitMs(ended.limitMs, options.limitScale) / 1000, 1)} s ` +
      `(${ended.why}, plus ${LIMIT_GRACE_MS / 1000} s${scale}): ` +
      `the lab process was ended. Does the code loop forever, or wait on a promise that never settles?${where}`
    );
  }
  const last = end.stderrTail.trim().split('\n').slice(-2).join(' / ');
  if (end.oomKilled) return `the lab process ended while ${what}: ${outOfMemory(record)}${where}`;
  return (
    `the lab process ended while ${what} (${signal ? `killed by ${signal}` : `exit code ${code}`}): ` +
    `${signal ? 'a crash in native code?' : code === 0 ? 'does the code call process.exit()?' : 'an uncaught error, or process.exit()?'}` +
    `${where}${last ? ` Last output: ${last}` : ''}`
  );
}

/** Of the cases' last calls (the most recent first), the most recent of a case whose code is the learner's, else the most recent. */
function lastLearnerCall(lastCalls: Watch[], { job, run }: AttemptRecord): Watch | null {
  const implDir = `${job.impl === 'exercise' ? 'exercises' : 'solutions'}/`;
  const learners = lastCalls.filter((w) => run.lab.cases.find((c) => c.key === w.activity.caseKey)?.learnerFile?.startsWith(implDir));
  return learners[0] ?? lastCalls[0] ?? null;
}

/** Why the runner ended by itself after `last`, the case's last call, while none of its calls ran. */
function endedAfterCallReason(last: Watch, info: CaseInfo | undefined, end: AttemptEnd, record: AttemptRecord): string {
  const where = info?.learnerFile ? ` Look at ${info.learnerFile}.` : '';
  const { code, signal } = end.exit;
  if (end.oomKilled) return `the lab process ended after ${describeActivity(last.activity, info)}, while none of its calls was running: ${outOfMemory(record)}${where}`;
  const output = end.stderrTail.trim().split('\n').slice(-2).join(' / ');
  const why = signal
    ? 'a crash in native code it left running (a thread, a callback)?'
    : `does code it left running after the call (a timer, a callback, a child process) call process.exit()${code === 0 ? '' : ' or throw'}?`;
  return (
    `the lab process ended after ${describeActivity(last.activity, info)}, while none of its calls was running (${signal ? `killed by ${signal}` : `exit code ${code}`}): ` +
    `${why}${where}${output ? ` Last output: ${output}` : ''}`
  );
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
