/**
 * The messages of one runner, each type to its handler: the answers to the judge's requests to its channel
 * (judge-channel.ts JudgeChannel), the calls it announces to the watchdog (attempt-watchdog.ts), its check outputs and
 * property evidence and results to the judge's verdicts (check-verdicts.ts CheckVerdicts), the measure stage to the meeting
 * (measure-meeting.ts), failures, notes and measured cases into the run.
 * A message the protocol does not expect (an answer not asked for, a second one, a round or a call while the judge
 * measures) means lab or learner code wrote to the channel: the case it concerns fails and the process is ended; with
 * no case to name, the run fails.
 * Input: the runner's messages, in order. Output: the run's entries, samples and notes, filled in place, and what the
 * attempt's outcome reads (`refused`, `done`, `measuringFinished`).
 */
import type { ChildProcess } from 'node:child_process';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { caseKey, type CorrectnessEntry } from '@parallel-course/core';
import type { RunnerMessage, RunnerSide } from '../measure/run-protocol.ts';
import { RefusedAnswer, type JudgeChannel, type Watch } from '../measure/judge-channel.ts';
import type { CheckJudge } from '../measure/check-judge.ts';
import { CheckVerdicts, type CheckVerdictHooks } from '../measure/check-verdicts.ts';
import { CHECK_CALL_TIMEOUT_MS } from '../measure/check.ts';
import { gradedKeys, runnerSideOf } from '../measure/run-cases.ts';
import type { MeasureMeeting } from '../measure/measure-meeting.ts';
import type { SupervisedRun, SuperviseOptions } from '../measure/supervised-run.ts';
import type { AttemptWatchdog } from './attempt-watchdog.ts';
import { failedEntry } from './attempt-outcome.ts';
import { killGroup } from './runner-process.ts';

/** Lab notes kept from the runner's `notes` message (a lab has a handful). */
const MAX_LAB_NOTES = 40;
/** Collecting the cases' observations after the last sample may take this long, in ms (as a teardown). */
const FINISH_LIMIT_MS = 30_000;

/** Which runner of the attempt this is, the meeting where it is measured, and whether the supervisor has stopped it. */
export interface AttemptSide {
  name: RunnerSide;
  /** Which of its side's processes (a graded run's forks, 0 .. F - 1; run-cases.ts GRADE_FORKS); absent: 0. */
  fork?: number;
  meeting: MeasureMeeting;
  stopped(): boolean;
}

/** What the messages reach: the runner, its channel and watchdog, the run's record, the judge's check. */
export interface AttemptParts {
  child: ChildProcess;
  channel: JudgeChannel;
  watchdog: AttemptWatchdog;
  side: AttemptSide;
  run: SupervisedRun;
  entries: Map<string, CorrectnessEntry>;
  options: SuperviseOptions;
  checks: CheckJudge;
  /** The runner's own temp folder (its sandbox's only writable place besides the lab's): where its probe sockets are. */
  tmpDir: string;
}

type Message<T extends RunnerMessage['type']> = Extract<RunnerMessage, { type: T }>;

/**
 * Why the judge will not connect to `socketPath`, or null: it must be a Unix socket directly in the runner's own temp
 * folder, not a link (the judge connects only to what the runner's own processes made, never to another socket of
 * the machine), and the judge sends it only the lab's fixed requests.
 */
export function probeSocketRefusal(socketPath: unknown, tmpDir: string): string | null {
  if (typeof socketPath !== 'string' || path.dirname(socketPath) !== tmpDir || path.basename(socketPath).startsWith('.')) {
    return `a path outside the run's temp folder (${String(socketPath).slice(0, 200)})`;
  }
  try {
    if (!lstatSync(socketPath).isSocket()) return `${socketPath}, which is not a Unix socket`;
  } catch {
    return `${socketPath}, which does not exist`;
  }
  return null;
}

