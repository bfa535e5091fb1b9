/**
 * The course's runs inside the results viewer (issue 20): how each embedded run is named on the page, and which lab
 * the viewer shows when the learner opens a run of their own. Pure, no DOM and no schema (zod stays out of the page's
 * first download), unit-tested in site/test/viewer-runs.test.ts.
 */
import { machineText, type Results } from '@parallel-course/core';

/** One course run as the site serves it to the viewer (a JSON file per lab, written at build time). */
export interface ViewerRun {
  lab: string;
  /** "reference run: <machine>, <date>" or "instructor's run: ...", from `courseRunLabel`. */
  label: string;
  /** The run, validated at build time (course-runs.ts: schema, checks, every number recomputed). */
  results: Results;
}

/**
 * The label of a course run: "reference run: <machine>, <date>", or "instructor's run: ..." for a run of the folder
 * COURSE_RUNS named; a lab that fell back to the reference says so.
 */
export function courseRunLabel(run: { source: 'reference' | 'course-runs'; fellBack: boolean; results: Results }): string {
  const kind = run.source === 'reference' ? 'reference run' : "instructor's run";
  const quick = run.results.quick ? ' (a --quick run)' : '';
  const fallback = run.fellBack ? " (this course's runs have none of this lab, so this is the reference's)" : '';
  return `${kind}: ${machineText(run.results)}${quick}${fallback}`;
}

/** The label of the learner's own run: "your run (<file>): <machine>, <date>". */
export function yourRunLabel(results: Results, fileName: string): string {
  return `your run (${fileName}): ${machineText(results)}${results.quick ? ' (a --quick run)' : ''}`;
}

/**
 * The built site's files of one lab's course run (src/pages/viewer-runs/[name].json.ts), relative to the site's base:
 * `view` without raw samples (what the charts and tables need; fetched when the lab is shown), `full` the whole run
 * (fetched only to compare a learner's file). A lab name is lower-case and dash-separated (lab-registry.ts).
 */
export function viewerRunFiles(lab: string): { view: string; full: string } {
  if (!/^[a-z0-9-]+$/.test(lab)) throw new Error(`not a lab name: ${JSON.stringify(lab)}`);
  return { view: `${lab}.view.json`, full: `${lab}.json` };
}

/** The folder of those files under the site's base. */
export const VIEWER_RUNS_DIR = 'viewer-runs/';

/**
 * A run without its raw samples (samplesMs, sampleRounds, sampleProcesses, observations emptied): every summary, speedup, interval
 * and check stays, so the viewer's charts and tables are the same; a comparison fetches the whole run instead.
 */
export function withoutSamples(results: Results): Results {
  return { ...results, cases: results.cases.map((c) => ({ ...c, samplesMs: [], sampleRounds: [], ...(c.sampleProcesses ? { sampleProcesses: [] } : {}), observations: {} })) };
}

/** Where the viewer goes when the learner opens a run of `learnerLab` while `selectedLab` is on show. */
export interface Placement {
  /** The lab to select. */
  lab: string;
  /** Whether the course has a run of that lab to compare with. */
  hasReference: boolean;
  /** A sentence for the page when the lab changed or there is nothing to compare with; null otherwise. */
  note: string | null;
}

export function placeLearnerRun(courseLabs: readonly string[], selectedLab: string | null, learnerLab: string): Placement {
  const hasReference = courseLabs.includes(learnerLab);
  if (!hasReference) {
    return {
      lab: learnerLab,
      hasReference,
      note:
        courseLabs.length === 0
          ? null
          : `Your file is a run of the ${learnerLab} lab, and this course has no run of it to compare with: it is shown alone.`,
    };
  }
  const note = selectedLab !== null && selectedLab !== learnerLab ? `Your file is a run of the ${learnerLab} lab, not ${selectedLab}: switched to the ${learnerLab} lab's run.` : null;
  return { lab: learnerLab, hasReference, note };
}
