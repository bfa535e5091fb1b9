/**
 * `npm run lab -- --status`: each lab's state for this learner, in words, with what to do next.
 *   not started  every failing case is still the exercise to do: "not implemented", or a variant that ships wrong on
 *                purpose (the race of task-granularity) whose file still holds its TODO(learner)
 *   failing      some case gives a wrong answer, throws or hangs
 *   passing      every case passes the check, but no run of the exercise has been measured yet
 *   measured     every case passes, and results/<lab>/ holds a run of the exercise in which every case passed
 * The state comes from the exercise's check (cached by the content of what it depends on: status-cache.ts), not
 * from old results, so a broken edit after a good run shows.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { LabDefinition } from '../lab-definition.ts';
import { errorText } from '../errors.ts';
import type { CorrectnessEntry, Results } from '@parallel-course/core';
import type { RunOnDisk } from '../write/results-reader.ts';
import { headlineSentence, terminalText as terminalSafe } from '@parallel-course/core';
import { learnerFileOf } from '../measure/run-cases.ts';
import type { CachedCheck } from './status-cache.ts';
import { checkLab, type CheckLabOptions, type CheckLabOutcome } from '../run/run-lab.ts';
/**
 * The check of one lab for --status (checkLab: a fresh supervised runner process, so it sees the learner's current
 * files and a hung call ends within its limit), with an error that is not one case's (an unknown lab) as a value.
 */
export async function checkForStatus(options: CheckLabOptions): Promise<CheckLabOutcome | { error: string }> {
  try {
    return await checkLab(options);
  } catch (error) {
    return { error: errorText(error) };
  }
}

export type LabState = 'not started' | 'failing' | 'passing' | 'measured' | 'error';

export interface LabStatus {
  lab: string;
  state: LabState;
  /** What was found, in one sentence. */
  detail: string;
  /** What to do next, in words. */
  next: string;
  /** The command that does it, printed on its own line so that it is never wrapped. */
  command: string;
}

/** The marker the shipped exercises leave where the learner writes code. */
const TODO_MARK = 'TODO(learner)';

/**
 * The variants of `lab` that ship failing on purpose (VariantInfo.shipsFailing) and whose learner file still holds
 * its TODO(learner) in the exercise: their failure is the exercise, not a bug.
 */
export function designedFailuresOf(lab: Pick<LabDefinition<unknown, unknown>, 'name' | 'variants'>, rootDir: string): CachedCheck['designedFailures'] {
  const out: CachedCheck['designedFailures'] = [];
  for (const info of lab.variants) {
    if (!info.shipsFailing) continue;
    const file = learnerFileOf(info, lab.name, 'exercise');
    const full = file === null ? null : path.join(rootDir, file);
    if (full && existsSync(full) && readFileSync(full, 'utf8').includes(TODO_MARK)) {
      out.push({ variant: info.name, lesson: info.shipsFailing });
    }
  }
  return out;
}

/** The latest run of the learner's own code in which every case passed, or null. */
function latestMeasuredRun(runs: RunOnDisk[]): Results | null {
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i]?.results;
    if (r && r.impl === 'exercise' && r.correctness.every((e) => e.passed)) return r;
  }
  return null;
}

function cases(n: number): string {
  return n === 1 ? '1 case' : `${n} cases`;
}

/** The state of one lab from its check (or the error that stopped the check) and its runs on disk. Pure. */
export function labStatus(
  lab: string,
  check: CorrectnessEntry[] | { error: string },
  runs: RunOnDisk[],
  designedFailures: CachedCheck['designedFailures'] = [],
): LabStatus {
  const watch = `npm run lab -- ${lab} --watch`;
  if (!Array.isArray(check)) {
    return {
      lab,
      state: 'error',
      detail: `the check could not run: ${check.error.split('\n')[0]}`,
      next: 'fix that; the whole message comes with a check of the lab',
      command: watch,
    };
  }
  const failing = check.filter((e) => !e.passed);
  const designed = new Map(designedFailures.map((d) => [d.variant, d.lesson]));
  const todo = failing.filter((e) => e.notImplemented);
  const onPurpose = failing.filter((e) => !e.notImplemented && designed.has(e.variant));
  const wrong = failing.filter((e) => !e.notImplemented && !designed.has(e.variant));
  if (failing.length > 0 && wrong.length === 0) {
    const parts = [];
    if (todo.length > 0) parts.push(`${cases(todo.length)} of ${check.length} not written yet`);
    for (const variant of new Set(onPurpose.map((e) => e.variant))) {
      parts.push(`'${variant}' fails as shipped because ${designed.get(variant)}`);
    }
    return {
      lab,
      state: 'not started',
      detail: `${parts.join('; ')}.`,
      next: `write the TODO(learner) parts of exercises/${lab}/ (each comment says what), checked on every save`,
      command: watch,
    };
  }
  if (wrong.length > 0) {
    const first = wrong[0]!;
    return {
      lab,
      state: 'failing',
      detail: `${cases(failing.length)} of ${check.length} fail; first: ${first.variant}: ${first.reason ?? 'failed'}`,
      next: `fix '${first.variant}': the full message and its fix come with each check`,
      command: watch,
    };
  }
  const measured = latestMeasuredRun(runs);
  if (!measured) {
    return { lab, state: 'passing', detail: `all ${check.length} cases pass the check.`, next: 'measure them', command: `npm run lab -- ${lab}` };
  }
  return {
    lab,
    state: 'measured',
    detail: `measured ${measured.startedAt.slice(0, 16).replace('T', ' ')}: ${measured.headline ? headlineSentence(measured.headline) : 'no headline speedup'}`,
    next: 'compare your code with the solution',
    command: `npm run lab -- ${lab} --grade --quick`,
  };
}

/** Wraps `text` into lines of at most `width` columns (a word longer than that keeps its own line, uncut). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Text width of the status, indent included: fits an 80-column terminal after the indent. */
const WIDTH = 100;
const INDENT = '    ';

/**
 * The progress list for the terminal: per lab, "<lab>: <state>", then what was found and what to do next, wrapped
 * (never cut) under an indent. `reused` names the labs whose check came from the cache.
 */
export function formatStatus(statuses: LabStatus[], reused: ReadonlySet<string> = new Set()): string {
  const out: string[] = [];
  for (const s of statuses) {
    const cached = reused.has(s.lab) ? ' (nothing changed since the last check)' : '';
    out.push(`${s.lab}: ${s.state}${cached}`);
    for (const line of wrapWords(terminalSafe(s.detail), WIDTH - INDENT.length)) out.push(`${INDENT}${line}`);
    for (const line of wrapWords(`next: ${terminalSafe(s.next)}:`, WIDTH - INDENT.length)) out.push(`${INDENT}${line}`);
    out.push(`${INDENT}  ${s.command}`);
  }
  const done = statuses.filter((s) => s.state === 'measured').length;
  out.push(`${done} of ${statuses.length} labs measured.`);
  return out.join('\n');
}
