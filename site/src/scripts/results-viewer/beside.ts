/**
 * A native-kernel run from the page and one from Node, GFLOP/s per rung at a size both measured (lib/wasm-beside.ts):
 * the learner's two files when both are open, else the learner's in-page run beside the course's Node run (said so).
 * In: the learner's run on show and their earlier file from the other runtime. Out: the "beside" box.
 */
import type { Results } from '@parallel-course/core';
import { textTable } from '../../lib/dom.ts';
import type { CourseRuns } from './course-runs.ts';
import type { ViewerElements } from './elements.ts';
import type { LearnerRun } from './learner-file.ts';

export type BesideElements = Pick<ViewerElements, 'besideBox' | 'besideSummary' | 'besideTable'>;

/** The run to put beside the learner's: their own file from the other runtime, else the course's Node run. */
function partnerRun(course: CourseRuns, otherRuntime: LearnerRun | null): Promise<{ results: Results; label: string }> {
  if (otherRuntime !== null) return Promise.resolve({ results: otherRuntime.results, label: `your file ${otherRuntime.fileName}` });
  if (!course.labs.includes('native-kernel')) return Promise.reject(new Error("open your Node run's results.json too"));
  return course.full('native-kernel').then((run) => ({
    results: run.results,
    label: `the course's Node run (${run.label}), not your machine's: open your own Node run's results.json too`,
  }));
}

export function showBeside(els: BesideElements, course: CourseRuns, mine: LearnerRun | null, otherRuntime: LearnerRun | null, isCurrent: () => boolean): void {
  const inPageRunOpen = mine !== null && mine.results.lab === 'native-kernel' && (mine.results.runtime === 'browser' || otherRuntime !== null);
  els.besideBox.hidden = !inPageRunOpen;
  els.besideTable.replaceChildren();
  if (!inPageRunOpen || mine === null) return;
  Promise.all([import('../../lib/wasm-beside.ts'), partnerRun(course, otherRuntime)])
    .then(([{ wasmBesideNative, besideCells }, other]) => {
      if (!isCurrent()) return;
      const beside = wasmBesideNative(mine.results, other.results);
      if (!beside.ok) {
        els.besideSummary.textContent = `Not shown: ${beside.reason}.`;
        return;
      }
      const cells = besideCells(beside.rows);
      els.besideSummary.textContent =
        `n = ${beside.n}: your file ${mine.fileName} beside ${other.label}. Two runs, so only rates compare, ` +
        'each from its own run\'s median sample (the interval is that median\'s): a difference inside both intervals is noise.';
      els.besideTable.replaceChildren(
        textTable(`Matrix product at n = ${beside.n}, GFLOP/s`, ['rung', 'where', 'threads', 'GFLOP/s [95% interval]'], cells),
      );
    })
    .catch((error: unknown) => {
      if (!isCurrent()) return;
      els.besideSummary.textContent = `Not shown: ${error instanceof Error ? error.message : String(error)}.`;
    });
}
