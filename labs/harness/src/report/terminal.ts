/**
 * The terminal reporter: a compact plain-text summary of one run, at most 110 columns wide on a terminal, and with
 * nothing cut when the output is not a terminal (a CI log, a Slurm job's output file: nobody scrolls sideways there,
 * and a cut reason or grade is lost for good). It prints only what is in Results; every string from the results file
 * is made terminal-safe (no escapes). No colour is used, so NO_COLOR needs no special handling.
 */
import { resolutionSentence } from './resolution.ts';
import { caseLabel, correctnessDetail, correctnessStatus, formatFixed, formatFixedInterval, formatPercent, formatSignificant, formatSpeedup, formatThroughput, formatTime, formatTimeWithInterval, type Grade, headlineSentence, machineOneLiner, NOISY_TEXT, OVERSUBSCRIBED_TEXT, type Results, terminalText } from '@parallel-course/core';
import { baselineVariants, findCase } from './select.ts';
import { renderTextTable, TERMINAL_WIDTH, truncate, wrapText } from '../text-table.ts';



/** Flags of a case: "noisy (spread 15%)" (robust spread, see NOISY_TEXT) and/or "oversubscribed". */
function caseFlags(summary: { noisy: boolean; robustCv: number }, oversubscribed: boolean): string {
  const flags: string[] = [];
  if (summary.noisy) flags.push(`noisy (spread ${formatPercent(summary.robustCv)})`);
  if (oversubscribed) flags.push('oversubscribed');
  return flags.join(', ');
}

export interface TerminalSummaryOptions {
  /**
   * Widest line in columns: TERMINAL_WIDTH on a terminal, where tables shrink one column to fit; null when stdout
   * is not a terminal: every line in full (the default of runLab follows process.stdout.isTTY).
   */
  width?: number | null;
}

/** Formats the whole run for a terminal: header, correctness, times, speedups, observations, headline, overhead. */
/**
 * The grade block: one line per graded case, then the verdict. Ratio = solution time / your time. Lines are whole;
 * the caller wraps them (a grade's reason is never cut).
 */
export function formatGrade(grade: Grade): string[] {
  const lines = [`Grade (your code against the solution, measured together in this run; target: ${grade.targetText}):`];
  for (const e of grade.entries) {
    const label = caseLabel(e);
    lines.push(
      e.notAttempted
        ? `  ${label}: ${e.reason ?? 'not attempted (optional)'}`
        : e.ratio === null || e.ci95 === null
        ? `  ${label}: not graded: ${e.reason ?? 'no ratio'}`
        : `  ${label}: ${formatFixed(e.ratio, 2)} of the solution ${formatFixedInterval(e.ci95, 2)}: ${e.passed ? 'PASS' : 'FAIL'}${e.uncertain ? ' (uncertain: the interval straddles the target; rerun to be sure)' : ''}${e.reason ? ` (${e.reason})` : ''}`,
    );
  }
  lines.push(
    `  ${grade.passed ? 'Passed' : 'Not passed'}: a graded case fails when its whole interval lies below ${grade.target} of the solution's throughput.` +
      `${grade.oversubscribed ? ' Measured oversubscribed: see the notes.' : ''}`,
  );
  return lines;
}

