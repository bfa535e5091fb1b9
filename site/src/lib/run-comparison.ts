/**
 * The learner's run beside the course's run of the same lab, case by case, with the verdict `npm run report --
 * --compare` gives (the harness's compare-runs.ts: the 95% bootstrap interval of the ratio of medians from the two
 * runs' own samples, and its caveats). Pure, no DOM: the rows are plain text for `textTable`. Loaded only when the
 * learner opens a file (it brings the schema, zod, with the validator).
 */
import { caseLabel, formatRatio, formatSignificant, formatTimeWithInterval, type Results, sameParams } from '@parallel-course/core';
import { compareRuns, IncomparableRunError, type RunComparison, type Verdict } from '@parallel-course/harness/compare-runs.ts';

/** The verdict in the viewer's words: the learner's run is "current", the course's run "earlier". */
export const VERDICT_WORDS: Readonly<Record<Verdict, string>> = {
  faster: 'faster',
  slower: 'slower',
  'within-noise': 'within noise',
  'only-in-this-run': 'only in your run',
  'only-in-earlier-run': 'only in the reference',
};

/** One line of the comparison table, every cell as text. */
export interface ComparisonRow {
  case: string;
  /** The course run's median with its 95% interval, e.g. "41.0 ms [40.7, 41.5]", or "-" when it lacks the case. */
  reference: string;
  /** The learner's median with its interval, or "-". */
  yours: string;
  /** reference median / your median, e.g. "0.50x" (above 1: yours is faster), or "-". */
  ratio: string;
  /** The ratio's 95% bootstrap interval, e.g. "[0.48, 0.52]", or "-". */
  ratioCi: string;
  verdict: Verdict;
  verdictWords: string;
}

/** The outcome of comparing: the comparison, or why the runs cannot be compared (numbers that do not recompute). */
export type ViewerComparison = { ok: true; comparison: RunComparison } | { ok: false; reason: string };

/**
 * compareRuns(course run, learner's run), with the caveats naming "the reference run" / "your run"; a run whose
 * numbers do not recompute from its samples is refused, with the harness's reason.
 */
export function compareWithReference(reference: Results, yours: Results, referenceName = 'the reference run'): ViewerComparison {
  try {
    return { ok: true, comparison: compareRuns(reference, yours, { names: { earlier: referenceName, current: 'your run' } }) };
  } catch (error) {
    if (error instanceof IncomparableRunError) return { ok: false, reason: error.message };
    throw error;
  }
}

function medianText(results: Results, variant: string, params: Results['cases'][number]['params']): string {
  const found = results.cases.find((c) => c.variant === variant && sameParams(c.params, params));
  return found ? formatTimeWithInterval(found.summary.median, found.summary.ci95) : '-';
}

/** The table rows of a comparison, in its order (the learner's cases, then those only the reference has). */
export function comparisonRows(reference: Results, yours: Results, comparison: RunComparison): ComparisonRow[] {
  return comparison.cases.map((c) => ({
    case: caseLabel(c),
    reference: medianText(reference, c.variant, c.params),
    yours: medianText(yours, c.variant, c.params),
    ratio: c.ratio === null ? '-' : formatRatio(c.ratio),
    ratioCi: c.ci95 === null ? '-' : `[${formatSignificant(c.ci95[0])}, ${formatSignificant(c.ci95[1])}]`,
    verdict: c.verdict,
    verdictWords: VERDICT_WORDS[c.verdict],
  }));
}

/** How many cases got each verdict, for the sentence over the table: "2 slower, 5 within noise". */
export function verdictCounts(rows: readonly ComparisonRow[]): string {
  const order: Verdict[] = ['faster', 'slower', 'within-noise', 'only-in-this-run', 'only-in-earlier-run'];
  return order
    .map((v) => [v, rows.filter((r) => r.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${VERDICT_WORDS[v]}`)
    .join(', ');
}
