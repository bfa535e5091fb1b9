/**
 * The course's runs for the results viewer. In: the picker's options as built and the runs' base URL on the root.
 * Out: the labs and, per lab, its run fetched the first time it is needed from the built site (src/pages/viewer-runs/):
 * the view without raw samples to show a lab, the whole run to compare a learner's file. Fetched once each, and
 * parsed as JSON, never as markup.
 */
import { viewerRunFiles, type ViewerRun } from '../../lib/viewer-runs.ts';

export interface CourseRuns {
  labs: string[];
  /** The lab's run without raw samples (what the page shows first). */
  view: (lab: string) => Promise<ViewerRun>;
  /** The lab's whole run, raw samples included (what a comparison needs). */
  full: (lab: string) => Promise<ViewerRun>;
}

export function courseRuns(root: HTMLElement, select: HTMLSelectElement): CourseRuns {
  const base = root.dataset['rvRunsBase'] ?? '';
  const labs = [...select.options].map((o) => o.value);
  const fetched = new Map<string, Promise<ViewerRun>>();
  const load = (lab: string, file: string): Promise<ViewerRun> => {
    const url = new URL(`${base}${file}`, document.baseURI).href;
    let pending = fetched.get(url);
    if (!pending) {
      pending = fetchRun(lab, url).catch((error: unknown) => {
        fetched.delete(url); // a later pick tries again
        throw error;
      });
      fetched.set(url, pending);
    }
    return pending;
  };
  return {
    labs,
    view: (lab) => load(lab, viewerRunFiles(lab).view),
    full: (lab) => load(lab, viewerRunFiles(lab).full),
  };
}

async function fetchRun(lab: string, url: string): Promise<ViewerRun> {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
    return (await response.json()) as ViewerRun;
  } catch (error) {
    throw new Error(
      `Could not load the course's run of ${lab} (${url}): ${error instanceof Error ? error.message : String(error)}. ` +
        'The viewer fetches it from the site: serve the built course with "npm start" rather than opening its files from disk.',
    );
  }
}
