// Types for the plain-JavaScript install script's exports, so the tests can import them.
/** The line of a failed build's output that says what went wrong, paths made repository-relative. */
export function failureHeadline(output: string): string;
/** What to do about a failure with this headline. */
export function fixFor(headline: string): string;
/** The one-line fix when no BLAS was found. */
export const BLAS_FIX: string;
/** The BLAS to link (flags) or why there is none; NATIVE_KERNEL_BLAS=none skips the search, =<dir> searches only <dir>. */
export function findBlas(
  env?: Record<string, string | undefined>,
): { found: true; via: string; cflags: string; libs: string } | { found: false; reason: string };