export class AttemptMessages {
  #refused: string | null = null;
  /** The run's graded case keys, read once (#ownCase). */
  #graded: ReadonlySet<string> | undefined;
  #done = false;
  #measuringStarted = false;
  #measuringFinished = false;
  /** Whether this runner has met the others for the measure stage, or said it will not. */
  #met = false;
  /** The cases this runner's own check passed, by the judge's verdicts (the meeting measures only these: Party.passed). */
  #passedHere = new Set<string>();
  /** The cases whose observations this runner was asked for ('finish'): its 'measured' may name these alone. */
  #finishing = new Set<string>();
  readonly #parts: AttemptParts;
  readonly #verdicts: CheckVerdicts;

  constructor(parts: AttemptParts) {
    this.#parts = parts;
    this.#verdicts = new CheckVerdicts(parts.checks, this.#verdictHooks());
  }

  /** The case whose message the protocol refused (the process is then ended and the case failed). */
  get refused(): string | null {
    return this.#refused;
  }

  /** The runner said it was done. */
  get done(): boolean {
    return this.#done;
  }

  /** The measure stage is over: the runner collects observations and tears down. */
  get measuringFinished(): boolean {
    return this.#measuringFinished;
  }

  /** One message from the runner, stamped on arrival (`receivedAt`: this process's clock). */
  handle(message: RunnerMessage, receivedAt: number): void {
    if (this.#refused !== null || this.#parts.run.fatal) return;
    switch (message?.type) {
      case 'prepared':
      case 'sampled':
      case 'output':
      case 'shown':
      case 'ok':
        return this.#answer(message, receivedAt);
      case 'notes':
        return this.#notes(message);
      case 'call':
      case 'called':
        return this.#call(message);
      case 'check-output':
        return this.#checkOutput(message);
      case 'property':
        return this.#property(message);
      case 'outside-probe':
        return this.#outsideProbe(message);
      case 'checked':
        return this.#checked(message);
      case 'progress':
        return this.#parts.options.onProgress?.(message);
      case 'measuring':
        return this.#measuring(message);
      case 'case-failed':
        return this.#caseFailed(message);
      case 'measured':
        return this.#measured(message);
      case 'done':
        this.#done = true;
        return this.#leaveMeeting();
      case 'fatal':
        this.#parts.run.fatal = { kind: message.kind, message: message.message };
        return;
      default:
        // A message of no type the protocol has (an old 'round' of samples timed in the lab process, say).
        return this.#refuse(`a message the protocol does not have arrived ('${String((message as { type?: unknown })?.type).slice(0, 40)}')`, null);
    }
  }

  /** The runner has ended: its channel closes, and it leaves the meeting if it had not come. */
  ended(): void {
    this.#parts.channel.close(new Error('the lab process ended'));
    this.#leaveMeeting();
  }

  /** Resolves once the judge has decided every check output and result that arrived. */
  settled(): Promise<void> {
    return this.#verdicts.settled();
  }

  #answer(message: Message<'prepared' | 'sampled' | 'output' | 'shown' | 'ok'>, receivedAt: number): void {
    try {
      this.#parts.channel.deliver(message, receivedAt);
    } catch (error) {
      if (error instanceof RefusedAnswer) this.#refuse(error.message, error.caseKey);
      else throw error;
    }
  }

