/**
 * Reads a results.json the learner picked and validates it with core's one reader (`parseResultsJson`, read-results.ts:
 * JSON, then the upgrade of an older file, then the schema; the same code the harness runs before it writes the
 * file), then checks it as the instructor's validator does (`npm run report -- validate`, labs/core/src/validate.ts):
 * every correctness check passed and every number recomputes from the raw samples. The text is parsed as JSON only:
 * nothing in it is executed or rendered as HTML.
 */
import { checkResults, formatBytes, MAX_RESULTS_BYTES, parseResultsJson, plausibilityFlags, type Results, ResultsFileError } from '@parallel-course/core';

/** The cap on a results file (64 MiB), core's one constant for the command line and this viewer. */
export { checkResults, MAX_RESULTS_BYTES };

export async function readResultsFile(file: File): Promise<Results> {
  if (file.size > MAX_RESULTS_BYTES) {
    throw new ResultsFileError(file.name, [
      `the file is ${formatBytes(file.size)}, more than the ${formatBytes(MAX_RESULTS_BYTES)} a results file can be: pick the results.json from results/<lab>/<time>/`,
    ]);
  }
  const text = await file.text();
  const other = otherRunFile(text, file.name);
  if (other !== null) throw new ResultsFileError(file.name, [other]);
  return parseResultsJson(text, file.name);
}

/**
 * A run folder holds other JSON files beside results.json; picking one of them is a likely slip, and the schema's
 * answer to it ("recorded with an older harness", or a list of missing fields) would send the learner the wrong way.
 * Says what the file is and which one to pick instead, or null for anything else (then the schema speaks).
 */
export function otherRunFile(text: string, fileName: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || 'cases' in data) return null;
  const has = (key: string): boolean => key in data;
  const pick = 'pick results.json in the run folder instead: results/<lab>/<time>/results.json';
  if (has('values') && has('tables') && has('lab')) {
    return (
      `this is the lab's analysis values (analysis/values.json: the derived numbers the episodes quote, written by the ` +
      `lab's analysis beside the run), not a run's results. The viewer reads the run itself: ${pick}, one folder up from ${fileName}`
    );
  }
  if (has('speedup') && has('why') && has('recordedAt')) {
    return `this is your prediction (prediction.json, written by --predict), not a run's results: ${pick}, beside it`;
  }
  return null;
}

/** Why the numbers of a file that passed the schema cannot be trusted. */
export interface ResultsWarning {
  /** Each case that failed its correctness check, with the reason: "pool (workers=2) did not pass its check (...)". */
  failedChecks: string[];
  /** Each number that does not recompute from the samples, by path: "speedups[3].speedup is 2.5 but the samples give 1.74". */
  mismatches: string[];
  /** Each ratio beyond what the machine allows (the core's plausibility.ts): valid arithmetic, not a measurement. */
  implausible: string[];
}

/**
 * The validator's findings for `results` (`problems`, checkResults's, when the caller already has them), split for the
 * page, and its implausible ratios; null when every check passed, every number agrees and every ratio is one the
 * machine can give.
 */
export function checkResultsFile(results: Results, problems: readonly string[] = checkResults(results)): ResultsWarning | null {
  const implausible = plausibilityFlags(results).map((flag) => flag.message);
  if (problems.length === 0 && implausible.length === 0) return null;
  const prefix = 'correctness: ';
  return {
    failedChecks: problems.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)),
    mismatches: problems.filter((p) => !p.startsWith(prefix)),
    implausible,
  };
}

/** A message for the page: the schema's list of problems, or the unexpected error's text. */
export function describeLoadError(error: unknown): string {
  if (error instanceof ResultsFileError) {
    return `${error.message}\n\nThis viewer reads the results.json that "npm run lab -- <lab>" writes into results/<lab>/<time>/.`;
  }
  return `Could not read the file: ${error instanceof Error ? error.message : String(error)}`;
}
