/**
 * `npm run lab -- --status`: each lab's state for this learner, like a progress list.
 *   not started  every failing case is "not implemented" (the shipped TODOs are untouched or unfinished)
 *   failing      some case gives a wrong answer, throws or hangs
 *   passing      every case passes the check, but no run of the exercise has been measured yet
 *   measured     every case passes, and results/<lab>/ holds a run of the exercise in which every case passed
 * The state comes from the exercise's check now (not from old results), so a broken edit after a good run shows.
 */
import type { CorrectnessEntry, Results } from '@parallel-course/core';
import type { RunOnDisk } from './results-reader.ts';
import { headlineSentence } from './report/format.ts';
import { renderTextTable } from './report/text-table.ts';
import { checkLab, type CheckLabOptions, type CheckLabOutcome } from './run-lab.ts';

/**
 * The check of one lab for --status (checkLab: a fresh supervised runner process, so it sees the learner's current
 * files and a hung call ends within its limit), with an error that is not one case's (an unknown lab) as a value.
 */
export async function checkForStatus(options: CheckLabOptions): Promise<CheckLabOutcome | { error: string }> {
  try {
    return await checkLab(options);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

export type LabState = 'not started' | 'failing' | 'passing' | 'measured' | 'error';

export interface LabStatus {
  lab: string;
  state: LabState;
  /** One line: what to do next, or what was measured. */
  detail: string;
}

/** The latest run of the learner's own code in which every case passed, or null. */
export function latestMeasuredRun(runs: RunOnDisk[]): Results | null {
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i]?.results;
    if (r && r.impl === 'exercise' && r.correctness.every((e) => e.passed)) return r;
  }
  return null;
}

/** The state of one lab from its check (or the error that stopped the check) and its runs on disk. Pure. */
export function labStatus(lab: string, check: CorrectnessEntry[] | { error: string }, runs: RunOnDisk[]): LabStatus {
  if (!Array.isArray(check)) {
    return { lab, state: 'error', detail: `the check could not run: ${check.error.split('\n')[0]}` };
  }
  const failing = check.filter((e) => !e.passed);
  const todo = failing.filter((e) => e.notImplemented);
  if (failing.length > 0 && todo.length === failing.length) {
    return { lab, state: 'not started', detail: `${todo.length} of ${check.length} cases not implemented: npm run lab -- ${lab} --watch` };
  }
  if (failing.length > 0) {
    const first = failing.find((e) => !e.notImplemented) ?? failing[0]!;
    return {
      lab,
      state: 'failing',
      detail: `${failing.length} of ${check.length} cases fail; first: ${first.variant}: ${first.reason ?? 'failed'}`,
    };
  }
  const measured = latestMeasuredRun(runs);
  if (!measured) return { lab, state: 'passing', detail: `all ${check.length} cases pass; measure them: npm run lab -- ${lab}` };
  return {
    lab,
    state: 'measured',
    detail: `${measured.startedAt.slice(0, 16).replace('T', ' ')}: ${measured.headline ? headlineSentence(measured.headline) : 'no headline speedup'}`,
  };
}

const MARK: Record<LabState, string> = {
  'not started': '[ ]',
  failing: '[x]',
  passing: '[~]',
  measured: '[v]',
  error: '[!]',
};

/** The progress list for the terminal. */
export function formatStatus(statuses: LabStatus[]): string {
  const rows = statuses.map((s) => [MARK[s.state], s.lab, s.state, s.detail]);
  const done = statuses.filter((s) => s.state === 'measured').length;
  return [
    ...renderTextTable(['', 'lab', 'state', 'next step / last result'], rows, { maxWidth: 110 }),
    `${done} of ${statuses.length} labs measured.`,
  ].join('\n');
}
