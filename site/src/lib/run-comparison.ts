/**
 * The learner's run beside the course's run of the same lab, case by case, with the verdict
 * `npm run lab -- <lab> --compare <run>` gives (the core's compare-runs.ts: the 95% interval of the ratio of each
 * variant's speedups over the baseline in the two runs, so that a faster or slower machine cancels, and its caveats).
 * Pure, no DOM: the rows are plain text for `textTable`. Loaded only when the learner opens a file (it brings the schema, zod, with the validator).
 */
import { caseLabel, compareRuns, formatBracketInterval, formatRatio, formatSignificant, formatTimeWithInterval, IncomparableRunError, type Results, type RunComparison, sameParams, type Verdict } from '@parallel-course/core';

/** The verdict in the viewer's words: the learner's run is "current", the course's run "earlier". */
const VERDICT_WORDS: Readonly<Record<Verdict, string>> = {
  faster: 'faster',
  slower: 'slower',
  'within-noise': 'within noise',
  machine: 'the machine (baseline)',
  'no-verdict': 'no verdict',
  'only-in-this-run': 'only in your run',
  'only-in-earlier-run': 'only in the reference',
};

/** A row's verdict: compare-runs' own, or none where the two runs did different work in that case. */
export type RowVerdict = Verdict | 'different-work';

/** One line of the comparison table, every cell as text. */
export interface ComparisonRow {
  case: string;
  /** The course run's median with its 95% interval, e.g. "41.0 ms [40.7, 41.5]", or "-" when it lacks the case. */
  reference: string;
  /** The learner's median with its interval, or "-". */
  yours: string;
  /** your speedup / the reference's, e.g. "0.50x" (above 1: yours gained); for the baseline, reference median / yours. */
  ratio: string;
  /** The ratio's 95% interval, e.g. "[0.48, 0.52]", or "-". */
  ratioCi: string;
  verdict: RowVerdict;
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
  const found = findCase(results, variant, params);
  return found ? formatTimeWithInterval(found.summary.median, found.summary.ci95) : '-';
}

type CaseResult = Results['cases'][number];

function findCase(results: Results, variant: string, params: CaseResult['params']): CaseResult | undefined {
  return results.cases.find((c) => c.variant === variant && sameParams(c.params, params));
}

/** One sample's work in words, e.g. "24 requests". */
function workText(c: CaseResult): string {
  const amount = c.workPerSample.amount;
  return `${Number.isInteger(amount) ? String(amount) : formatSignificant(amount)} ${c.workPerSample.unit}`;
}

/** Where a run ran, in words. */
function runtimeWords(results: Results): string {
  return (results.runtime ?? 'node') === 'browser' ? "an in-page run (the episode's lab, in a browser)" : 'a Node run (npm run lab)';
}

/**
 * Why two runs cannot be compared case by case at all, or null when they can: a comparison is a ratio of times of
 * the same work, so the lab and where it ran (Node or a page: the in-page event-loop lab counts primes in Web
 * Workers, the Node one derives PBKDF2 keys behind an HTTP server) must agree. Cases whose work per sample differs
 * within alike runs are marked one by one (comparisonRows).
 */
export function unlikeWork(reference: Results, yours: Results): string | null {
  if (reference.lab !== yours.lab) {
    return `your file is a run of the ${yours.lab} lab and the course's run one of the ${reference.lab} lab: they time different work.`;
  }
  if ((reference.runtime ?? 'node') === (yours.runtime ?? 'node')) return null;
  return (
    `your file is ${runtimeWords(yours)} ("${yours.title}") and the course's run is ${runtimeWords(reference)} ("${reference.title}"): ` +
    'the same lab in name, but different work on different machinery, so a ratio of their times would say nothing about your code. ' +
    'The two are shown side by side instead. To judge a change, compare runs of the same kind: ' +
    (yours.runtime === 'browser'
      ? "the in-page lab's own verdicts compare its cases within one run."
      : `your Node runs with "npm run lab -- ${yours.lab} --compare results/${yours.lab}/<earlier run folder>".`)
  );
}

/** The table rows of a comparison, in its order (the learner's cases, then those only the reference has). */
export function comparisonRows(reference: Results, yours: Results, comparison: RunComparison): ComparisonRow[] {
  return comparison.cases.map((c) => {
    const before = findCase(reference, c.variant, c.params);
    const now = findCase(yours, c.variant, c.params);
    const row = {
      case: caseLabel(c),
      reference: medianText(reference, c.variant, c.params),
      yours: medianText(yours, c.variant, c.params),
    };
    // The same case name with another amount of work per sample (another burst, another input size): no verdict.
    if (before && now && workText(before) !== workText(now)) {
      return { ...row, ratio: '-', ratioCi: '-', verdict: 'different-work' as const, verdictWords: `no verdict: ${workText(before)} against ${workText(now)} per sample` };
    }
    return {
      ...row,
      ratio: c.ratio === null ? '-' : formatRatio(c.ratio),
      ratioCi: c.ci95 === null ? '-' : formatBracketInterval(c.ci95),
      verdict: c.verdict,
      verdictWords: VERDICT_WORDS[c.verdict],
    };
  });
}

/** Two unlike runs side by side, every case of either: its median time per sample and its work, no ratio, no verdict. */
export function sideBySideRows(reference: Results, yours: Results): string[][] {
  const seen = new Set<string>();
  const rows: string[][] = [];
  for (const c of [...yours.cases, ...reference.cases]) {
    const label = caseLabel(c);
    if (seen.has(label)) continue;
    seen.add(label);
    const cell = (results: Results): string => {
      const found = findCase(results, c.variant, c.params);
      return found ? `${formatTimeWithInterval(found.summary.median, found.summary.ci95)} for ${workText(found)}` : '-';
    };
    rows.push([label, cell(reference), cell(yours)]);
  }
  return rows;
}

/** How many cases got each verdict, for the sentence over the table: "2 slower, 5 within noise". */
export function verdictCounts(rows: readonly ComparisonRow[]): string {
  const order: RowVerdict[] = ['faster', 'slower', 'within-noise', 'no-verdict', 'only-in-this-run', 'only-in-earlier-run', 'different-work'];
  const words = (v: RowVerdict): string => (v === 'different-work' ? 'with different work per sample (no verdict)' : VERDICT_WORDS[v]);
  return order
    .map((v) => [v, rows.filter((r) => r.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${words(v)}`)
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
      `measured are compared${left > 0 ? ` (${cases(left)} only one of them has ${left === 1 ? 'is' : 'are'} left out)` : ''}.` +
      // Advice only where it can help: the learner's own Node run can drop --quick; the course's run is what it is.
      (yours.quick && (yours.runtime ?? 'node') === 'node' ? ` For a full comparison, run the lab without --quick: npm run lab -- ${yours.lab}.` : ''),
  };
}
