/**
 * `npm run lab -- <lab> --watch`: re-runs the correctness check of the learner's code on every save, with the first
 * mismatch explained. Timing only on request (`--measure`: a --quick run after each passing check).
 *
 * Each check is checkLab's: the learner's code runs in a fresh supervised runner process, so the edited file is
 * imported anew (Node caches every imported module, and a loaded addon, for the life of a process); this process only
 * waits for it. A save during a check is checked as soon as that check ends. Saves are debounced: editors write a file in several steps.
 */
import { spawn } from 'node:child_process';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorText, LabLoadError } from '../errors.ts';
import type { Impl } from '../lab-definition.ts';
import { caseLabel, correctnessDetail, type CorrectnessEntry, formatSeconds, formatSignificant } from '@parallel-course/core';
import { checkLab, type CheckLabOutcome } from '../run/run-lab.ts';

/** Quiet time after the last file event before a check starts, in ms: long enough for an editor's save sequence. */
const DEBOUNCE_MS = 200;

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

export interface WatchOptions {
  lab: string;
  impl: Impl;
  rootDir: string;
  seed?: number;
  /** After a passing check, also run `--quick` measurements (results are written as by any run). */
  measure?: boolean;
  /** Extra arguments for the measuring run, e.g. ['--out', DIR]. */
  measureArgs?: string[];
  debounceMs?: number;
  /** Where the watcher's text goes (default stdout). */
  write?: (text: string) => void;
  /** Called after every finished check, for tests and for the CLI. */
  onCheck?: (result: WatchCheckResult) => void;
}

export type WatchCheckResult =
  | { kind: 'checked'; outcome: CheckLabOutcome; trigger: string | null }
  | { kind: 'error'; message: string; trigger: string | null };

export interface WatchHandle {
  /** The folder being watched. */
  dir: string;
  /** Stops watching and stops a running check. */
  close(): Promise<void>;
}

/** The check or measuring run in progress: how to stop it, and when it has ended. */
interface Running {
  stop(): void;
  done: Promise<void>;
}

/** Files whose change should start a check: sources, not editor swap files or build output. */
export function isWatchedFile(name: string): boolean {
  const base = path.basename(name);
  if (base.startsWith('.') || base.endsWith('~') || base.startsWith('#')) return false;
  return /\.(ts|mts|js|mjs|cjs|json|cc|cpp|h|hpp)$/.test(base);
}

/**
 * Names the first failing case, the one to fix first. The check report printed just above already says what differs
 * (its reason) and what that suggests (mismatchHint), so this adds only the largest errors. Null when every case passed.
 */
export function explainFirstFailure(entries: CorrectnessEntry[], implDirLabel: string): string | null {
  const first = entries.find((e) => !e.passed);
  if (!first) return null;
  const lines = [`First problem: ${caseLabel(first)}`];
  if (first.notImplemented) {
    lines.push(`  ${first.reason ?? 'not implemented'}`, `  Write it in ${implDirLabel} (look for TODO(learner)); the check runs again when you save.`);
    return lines.join('\n');
  }
  if (first.firstMismatch === null) {
    lines.push(`  ${correctnessDetail(first)}`);
    if (first.reason?.startsWith('threw')) lines.push('  Your code threw: the message above is the error; the stack is in the terminal of a normal run.');
    return lines.join('\n');
  }
  const errors = [
    first.maxAbsError !== null ? `largest absolute error ${formatSignificant(first.maxAbsError)}` : null,
    first.maxRelError !== null ? `largest relative error ${formatSignificant(first.maxRelError)}` : null,
  ].filter((e) => e !== null);
  lines[0] = `${lines[0]} (the mismatch above${errors.length ? `; ${errors.join(', ')}` : ''})`;
  return lines.join('\n');
}

function timeOfDay(): string {
  return new Date().toTimeString().slice(0, 8);
}

/** The folder `--watch` watches, relative to the root (for messages) and absolute; an error naming the fix when it is missing. */
function watchedFolder(options: Pick<WatchOptions, 'lab' | 'impl' | 'rootDir'>): { implRel: string; dir: string } {
  const implRel = path.join(options.impl === 'exercise' ? 'exercises' : 'solutions', options.lab);
  const dir = path.join(options.rootDir, implRel);
  if (!existsSync(dir)) {
    throw new LabLoadError(`${implRel} is missing: restore it with 'git checkout -- ${implRel}'`);
  }
  return { implRel, dir };
}

/** What a finished check prints after its report: the first problem explained, if there is one, and how many cases pass. */
function checkSummary(outcome: CheckLabOutcome, implRel: string): string {
  const explained = explainFirstFailure(outcome.correctness, implRel);
  const passed = outcome.correctness.filter((e) => e.passed).length;
  const seconds = formatSeconds(outcome.elapsedMs);
  return explained === null
    ? `All ${outcome.correctness.length} cases pass (${seconds}).`
    : `${explained}\n${passed} of ${outcome.correctness.length} cases pass (${seconds}).`;
}

/**
 * Starts a `--quick` measuring run in a process of its own. It handles SIGTERM itself: it stops the lab's processes
 * and writes nothing (run/check-and-measure.ts, run/interrupt.ts).
 */
