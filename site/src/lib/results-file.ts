/**
 * Reads a results.json the learner picked and validates it with the harness's own schema (the same code the
 * harness runs before it writes the file), then checks it as the instructor's validator does (`npm run report --
 * validate`, labs/harness/src/tools/validate-core.ts): every correctness check passed and every number recomputes
 * from the raw samples. The text is parsed as JSON only: nothing in it is executed or rendered as HTML.
 */
import { checkResults, MAX_RESULTS_BYTES, parseResultsJson, type Results, ResultsFileError } from '@parallel-course/core';

/** The harness's cap (64 MiB), one constant for the command line and this viewer. */
export { MAX_RESULTS_BYTES };

export async function readResultsFile(file: File): Promise<Results> {
  if (file.size > MAX_RESULTS_BYTES) {
    throw new ResultsFileError(file.name, [
      `the file is ${(file.size / 1048576).toFixed(1)} MiB, more than the ${MAX_RESULTS_BYTES / 1048576} MiB a results file can be: pick the results.json from results/<lab>/<time>/`,
    ]);
  }
  return parseResultsJson(await file.text(), file.name);
}

/** Why the numbers of a file that passed the schema cannot be trusted. */
export interface ResultsWarning {
  /** Each case that failed its correctness check, with the reason: "pool (workers=2) did not pass its check (...)". */
  failedChecks: string[];
  /** Each number that does not recompute from the samples, by path: "speedups[3].speedup is 2.5 but the samples give 1.74". */
  mismatches: string[];
}

/** The validator's findings for `results`, split for the page; null when every check passed and every number agrees. */
export function checkResultsFile(results: Results): ResultsWarning | null {
  const problems = checkResults(results);
  if (problems.length === 0) return null;
  const prefix = 'correctness: ';
  return {
    failedChecks: problems.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)),
    mismatches: problems.filter((p) => !p.startsWith(prefix)),
  };
}

/** A message for the page: the schema's list of problems, or the unexpected error's text. */
export function describeLoadError(error: unknown): string {
  if (error instanceof ResultsFileError) {
    return `${error.message}\n\nThis viewer reads the results.json that "npm run lab -- <lab>" writes into results/<lab>/<time>/.`;
  }
  return `Could not read the file: ${error instanceof Error ? error.message : String(error)}`;
}
