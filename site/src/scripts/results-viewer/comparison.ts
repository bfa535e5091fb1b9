/**
 * Stage "compare" of the results viewer: the learner's run beside the course's run of the same lab, case by case,
 * with `--compare`'s verdicts (lib/run-comparison.ts, loaded when first needed: the bootstrap takes a moment).
 * In: the course's run (its view; the whole run is fetched here) and the learner's validated run. Out: the summary,
 * the table and the caveats in the comparison box. `isCurrent` says whether what is on show is still the one this
 * comparison was started for, so a comparison that finishes late never overwrites a newer one.
 */
import { element, textTable } from '../../lib/dom.ts';
import type { ViewerRun } from '../../lib/viewer-runs.ts';
import type { CourseRuns } from './course-runs.ts';
import type { ViewerElements } from './elements.ts';
import type { LearnerRun } from './learner-file.ts';

export type ComparisonElements = Pick<ViewerElements, 'compareBox' | 'compareSummary' | 'compareTable' | 'caveatsBox' | 'caveatList'>;
type Comparing = typeof import('../../lib/run-comparison.ts');
type ComparisonRow = ReturnType<Comparing['comparisonRows']>[number];

export function hideComparison(els: ComparisonElements): void {
  els.compareBox.hidden = true;
  els.compareTable.replaceChildren();
  els.caveatList.replaceChildren();
}

/** Two runs that time different work (another runtime) go side by side, with no verdict and no bootstrap. */
function sideBySide(comparing: Comparing, reference: ViewerRun, mine: LearnerRun): HTMLElement {
  return textTable(
    'Your run beside the course\'s run (no verdict: different work)',
    ['case', 'course run', 'your run'],
    comparing.sideBySideRows(reference.results, mine.results),
    'Each run: median time per sample [95% interval] and the work one sample does. Different work: not compared.',
  );
}

/** The case-by-case table, each row marked with its case and its verdict (for the browser tests). */
function verdictTable(rows: readonly ComparisonRow[]): HTMLElement {
  const table = textTable(
    'Your run against the course\'s run, case by case',
    ['case', 'course run', 'your run', 'ratio [95% interval]', 'verdict'],
    rows.map((r) => [r.case, r.reference, r.yours, r.ratio === '-' ? '-' : `${r.ratio} ${r.ratioCi}`, r.verdictWords]),
    'Each run: median time per sample [95% interval]. Ratio = your speedup over the baseline / the course run\'s, each ' +
      'within its own run, so that a faster or slower machine cancels: above 1, yours gained. The baseline\'s row is the ' +
      'machine (the course run\'s median / yours). The verdict is "faster" or "slower" only when the whole 95% interval ' +
      'of the ratio lies on one side of 1; otherwise the runs cannot tell the two apart: "within noise".',
  );
  // textTable returns the scrolling box (and its note): the rows are inside it.
  const bodyRows = table.querySelectorAll('tbody tr');
  rows.forEach((r, i) => {
    const tr = bodyRows[i];
    if (!tr) return;
    tr.setAttribute('data-case', r.case);
    tr.lastElementChild?.setAttribute('data-verdict', r.verdict);
  });
  return table;
}

/** The verdicts of the learner's run against the course's whole run (raw samples included). */
function showVerdicts(els: ComparisonElements, comparing: Comparing, whole: ViewerRun, reference: ViewerRun, mine: LearnerRun): void {
  const outcome = comparing.compareWithReference(whole.results, mine.results, mine.problems);
  if (!outcome.ok) {
    els.compareSummary.textContent = `Not compared: ${outcome.reason}`;
    return;
  }
  // A --quick run against a full one: only the cases both measured, and the reason first.
  const { rows, reason } = comparing.likeWithLike(whole.results, mine.results, comparing.comparisonRows(whole.results, mine.results, outcome.comparison));
  els.compareSummary.textContent =
    `${reason === null ? '' : `${reason} `}Against the ${reference.label}. ` +
    `Case by case, as "npm run lab -- ${mine.results.lab} --compare <run folder>" judges it: ${comparing.verdictCounts(rows) || 'no case in common'}.`;
  els.compareTable.replaceChildren(verdictTable(rows));
  const caveats = outcome.comparison.caveats;
  els.caveatList.replaceChildren(...caveats.map((c) => element('li', c)));
  els.caveatsBox.hidden = caveats.length === 0;
}

/** The learner's run beside the course's run: computed off the first paint. */
export function showComparison(els: ComparisonElements, course: CourseRuns, reference: ViewerRun, mine: LearnerRun, isCurrent: () => boolean): void {
  els.compareBox.hidden = false;
  els.compareSummary.textContent = `Comparing your run with the ${reference.label} …`;
  els.compareTable.replaceChildren();
  els.caveatsBox.hidden = true;
  // The comparison needs the course run's raw samples: the whole run, fetched now (the view has none), unless the
  // two runs time different work.
  import('../../lib/run-comparison.ts')
    .then(async (comparing) => {
      const unlike = comparing.unlikeWork(reference.results, mine.results);
      if (!isCurrent()) return;
      if (unlike !== null) {
        els.compareSummary.textContent = `No verdict: ${unlike}`;
        els.compareTable.replaceChildren(sideBySide(comparing, reference, mine));
        return;
      }
      const whole = await course.full(reference.lab);
      if (isCurrent()) showVerdicts(els, comparing, whole, reference, mine);
    })
    .catch((error: unknown) => {
      if (!isCurrent()) return;
      els.compareSummary.textContent = `Could not compare the runs: ${error instanceof Error ? error.message : String(error)}`;
    });
}
