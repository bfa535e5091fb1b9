/**
 * Reads a results.json the learner picked and validates it with the harness's own schema (the same code the
 * harness runs before it writes the file). The text is parsed as JSON only: nothing in it is executed or rendered
 * as HTML.
 */
import { parseResultsJson, ResultsFileError, type Results } from '@parallel-course/harness/results-schema.ts';

/** Larger than any results file a lab writes (raw samples included), small enough not to hang a phone. */
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

export async function readResultsFile(file: File): Promise<Results> {
  if (file.size > MAX_RESULTS_BYTES) {
    throw new ResultsFileError(file.name, [
      `the file is ${(file.size / 1048576).toFixed(1)} MiB, more than the ${MAX_RESULTS_BYTES / 1048576} MiB a results file can be: pick the results.json from results/<lab>/<time>/`,
    ]);
  }
  return parseResultsJson(await file.text(), file.name);
}

/** A message for the page: the schema's list of problems, or the unexpected error's text. */
export function describeLoadError(error: unknown): string {
  if (error instanceof ResultsFileError) {
    return `${error.message}\n\nThis viewer reads the results.json that "npm run lab -- <lab>" writes into results/<lab>/<time>/.`;
  }
  return `Could not read the file: ${error instanceof Error ? error.message : String(error)}`;
}
