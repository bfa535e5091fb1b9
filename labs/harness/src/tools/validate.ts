/**
 * `npm run report -- validate <file>`: an instructor's check of a submitted results.json.
 *   1. the file itself: a regular file within MAX_RESULTS_BYTES, read without blocking (safe-read.ts), so a FIFO,
 *      a link to /dev/zero or a huge file is refused with its reason instead of hanging or killing the check;
 *   2. the schema, correctness and every summary number recomputed from the raw samples (the core's validate.ts, the
 *      pure part the site's results viewer shares): "speedups[3].speedup is 2.5 but the samples give 1.74";
 *   3. a graded run's solution is the checkout's (its fingerprint matches solutions/<lab>).
 * What it cannot catch: samples invented consistently with their summaries. Signing runs would be a separate tool.
 */
import { UnsafeFileError } from '../errors.ts';
import { ROOT_DIR } from '../lab-registry.ts';
import { solutionProblem } from '../supervise/solution-fingerprint.ts';
import { readResultsText } from '../write/safe-read.ts';
import { validateSubmission, type ValidationResult } from '@parallel-course/core';

export {
  checkResults,
  diffRecomputed,
  MAX_RESULTS_BYTES,
  recompute,
  RELATIVE_TOLERANCE,
  validateSubmission,
  type ValidationResult,
} from '@parallel-course/core';

export interface FileValidationResult extends ValidationResult {
  /** Why the file was not read at all (not a regular file, over the cap, missing), or null when it was read. */
  refused: UnsafeFileError | null;
}

export interface ValidateFileOptions {
  /** The course checkout whose solutions/<lab> a graded run's solution must match (default: this repository). */
  courseRoot?: string;
}

/**
 * Reads (safely) and validates a file; a refused or unreadable file is a problem too, never a hang or a crash.
 * 3. A graded run must have been measured against the checkout's own solution (solution-fingerprint.ts).
 */
export function validateFile(file: string, options: ValidateFileOptions = {}): FileValidationResult {
  let text: string;
  try {
    text = readResultsText(file);
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw error;
    return { valid: false, problems: [`file: ${error.message}`], results: null, refused: error };
  }
  const checked = validateSubmission(text, file);
  const solution = checked.results ? solutionProblem(checked.results, options.courseRoot ?? ROOT_DIR) : null;
  if (solution === null) return { ...checked, refused: null };
  return { ...checked, valid: false, problems: [...checked.problems, solution], refused: null };
}