  #notes(message: Message<'notes'>): void {
    const { run, side } = this.#parts;
    // The learner's process computes the lab's notes, as in a practice run; the solution's are the same lab's.
    if (side.name !== 'learner') return;
    // Text from the lab process (which learner code shares): strings only, bounded, never instructions.
    const notes = (Array.isArray(message.notes) ? message.notes : []).filter((n): n is string => typeof n === 'string');
    run.lab = { ...run.lab, notes: notes.slice(0, MAX_LAB_NOTES).map((n) => n.slice(0, 2000)) };
  }

  #call(message: Message<'call' | 'called'>): void {
    // While the judge measures, the runner announces nothing: the judge bounds its own requests.
    const measuring = this.#parts.channel.inFlightSince !== null || (this.#measuringStarted && !this.#measuringFinished);
    if (message.type === 'called') {
      if (measuring) return this.#refuse('a call ended while the harness was measuring', null);
      return this.#parts.watchdog.watch(null);
    }
    if (measuring) return this.#refuse('a call was announced while the harness was measuring', message.activity?.caseKey ?? null);
    this.#parts.watchdog.watch({ activity: message.activity, limitMs: message.limitMs, why: message.why });
  }

  #checkOutput(message: Message<'check-output'>): void {
    if (this.#measuringStarted) return this.#refuse(`a check output arrived after the check (${String(message.caseKey).slice(0, 200)})`, message.caseKey);
    const info = this.#ownCase(message.caseKey);
    if (!info) return this.#refuse('a check output arrived for a case this runner does not run', null);
    this.#verdicts.output(info.key, message.input, message.output);
  }

  #property(message: Message<'property'>): void {
    if (this.#measuringStarted) return this.#refuse(`property evidence arrived after the check (${String(message.caseKey).slice(0, 200)})`, message.caseKey);
    const info = this.#ownCase(message.caseKey);
    if (!info) return this.#refuse('property evidence arrived for a case this runner does not run', null);
    this.#verdicts.property(info.key, message.evidence);
  }

  #outsideProbe(message: Message<'outside-probe'>): void {
    if (this.#measuringStarted) return this.#refuse(`a probe from outside was asked for after the check (${String(message.caseKey).slice(0, 200)})`, message.caseKey);
    const info = this.#ownCase(message.caseKey);
    if (!info) return this.#refuse('a probe from outside was asked for a case this runner does not run', null);
    const refusal = probeSocketRefusal(message.socketPath, this.#parts.tmpDir);
    if (refusal !== null) return this.#refuse(`a probe from outside was asked for ${refusal}`, info.key);
    this.#verdicts.outsideProbe(info.key, message.socketPath);
  }

  #checked(message: Message<'checked'>): void {
    if (this.#measuringStarted) return this.#refuse(`a check result arrived after the check (${message.caseKey})`, message.caseKey);
    const info = this.#ownCase(message.caseKey);
    if (!info) return this.#refuse('a check result arrived for a case this runner does not run', null);
    this.#verdicts.checked(info.key, message.entry);
  }

  #measuring(message: Message<'measuring'>): void {
    if (this.#measuringStarted) return this.#refuse('the measure stage was announced twice', null);
    const { channel, child, side, watchdog } = this.#parts;
    this.#measuringStarted = true;
    this.#met = true;
    watchdog.watch(null);
    const party = { name: side.name, fork: side.fork ?? 0, channel, pid: child.pid, cases: message.cases, passed: this.#passedHere };
    // Once the judge has compared every check output: the meeting measures only the cases that passed.
    void this.settled()
      .then(() => side.meeting.arrive(party))
      .then(() => {
        // Observations, then the runner tears down and ends: as long as a teardown may take.
        this.#measuringFinished = true;
        const keys = side.meeting.keysOf(party);
        this.#finishing = new Set(keys);
        watchdog.watch({ activity: { stage: 'teardown', caseKey: keys[0] ?? '' }, limitMs: FINISH_LIMIT_MS, why: `collecting observations may take ${FINISH_LIMIT_MS / 1000} s` });
        channel.tell({ type: 'finish', caseKeys: keys });
      });
  }

  #caseFailed(message: Message<'case-failed'>): void {
    const { side, entries } = this.#parts;
    const info = this.#ownCase(message.caseKey);
    if (!info && this.#infoOf(message.caseKey)) return this.#refuse('a failure arrived for a case this runner does not run', null);
    side.meeting.judged.delete(message.caseKey);
    if (info) entries.set(message.caseKey, failedEntry(info, `${message.reason}${this.#fileOf(message.caseKey)}`, entries.get(message.caseKey), message.stage, message.sample));
  }

  #measured(message: Message<'measured'>): void {
    const { judged } = this.#parts.side.meeting;
    // Only a case this runner was asked to finish: of a graded pair's forks, the first's (measure-meeting.ts keysOf).
    const s = this.#ownCase(message.caseKey) && this.#finishing.has(message.caseKey) ? judged.get(message.caseKey) : undefined;
    if (!this.#measuringFinished || !s) return this.#refuse(`a measured case arrived that the harness did not measure (${message.caseKey})`, message.caseKey);
    judged.delete(message.caseKey);
    this.#parts.run.measured.set(message.caseKey, { ...s, observations: message.observations, workPerSample: message.workPerSample, sample: message.sample });
  }

  /**
   * A message the protocol does not expect: lab or learner code wrote to the channel. The case it concerns fails
   * (the one named, else the one the judge or the watchdog waits on) and the process is ended; with none, the run fails.
   */
  #refuse(why: string, caseKey: string | null): void {
    const { channel, watchdog, entries, run, child } = this.#parts;
    const key = caseKey ?? channel.pendingCase ?? watchdog.activity?.activity.caseKey ?? null;
    const info = key === null ? undefined : this.#infoOf(key);
    const reason = `${why}: lab or learner code wrote to the harness's channel`;
    if (info && this.#refused === null) {
      this.#refused = info.key;
      entries.set(info.key, failedEntry(info, `${reason}${this.#fileOf(info.key)}`, entries.get(info.key), this.#measuringStarted ? 'measure' : 'check', null));
    } else if (!info) {
      run.fatal ??= { kind: 'internal', message: `${reason}; the run was ended. Look at the learner's files.` };
    }
    channel.close(new Error(reason));
    killGroup(child, 'SIGKILL');
  }

  #leaveMeeting(): void {
    if (!this.#met) this.#parts.side.meeting.leave();
    this.#met = true;
  }

  /** The check verdicts' way to the runner (a 'show' of a large output, bounded as a check call) and to the run's entries. */
  #verdictHooks(): CheckVerdictHooks {
    const { channel, entries } = this.#parts;
    return {
      show: async (key, input, ask) => {
        const watch: Watch = { activity: { stage: 'check', caseKey: key, input }, limitMs: CHECK_CALL_TIMEOUT_MS, why: `the harness's check of one output may take ${CHECK_CALL_TIMEOUT_MS / 1000} s` };
        const shown = (await channel.ask({ type: 'show', caseKey: key, ...ask }, watch)).answers[0];
        return shown?.type === 'shown' && (ArrayBuffer.isView(shown.values) || Array.isArray(shown.values)) ? (shown.values as ArrayLike<number>) : [];
      },
      failed: (key, reason, previous) => {
        const info = this.#infoOf(key);
        return info ? failedEntry(info, `${reason}${this.#fileOf(key)}`, previous, 'check', null) : null;
      },
      decided: (key, entry) => {
        if (entry.passed) this.#passedHere.add(key);
        else this.#passedHere.delete(key);
        // A graded run checks a graded case in each of its forks, into the run's one map of entries: a case passes
        // only if it passed in every fork, so one fork's pass never replaces another's failure, whichever came first.
        // (Across attempts nothing is lost: a case that failed is never checked again, supervisor.ts failedKeys.)
        const earlier = entries.get(key);
        if (entry.passed && earlier !== undefined && !earlier.passed) return;
        entries.set(key, entry);
      },
      probed: (key, error) => channel.tell({ type: 'probed', caseKey: key, error }),
    };
  }

  #infoOf(key: string) {
    return this.#parts.run.lab.cases.find((c) => c.key === key);
  }

  /**
   * The case of `key` where this runner runs it, else undefined: in a graded run each case is one runner's
   * (run-cases.ts runnerSideOf), and the run's entries are one map for all, so a check message of another runner's
   * case (learner code in one runner can write to its channel) would decide that case: the learner's runner passing
   * the learner's graded case that the graded runner failed.
   */
  #ownCase(key: string) {
    const info = this.#infoOf(key);
    const job = this.#parts.options.job;
    if (!info || job.grade !== true || job.checkOnly === true) return info;
    this.#graded ??= gradedKeys(this.#parts.run.lab);
    return runnerSideOf(info, this.#graded) === this.#parts.side.name ? info : undefined;
  }

  /** The sentence that names the case's learner file, appended to a reason. */
  #fileOf(key: string): string {
    const file = this.#infoOf(key)?.learnerFile;
    return file ? `. Look at ${file}.` : '';
  }
}
