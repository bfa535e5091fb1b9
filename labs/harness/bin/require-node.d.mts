// Types for the plain-JavaScript version check's exports, so the tests can import them.
export const MINIMUM: number[];
/** null when `version` runs the course, else a message naming the problem and the fix. */
export function nodeVersionProblem(version: string, execPath?: string): string | null;
