/**
 * `npm run lab -- <lab> --compare <run folder>`: this run against an earlier one (the learner's last attempt, or the
 * solution's run), case by case, with a statistical verdict: faster, slower or within noise, from the 95%
 * interval of the ratio of the variant's two speedups over the baseline, each within its own run, so that drift of
 * the machine between the runs cancels (core's compare-runs.ts). The baseline's own row shows that drift, and a caveat says
 * by how much when it is clear.
 * A run whose numbers do not recompute from its samples (edited, or an older harness) is refused; one with failed
 * cases is flagged.
 */
import { caseLabel, formatBracketInterval, formatPercent, formatRatio, formatTime, type Results, terminalText } from '@parallel-course/core';
import {
  comparabilityProblems,
  compareRuns as compareRunsPure,
  IncomparableRunError,
  type CompareRunsOptions,
  type RunComparison,
  type Verdict,
} from '@parallel-course/core';
import { renderTextTable } from '../text-table.ts';
import { UsageError } from '../errors.ts';

// The comparison itself is pure and browser-safe (core's compare-runs.ts, used by the site's results viewer too); this
// file adds what the command line needs: its error type, sanitised text and the terminal table.

/** A refused run as the command line's UsageError (exit code 2), its text made safe for a terminal. */
function asUsageError(error: unknown): unknown {
  return error instanceof IncomparableRunError ? new UsageError(terminalText(error.message)) : error;
}

/**
 * Problems that make a run unfit to compare with: numbers that do not recompute (thrown as a UsageError naming the
 * run) and failed cases (returned, as caveats).
 */
export function comparabilityCaveats(results: Results, which: string): string[] {
  try {
    return comparabilityProblems(results, which);
  } catch (error) {
    throw asUsageError(error);
  }
}

/** Compares every case the two runs share, plus the cases only one of them has (compare-runs.ts); a run whose numbers
 * do not recompute is refused with a UsageError. */
export function compareRuns(earlier: Results, current: Results, options: CompareRunsOptions = {}): RunComparison {
  try {
    return compareRunsPure(earlier, current, options);
  } catch (error) {
    throw asUsageError(error);
  }
}

const VERDICT_TEXT: Record<Verdict, string> = {
  faster: 'faster',
  slower: 'SLOWER',
  'within-noise': 'within noise',
  machine: 'the machine (baseline)',
  'no-verdict': 'no verdict',
  'only-in-this-run': 'new in this run',
  'only-in-earlier-run': 'not in this run',
};

/** The comparison as a terminal table with one verdict per case, then the caveats; text from the files is sanitised
 * (renderTextTable does the cells, terminalText the rest). `maxWidth`: Infinity when stdout is not a terminal. */
export function formatComparison(comparison: RunComparison, maxWidth = 120): string {
  const rule = comparison.threshold > 0 ? `touches 1 +- ${formatPercent(comparison.threshold)}` : 'contains 1';
  const speedupText = (x: number | null) => (x === null ? '-' : formatRatio(x));
  const rows = comparison.cases.map((c) => [
    caseLabel(c),
    c.earlierMedianMs === null ? '-' : formatTime(c.earlierMedianMs),
    c.currentMedianMs === null ? '-' : formatTime(c.currentMedianMs),
    c.basis === 'baseline-time' ? '(baseline)' : `${speedupText(c.earlierSpeedup)} -> ${speedupText(c.currentSpeedup)}`,
    c.ratio === null ? '-' : formatRatio(c.ratio),
    c.ci95 === null ? '-' : formatBracketInterval(c.ci95),
    VERDICT_TEXT[c.verdict],
  ]);
  const lines = [
    `Compared with the ${terminalText(comparison.earlier.impl)} run of ${terminalText(comparison.earlier.startedAt)}: ` +
      'each variant by its speedup over the baseline within each run, so that a machine faster or slower in one run cancels ' +
      `(ratio = this run's speedup / the earlier run's; above 1 = this run is faster; within noise = the 95% interval ${rule}). ` +
      "The baseline's row is the machine: the earlier median / this median.",
    ...renderTextTable(['case', 'earlier', 'this run', 'speedups', 'ratio', '95% CI', 'verdict'], rows, { maxWidth, flexibleColumn: 0 }),
  ];
  for (const c of comparison.cases) {
    if (c.verdict === 'no-verdict' && c.reason !== null) lines.push(`no verdict for ${terminalText(caseLabel(c))}: ${c.reason}`);
  }
  if (comparison.cases.some((c) => c.basis === 'speedup-intervals')) {
    lines.push('note: cases measured apart from their baseline are compared by the two speedups\' own intervals (MOVER), which assumes the runs independent');
  }
  for (const caveat of comparison.caveats) lines.push(`caveat: ${terminalText(caveat)}`);
  return lines.join('\n');
}
