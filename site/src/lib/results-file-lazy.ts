/**
 * A learner's results file, read by the pages that open one (the results viewer, the Amdahl explorer). The reader
 * (results-file.ts and its schema, zod) loads only when a file is opened, keeping it out of the pages' first download;
 * a file it refuses, or a reader that cannot load, gets one message in words.
 */
import type { Results } from '@parallel-course/core';

/** The reader's module, loaded on first use. */
export function resultsReader(): Promise<typeof import('./results-file.ts')> {
  return import('./results-file.ts');
}

/** Reads and validates `file` with core's schema; throws what `loadErrorMessage` turns into words. */
export async function readResults(file: File): Promise<Results> {
  const { readResultsFile } = await resultsReader();
  return readResultsFile(file);
}

/** What to tell the learner about a file that could not be read: the reader's words, or why the reader did not load. */
export async function loadErrorMessage(error: unknown): Promise<string> {
  return resultsReader().then(
    ({ describeLoadError }) => describeLoadError(error),
    () => `Could not load the results reader: ${error instanceof Error ? error.message : String(error)}`,
  );
}
