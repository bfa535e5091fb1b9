/**
 * The terminal reporter: a compact plain-text summary of one run, at most 110 columns wide.
 * It prints only what is in Results; every string from the results file is made terminal-safe (no escapes).
 * No colour is used, so NO_COLOR and non-TTY output need no special handling.
 */
import { resolutionSentence } from './resolution.ts';
import { caseLabel, correctnessDetail, correctnessStatus, formatPercent, formatSignificant, formatSpeedup, formatThroughput, formatTime, formatTimeWithInterval, type Grade, headlineSentence, machineOneLiner, NOISY_TEXT, OVERSUBSCRIBED_TEXT, type Results, terminalText } from '@parallel-course/core';
import { baselineVariants, findCase } from './select.ts';
import { renderTextTable, truncate, wrapText } from '../text-table.ts';

/** Widest line the summary prints, in columns. */
export const TERMINAL_WIDTH = 110;


/** Flags of a case: "noisy (spread 15%)" (robust spread, see NOISY_TEXT) and/or "oversubscribed". */
function caseFlags(summary: { noisy: boolean; robustCv: number }, oversubscribed: boolean): string {
  const flags: string[] = [];
  if (summary.noisy) flags.push(`noisy (spread ${formatPercent(summary.robustCv)})`);
  if (oversubscribed) flags.push('oversubscribed');
  return flags.join(', ');
}

function line(text: string): string {
  return truncate(terminalText(text), TERMINAL_WIDTH);
}

/** Formats the whole run for a terminal: header, correctness, times, speedups, observations, headline, overhead. */
/** The grade block: one line per graded case, then the verdict. Ratio = reference time / your time. */
export function formatGrade(grade: Grade): string[] {
  const lines = [`Grade (your code against the reference solution, measured together in this run; target: ${grade.targetText}):`];
  for (const e of grade.entries) {
    const label = caseLabel(e);
    lines.push(
      e.notAttempted
        ? `  ${label}: ${e.reason ?? 'not attempted (optional)'}`
        : e.ratio === null || e.ci95 === null
        ? `  ${label}: not graded: ${e.reason ?? 'no ratio'}`
        : `  ${label}: ${e.ratio.toFixed(2)} of the reference [${e.ci95[0].toFixed(2)}, ${e.ci95[1].toFixed(2)}]: ${e.passed ? 'PASS' : 'FAIL'}${e.uncertain ? ' (uncertain: the interval straddles the target; rerun to be sure)' : ''}${e.reason ? ` (${e.reason})` : ''}`,
    );
  }
  lines.push(
    `  ${grade.passed ? 'Passed' : 'Not passed'}: a graded case fails when its whole interval lies below ${grade.target} of the reference's throughput.` +
      `${grade.oversubscribed ? ' Measured oversubscribed: see the notes.' : ''}`,
  );
  return lines;
}

export function formatTerminalSummary(results: Results): string {
  const out: string[] = [];
  const env = results.environment;
  const baselines = new Set(baselineVariants(results));

  // Header: what ran, where.
  out.push(line(`${results.lab} · ${results.title}`));
  out.push(
    line(`impl: ${results.impl} · ${results.quick ? 'quick run' : 'full run'} · seed ${results.seed} · ${results.startedAt}`),
  );
  out.push(line(`machine: ${machineOneLiner(env)}`));

  out.push('', 'Correctness');
  out.push(
    ...renderTextTable(
      ['case', 'result', 'comparator'],
      results.correctness.map((entry) => [caseLabel(entry), correctnessStatus(entry), entry.comparator]),
      { maxWidth: TERMINAL_WIDTH },
    ),
  );
  // Each failure in full below the table: the reason is what the learner must fix, so it is never cut short.
  for (const entry of results.correctness) {
    if (entry.passed) continue;
    out.push(...wrapText(`${caseLabel(entry)}: ${correctnessStatus(entry)}: ${correctnessDetail(entry)}`, TERMINAL_WIDTH, '  ! '));
  }

  let anyNoisy = false;
  let anyOversubscribed = false;
  if (results.cases.length > 0) {
    out.push('', 'Times (median time per sample [95% interval], throughput at the median)');
    out.push(
      ...renderTextTable(
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
        { maxWidth: TERMINAL_WIDTH, flexibleColumn: 0 },
      ),
    );
  } else {
    out.push('', 'Times: no case was measured (every variant failed its check or was skipped).');
  }

  if (results.speedups.length > 0) {
    out.push('', 'Speedups (median baseline / median variant time [95% interval]; efficiency vs 1 worker, else baseline)');
    out.push(
      ...renderTextTable(
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
        { maxWidth: TERMINAL_WIDTH, flexibleColumn: 0 },
      ),
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
    out.push('', 'Observations (recorded while each case was measured)');
    out.push(
      ...renderTextTable(['case', 'observation', 'p50', 'p99', 'max', 'n'], observationRows, {
        maxWidth: TERMINAL_WIDTH,
        flexibleColumn: 1,
      }),
    );
  }

  out.push('');
  out.push(line(results.headline === null ? 'Headline: none (no speedup was measured)' : `Headline: ${headlineSentence(results.headline)}`));
  const unresolved = resolutionSentence(results);
  if (unresolved !== null) out.push(...wrapText(unresolved, TERMINAL_WIDTH, '  '));
  out.push(line(`Harness overhead: ${formatTime(results.harnessOverheadMs)} per sample (median time of an empty sample)`));
  if (results.grade) out.push('', ...formatGrade(results.grade).map(line));
  if (results.notes.length > 0) {
    out.push('Notes:');
    for (const note of results.notes) out.push(...wrapText(note, TERMINAL_WIDTH, '  - '));
  }
  // Tables shrink one column to fit; this last cut covers rows whose other columns alone are too wide.
  return `${out.map((l) => truncate(l, TERMINAL_WIDTH)).join('\n')}\n`;
}

