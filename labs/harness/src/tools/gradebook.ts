/**
 * The gradebook of a class folder (`npm run class`): one row per learner and lab with correctness, each grade with its
 * interval, and whether the numbers recompute; as an HTML table for the class page and as CSV an LMS can import (one
 * row per learner and lab, plain columns, RFC 4180 quoting). Rows come from each file's own validation: a file whose
 * numbers do not recompute gets no grade, whatever it claims.
 */
import { caseLabel, csvField, escapeHtml, formatFixed, formatFixedInterval, formatSignificant, plausibilityFlags, type Results } from '@parallel-course/core';
import { validateFile, type ValidateFileOptions } from './validate.ts';

export interface GradebookRow {
  learner: string;
  lab: string;
  /**
   * ok: valid; check-failed: valid numbers, some case failed its check; self-reported: a run in a browser page (its
   * clock belongs to the page, so it is never a grade); invalid: numbers do not recompute; refused.
   */
  status: 'ok' | 'check-failed' | 'self-reported' | 'invalid' | 'refused';
  checksPassed: number;
  checksTotal: number;
  /** pass / fail, or none when the run was not graded (or cannot be trusted). */
  grade: 'pass' | 'fail' | 'none';
  target: number | null;
  /** `notAttempted`: an optional exercise's case the learner left alone; not counted as graded. */
  cases: { label: string; ratio: number | null; ci95: [number, number] | null; passed: boolean; uncertain: boolean; notAttempted?: boolean }[];
  cpusForced: boolean;
  oversubscribed: boolean;
  problem: string;
}

/** Why a browser page's results file is not a grade. */
export const SELF_REPORTED = "self-reported: measured in a browser page, whose clock belongs to the page's scripts; practice, not a grade (grade with npm run lab -- <lab> --grade)";

/** One row from one file's validation (file name = learner). */
export function gradebookRow(learner: string, file: string, options: ValidateFileOptions = {}): GradebookRow {
  const blank = { learner, lab: '', checksPassed: 0, checksTotal: 0, grade: 'none' as const, target: null, cases: [], cpusForced: false, oversubscribed: false };
  let result;
  try {
    result = validateFile(file, options);
  } catch (error) {
    return { ...blank, status: 'invalid', problem: (error as Error).message.split('\n')[0] ?? '' };
  }
  if (result.refused) return { ...blank, status: 'refused', problem: result.refused.message };
  const r: Results | null = result.results;
  if (!r) return { ...blank, status: 'invalid', problem: result.problems[0] ?? 'not a results file' };
  const numbers = result.problems.filter((p) => !p.startsWith('correctness: '));
  const checksPassed = r.correctness.filter((e) => e.passed).length;
  const base = { learner, lab: r.lab, checksPassed, checksTotal: r.correctness.length, cpusForced: r.cpus.forced, oversubscribed: r.grade?.oversubscribed ?? false };
  if (numbers.length > 0) return { ...base, status: 'invalid', grade: 'none', target: null, cases: [], problem: numbers[0] ?? '' };
  if (r.runtime === 'browser') {
    return { ...base, status: 'self-reported', grade: 'none', target: null, cases: [], problem: SELF_REPORTED };
  }
  const allChecksPassed = checksPassed === r.correctness.length;
  return {
    ...base,
    status: allChecksPassed ? 'ok' : 'check-failed',
    // A run with a failed check is never a pass, whatever its ratios (the failed case may be the one that was fast).
    grade: r.grade === null ? 'none' : r.grade.passed && allChecksPassed ? 'pass' : 'fail',
    target: r.grade?.target ?? null,
    cases: (r.grade?.entries ?? []).map((e) => ({ label: caseLabel(e), ratio: e.ratio, ci95: e.ci95, passed: e.passed, uncertain: e.uncertain, ...(e.notAttempted ? { notAttempted: true } : {}) })),
    // An implausible ratio is named where an instructor looks first (its grade already does not pass).
    problem: result.problems[0] ?? (plausibilityFlags(r)[0] ? `implausible: ${plausibilityFlags(r)[0]!.message}` : ''),
  };
}


const GRADEBOOK_COLUMNS = ['learner', 'lab', 'status', 'checks_passed', 'checks_total', 'grade', 'target', 'cases_passed', 'cases_graded', 'lowest_ratio', 'lowest_ratio_ci_low', 'lowest_ratio_ci_high', 'cpus_forced', 'oversubscribed', 'problem'] as const;

export function gradebookCsv(rows: GradebookRow[]): string {
  const lines = [GRADEBOOK_COLUMNS.join(',')];
  for (const row of rows) {
    const graded = row.cases.filter((c) => c.ratio !== null);
    const lowest = graded.reduce<(typeof graded)[number] | null>((low, c) => (low === null || (c.ratio as number) < (low.ratio as number) ? c : low), null);
    lines.push(
      [row.learner, row.lab, row.status, row.checksPassed, row.checksTotal, row.grade, row.target, row.cases.filter((c) => c.passed).length, row.cases.filter((c) => !c.notAttempted).length, lowest?.ratio ?? null, lowest?.ci95?.[0] ?? null, lowest?.ci95?.[1] ?? null, row.cpusForced, row.oversubscribed, row.problem]
        // Numbers to four significant digits, kept numeric so a spreadsheet or an LMS reads them as numbers.
        .map((v) => csvField(typeof v === 'number' ? Number(formatSignificant(v, 4)) : v))
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The gradebook as an HTML table for the class page. */
export function gradebookHtml(rows: GradebookRow[]): string {
  if (rows.length === 0) return '<p>No submissions.</p>';
  const cell = (text: string) => `<td>${escapeHtml(text)}</td>`;
  const body = rows
    .map((row) => {
      const cases = row.cases.map((c) => `${c.label}: ${c.notAttempted ? 'not attempted (optional)' : c.ratio === null ? 'not graded' : `${formatFixed(c.ratio, 2)}${c.ci95 ? ` ${formatFixedInterval(c.ci95, 2)}` : ''} ${c.passed ? 'pass' : 'FAIL'}${c.uncertain ? ' (uncertain)' : ''}`}`).join('; ');
      const flags = [row.cpusForced ? 'CPUs forced' : '', row.oversubscribed ? 'oversubscribed' : ''].filter(Boolean).join(', ');
      return `<tr>${[row.learner, row.lab, row.status, `${row.checksPassed}/${row.checksTotal}`, row.grade === 'none' ? '-' : `${row.grade} (target ${row.target})`, cases || '-', flags || '-', row.problem].map(cell).join('')}</tr>`;
    })
    .join('\n');
  return `<table><thead><tr>${['learner', 'lab', 'status', 'checks passed', 'grade', 'graded cases: ratio to the solution [95% CI]', 'flags', 'first problem'].map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>
${body}
</tbody></table>`;
}