function startMeasuring(options: WatchOptions): Running {
  const args = [CLI, options.lab, '--impl', options.impl, '--quick', ...(options.measureArgs ?? [])];
  const current = spawn(process.execPath, args, { stdio: 'inherit', cwd: options.rootDir });
  const done = new Promise<void>((resolve) => current.once('exit', () => resolve()));
  return { stop: () => current.kill('SIGTERM'), done };
}

/**
 * Watches `dir` for saves of the files a check reads (isWatchedFile), debounced: `onSave` gets the changed file's path
 * relative to the root, `debounceMs` after the last event of an editor's save.
 */
function watchSaves(dir: string, implRel: string, debounceMs: number, onSave: (changed: string) => void): { close(): void } {
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { recursive: true }, (_event, filename) => {
      if (closed || filename === null || !isWatchedFile(filename)) return;
      if (timer) clearTimeout(timer);
      const changed = path.join(implRel, filename);
      timer = setTimeout(() => {
        timer = null;
        onSave(changed);
      }, debounceMs);
    });
  } catch (error) {
    throw new LabLoadError(`cannot watch ${implRel}: ${(error as Error).message}`);
  }
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}

/**
 * The checks and measuring runs of one `--watch`, one at a time. A check or measuring run is never killed on a save
 * (a lab's servers and pools must get their teardown): the save is remembered in `#pending` and checked as soon as the
 * running check or run ends.
 */
class WatchSession {
  readonly #options: WatchOptions;
  readonly #implRel: string;
  readonly #write: (text: string) => void;
  #busy: Running | null = null;
  #pending: string | null = null;
  #closed = false;
  #lastPassed = false;

  constructor(options: WatchOptions, implRel: string, write: (text: string) => void) {
    this.#options = options;
    this.#implRel = implRel;
    this.#write = write;
  }

  /** A save of `changed`: checked now, or when the running check or run ends. */
  saved(changed: string): void {
    if (this.#busy !== null) this.#pending = changed;
    else this.check(changed);
  }

  /** Checks the learner's code in a fresh supervised runner process (checkLab): the saved files are imported anew. */
  check(trigger: string | null): void {
    const options = this.#options;
    this.#write(`[${timeOfDay()}] ${trigger ? `${trigger} changed: ` : ''}checking ${options.lab} (${options.impl})...`);
    const stop = new AbortController();
    const done = checkLab({
      lab: options.lab,
      impl: options.impl,
      rootDir: options.rootDir,
      stop: stop.signal,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    }).then(
      (outcome) => this.#checked(outcome, trigger),
      (error: unknown) => this.#failed(error, trigger),
    );
    this.#busy = { stop: () => stop.abort(), done };
    void done.then(() => this.#next(true));
  }

  /** Stops what is running and waits for it to end. */
  async close(): Promise<void> {
    this.#closed = true;
    const running = this.#busy;
    if (running) {
      running.stop();
      await running.done;
    }
  }

  #checked(outcome: CheckLabOutcome, trigger: string | null): void {
    if (this.#closed) return;
    if (this.#pending !== null) {
      this.#write('(the files changed during this check: checking again)');
      return;
    }
    this.#write(outcome.report);
    this.#write(checkSummary(outcome, this.#implRel));
    this.#report({ kind: 'checked', outcome, trigger });
  }

  #failed(error: unknown, trigger: string | null): void {
    if (this.#closed || this.#pending !== null) return;
    const message = errorText(error);
    this.#write(`error: ${message}`);
    this.#report({ kind: 'error', message, trigger });
  }

  #report(result: WatchCheckResult): void {
    this.#lastPassed = result.kind === 'checked' && result.outcome.exitCode === 0;
    this.#options.onCheck?.(result);
  }

  /** What to do when a check or run ends: a check of the newest save, or measuring, or waiting. */
  #next(afterCheck: boolean): void {
    this.#busy = null;
    if (this.#closed) return;
    if (this.#pending !== null) {
      const trigger = this.#pending;
      this.#pending = null;
      this.check(trigger);
    } else if (afterCheck && this.#options.measure && this.#lastPassed) {
      this.#write(`[${timeOfDay()}] all cases pass: measuring (--quick)...`);
      const running = startMeasuring(this.#options);
      this.#busy = running;
      void running.done.then(() => this.#next(false));
    } else {
      this.#write(`[${timeOfDay()}] watching ${this.#implRel} (Ctrl+C to stop)`);
    }
  }
}

/** Starts watching `exercises/<lab>` (or `solutions/<lab>`); runs a first check at once. */
export function watchLab(options: WatchOptions): WatchHandle {
  const write = options.write ?? ((text: string) => process.stdout.write(`${text}\n`));
  const { implRel, dir } = watchedFolder(options);
  const session = new WatchSession(options, implRel, write);
  const saves = watchSaves(dir, implRel, options.debounceMs ?? DEBOUNCE_MS, (changed) => session.saved(changed));
  session.check(null);
  return {
    dir,
    async close() {
      saves.close();
      await session.close();
    },
  };
}
