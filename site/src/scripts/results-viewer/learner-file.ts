/**
 * Stage "read and validate" of the results viewer. In: the file the learner opened (and the file open before it).
 * Out: the run, validated with core's schema, with the validator's findings and the warning to show; or a message
 * that names what is wrong with the file. The schema (zod) loads only when a file is opened, keeping it out of the
 * page's first download.
 */
import type { Results } from '@parallel-course/core';
import type { ResultsWarning } from '../../lib/results-file.ts';
import { resultsReader } from '../../lib/results-file-lazy.ts';

/** The learner's file, validated, with the validator's findings and its name. */
export interface LearnerRun {
  results: Results;
  /** checkResults's findings, kept so that comparing the file does not recompute it again. */
  problems: readonly string[];
  warning: ResultsWarning | null;
  fileName: string;
}

export interface OpenedRuns {
  learner: LearnerRun;
  /**
   * The learner's earlier file of the same lab from the other runtime (a Node run and an in-page run of
   * native-kernel), kept so the two can be shown side by side (wasm-beside.ts); null otherwise.
   */
  otherRuntime: LearnerRun | null;
}

/** Reads and validates `file`; throws (lib/results-file-lazy.ts's loadErrorMessage words it) when it is not a results file the viewer can show. */
export async function readLearnerFile(file: File, earlier: LearnerRun | null): Promise<OpenedRuns> {
  const { readResultsFile, checkResultsFile, checkResults } = await resultsReader();
  const results = await readResultsFile(file);
  const problems = checkResults(results);
  const sameLabOtherRuntime =
    earlier !== null && earlier.results.lab === results.lab && (earlier.results.runtime ?? 'node') !== (results.runtime ?? 'node');
  return {
    learner: { results, problems, warning: checkResultsFile(results, problems), fileName: file.name },
    otherRuntime: sameLabOtherRuntime ? earlier : null,
  };
}
