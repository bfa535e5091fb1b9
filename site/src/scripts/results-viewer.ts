/**
 * Behaviour of <ResultsViewer />: the viewer's state and its events; each stage lives in results-viewer/. On load:
 * the picked lab's course run, fetched from the built site (course-runs.ts: JSON, without raw samples) -> charts and
 * tables (run-view.ts). A learner's file: read and validated with core's schema and the validator's checks
 * (learner-file.ts) -> the course's run of the same lab beside it, case by case, with `--compare`'s verdicts
 * (comparison.ts), and the learner's run as charts and tables (text only, never HTML). A file with a failed check,
 * or whose numbers do not recompute from its samples, is still shown, under a warning that says so in words
 * (role="alert").
 *
 * Data flows one way: an event changes the state (here), then `render` passes the state to the stages, which fill
 * their part of the page and never write the state.
 */
import { placeLearnerRun, yourRunLabel, type ViewerRun } from '../lib/viewer-runs.ts';
import { element } from '../lib/dom.ts';
import { loadErrorMessage } from '../lib/results-file-lazy.ts';
import { showBeside } from './results-viewer/beside.ts';
import { hideComparison, showComparison } from './results-viewer/comparison.ts';
import { courseRuns, type CourseRuns } from './results-viewer/course-runs.ts';
import { findViewerElements, type ViewerElements } from './results-viewer/elements.ts';
import { type LearnerRun, readLearnerFile } from './results-viewer/learner-file.ts';
import { type ChartSet, chartSet } from './results-viewer/run-charts.ts';
import { hideRun, showRun } from './results-viewer/run-view.ts';

interface Viewer {
  els: ViewerElements;
  course: CourseRuns;
  charts: ChartSet;
  selectedLab: string | null;
  /** The learner's open file, if any. */
  learner: LearnerRun | null;
  /** The learner's earlier file of the same lab from the other runtime (learner-file.ts), shown beside it. */
  otherRuntime: LearnerRun | null;
  /** Bumped by every change of what is on show, so a stage that finishes late does not overwrite a newer one. */
  generation: number;
}

/** Shows the selected lab: the course's run (fetched), and the learner's run of the same lab beside it when there is one. */
function render(v: Viewer): void {
  const mark = ++v.generation;
  const isCurrent = (): boolean => mark === v.generation;
  const lab = v.selectedLab;
  if (lab === null || !v.course.labs.includes(lab)) {
    renderWith(v, null, isCurrent);
    return;
  }
  v.course
    .view(lab)
    .then((reference) => {
      if (isCurrent()) renderWith(v, reference, isCurrent);
    })
    .catch((error: unknown) => {
      if (!isCurrent()) return;
      renderWith(v, null, isCurrent);
      showError(v, error instanceof Error ? error.message : String(error));
    });
}

/** What render shows once the course's run of the selected lab (or none) is at hand. */
function renderWith(v: Viewer, reference: ViewerRun | null, isCurrent: () => boolean): void {
  const { els } = v;
  const mine = v.learner !== null && v.learner.results.lab === v.selectedLab ? v.learner : null;
  els.viewPick.hidden = !(reference && mine);
  if (reference && mine) showComparison(els, v.course, reference, mine, isCurrent);
  else hideComparison(els);
  showBeside(els, v.course, mine, v.otherRuntime, isCurrent);
  const showMine = mine !== null && (reference === null || els.viewSelect.value === 'yours');
  if (showMine) showRun(els, v.charts, mine.results, mine.warning, yourRunLabel(mine.results, mine.fileName));
  else if (reference) showRun(els, v.charts, reference.results, null, reference.label);
  else hideRun(els, v.charts);
}

/** The picker lists the course's labs, plus the learner's lab when the course has no run of it. */
function syncPicker(v: Viewer): void {
  const { labSelect, labPick } = v.els;
  for (const option of [...labSelect.options]) if (option.dataset['learnerOnly'] !== undefined) option.remove();
  const learnerLab = v.learner?.results.lab;
  if (learnerLab !== undefined && !v.course.labs.includes(learnerLab)) {
    const option = element('option', `${learnerLab} (your run only)`);
    option.value = learnerLab;
    option.dataset['learnerOnly'] = '';
    labSelect.append(option);
  }
  if (v.selectedLab !== null) labSelect.value = v.selectedLab;
  labPick.hidden = labSelect.options.length === 0;
}

function setNote(v: Viewer, text: string | null): void {
  v.els.note.textContent = text ?? '';
  v.els.note.hidden = text === null;
}

function showError(v: Viewer, message: string): void {
  v.els.errorBox.replaceChildren(element('pre', message));
  v.els.errorBox.hidden = false;
}

function onLabPicked(v: Viewer): void {
  v.selectedLab = v.els.labSelect.value;
  setNote(v, null);
  v.els.errorBox.hidden = true;
  syncPicker(v);
  render(v);
}

/** A file that validated: it is on show, in its lab (placeLearnerRun says where, and why when it moved the picker). */
function onFileRead(v: Viewer, opened: { learner: LearnerRun; otherRuntime: LearnerRun | null }): void {
  v.learner = opened.learner;
  v.otherRuntime = opened.otherRuntime;
  const placement = placeLearnerRun(v.course.labs, v.selectedLab, opened.learner.results.lab);
  v.selectedLab = placement.lab;
  v.els.errorBox.hidden = true;
  setNote(v, placement.note);
  v.els.viewSelect.value = 'yours';
  syncPicker(v);
  render(v);
}

/** A refused file: what was on show from an earlier file goes, the course's run of the lab stays. */
function onFileRefused(v: Viewer, message: string): void {
  v.learner = null;
  v.otherRuntime = null;
  if (v.selectedLab !== null && !v.course.labs.includes(v.selectedLab)) v.selectedLab = v.course.labs[0] ?? null;
  setNote(v, null);
  syncPicker(v);
  render(v);
  showError(v, message);
}

function wireEvents(v: Viewer): void {
  v.els.labSelect.addEventListener('change', () => onLabPicked(v));
  v.els.viewSelect.addEventListener('change', () => render(v));
  v.els.fileInput.addEventListener('change', () => {
    const file = v.els.fileInput.files?.[0];
    if (!file) return;
    readLearnerFile(file, v.learner ?? v.otherRuntime)
      .then((opened) => onFileRead(v, opened))
      .catch(async (error: unknown) => onFileRefused(v, await loadErrorMessage(error)));
  });
}

export function mountResultsViewer(root: HTMLElement): void {
  const els = findViewerElements(root);
  if (els === null) return;
  const course = courseRuns(root, els.labSelect);
  const selectedLab = course.labs.includes(els.labSelect.value) ? els.labSelect.value : (course.labs[0] ?? null);
  const viewer: Viewer = { els, course, charts: chartSet(), selectedLab, learner: null, otherRuntime: null, generation: 0 };
  wireEvents(viewer);
  syncPicker(viewer);
  render(viewer);
}
