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
 * numbers do not recompute from its samples is refused, with the harness's reason. `yourProblems`: checkResults's
 * findings for the learner's run when the caller has them (the viewer checked the file when it was opened), so that
 * run is not recomputed a second time; the course run is checked here (its failed cases become caveats).
 */
export function compareWithReference(reference: Results, yours: Results, yourProblems?: readonly string[]): ViewerComparison {
  try {
    const checked = yourProblems !== undefined ? { checked: { current: yourProblems } } : {};
    return { ok: true, comparison: compareRuns(reference, yours, { names: { earlier: 'the reference run', current: 'your run' }, ...checked }) };
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

/** The rows to show and the sentence that comes first when the two runs are not alike (a --quick run and a full one). */
export interface LikeWithLike {
  rows: ComparisonRow[];
  /** Why some cases are left out, shown before the verdicts; null when both runs are alike (nothing left out). */
  reason: string | null;
}

/**
 * Compares like with like: a --quick run measures a smaller sweep with fewer samples than a full run, so set against
 * a full run most of its cases read "only in the reference" and the rest are judged on unequal evidence. When exactly
 * one of the two runs is --quick, only the cases both runs measured are kept, and the reason comes first.
 */
export function likeWithLike(reference: Results, yours: Results, rows: readonly ComparisonRow[]): LikeWithLike {
  if (reference.quick === yours.quick) return { rows: [...rows], reason: null };
  const shared = rows.filter((r) => r.verdict !== 'only-in-this-run' && r.verdict !== 'only-in-earlier-run');
  const left = rows.length - shared.length;
  const which = yours.quick ? 'Your run is a --quick run and the course\'s run a full one' : 'Your run is a full run and the course\'s run a --quick one';
  const cases = (n: number): string => (n === 1 ? '1 case' : `${n} cases`);
  return {
    rows: shared,
    reason:
      `${which}: a --quick run measures a smaller sweep with fewer samples, so only the ${cases(shared.length)} both runs ` +
      `measured are compared${left > 0 ? ` (${cases(left)} only one of them has ${left === 1 ? 'is' : 'are'} left out)` : ''}. ` +
      `For a full comparison, run the lab without --quick.`,
  };
}