export function formatTerminalSummary(results: Results, options: TerminalSummaryOptions = {}): string {
  const width = options.width === undefined ? TERMINAL_WIDTH : options.width;
  const maxWidth = width ?? Number.POSITIVE_INFINITY;
  /** A one-line fact: cut to the width on a terminal, whole otherwise. */
  const line = (text: string) => (width === null ? terminalText(text) : truncate(terminalText(text), width));
  /** A sentence that must be read whole: wrapped under a hanging indent on a terminal, one line otherwise. */
  const wrapped = (text: string, indent: string) => (width === null ? [`${indent}${terminalText(text)}`] : wrapText(text, width, indent, Number.POSITIVE_INFINITY));
  const out: string[] = [];
  /** A section: a blank line, its title, its table; `flexibleColumn` is the column cut to fit the width. */
  const table = (title: string, headers: string[], rows: string[][], flexibleColumn: number) =>
    out.push('', title, ...renderTextTable(headers, rows, { maxWidth, flexibleColumn }));
  const env = results.environment;
  const baselines = new Set(baselineVariants(results));

  // Header: what ran, where.
  out.push(line(`${results.lab} · ${results.title}`));
  out.push(
    line(`impl: ${results.impl} · ${results.quick ? 'quick run' : 'full run'} · seed ${results.seed} · ${results.startedAt}`),
  );
  out.push(line(`machine: ${machineOneLiner(env)}`));

  table(
    'Correctness',
    ['case', 'result', 'comparator'],
    results.correctness.map((entry) => [caseLabel(entry), correctnessStatus(entry), entry.comparator]),
    2,
  );
  // Each failure in full below the table: the reason is what the learner must fix, so it is never cut short.
  for (const entry of results.correctness) {
    if (entry.passed) continue;
    out.push(...wrapped(`${caseLabel(entry)}: ${correctnessStatus(entry)}: ${correctnessDetail(entry)}`, '  ! '));
  }

  let anyNoisy = false;
  let anyOversubscribed = false;
  if (results.cases.length > 0) {
    table(
      'Times (median time per sample [95% interval], throughput at the median)',
      ['case', 'median [95% CI]', 'throughput', 'n', 'flags'],
      results.cases.map((c) => {
        anyNoisy ||= c.summary.noisy;
        anyOversubscribed ||= c.oversubscribed;
        const label = baselines.has(c.variant) ? `${caseLabel(c)} [baseline]` : caseLabel(c);
        return [
          label,
          formatTimeWithInterval(c.summary.median, c.summary.ci95),
          formatThroughput(c.workPerSample, c.summary.median),
          String(c.summary.n),
          caseFlags(c.summary, c.oversubscribed),
        ];
      }),
      0,
    );
  } else {
    out.push('', 'Times: no case was measured (every variant failed its check or was skipped).');
  }

  if (results.speedups.length > 0) {
    table(
      'Speedups (median baseline / median variant time [95% interval]; efficiency vs 1 worker, else baseline)',
      ['case', 'vs', 'speedup [95% CI]', 'efficiency', 'flags'],
      results.speedups.map((s) => {
        anyOversubscribed ||= s.oversubscribed;
        const measured = findCase(results, s.variant, s.params);
        const flags = measured ? caseFlags(measured.summary, s.oversubscribed) : s.oversubscribed ? 'oversubscribed' : '';
        return [
          caseLabel(s),
          s.baseline,
          formatSpeedup(s),
          s.efficiency === undefined ? '-' : formatPercent(s.efficiency),
          flags,
        ];
      }),
      0,
    );
  }
  if (anyOversubscribed) out.push(line(`  ${OVERSUBSCRIBED_TEXT} (${env.availableParallelism} here)`));
  if (anyNoisy) out.push(line(`  ${NOISY_TEXT}`));

  const observationRows = results.cases.flatMap((c) =>
    Object.entries(c.observations).map(([name, o]) => {
      const value = (v: number | null) => (v === null ? '-' : `${formatSignificant(v)} ${o.unit}`);
      return [caseLabel(c), name, value(o.p50), value(o.p99), value(o.max), String(o.samples.length)];
    }),
  );
  if (observationRows.length > 0) {
    table('Observations (recorded while each case was measured)', ['case', 'observation', 'p50', 'p99', 'max', 'n'], observationRows, 1);
  }

  out.push('');
  out.push(line(results.headline === null ? 'Headline: none (no speedup was measured)' : `Headline: ${headlineSentence(results.headline)}`));
  const unresolved = resolutionSentence(results);
  if (unresolved !== null) out.push(...wrapped(unresolved, '  '));
  out.push(line(`Harness overhead: ${formatTime(results.harnessOverheadMs)} per sample (median time of an empty sample)`));
  if (results.grade) out.push('', ...formatGrade(results.grade).flatMap((l) => wrapped(l.trimStart(), l.slice(0, l.length - l.trimStart().length))));
  if (results.notes.length > 0) {
    out.push('Notes:');
    for (const note of results.notes) out.push(...wrapped(note, '  - '));
  }
  // Tables shrink one column to fit; this last cut covers rows whose other columns alone are too wide.
  return `${out.map((l) => (width === null ? l : truncate(l, width))).join('\n')}\n`;
}

