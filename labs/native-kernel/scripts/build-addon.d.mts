// Types for the plain-JavaScript install script's exports, so the tests can import them.
/** The line of a failed build's output that says what went wrong, paths made repository-relative. */
export function failureHeadline(output: string): string;
/** What to do about a failure with this headline. */
export function fixFor(headline: string): string;
