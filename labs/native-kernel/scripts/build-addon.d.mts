// Types for the plain-JavaScript install script's exports, so the tests can import them.
/** The line of a failed build's output that says what went wrong, paths made repository-relative. */
export function failureHeadline(output: string): string;
/** What to do about a failure with this headline; `checked`: the learner file blocked-sizes-check.h checks, if any. */
export function fixFor(headline: string, checked?: string): string;
/** The modules, in groups each built by its own node-gyp run (an impl's kernel.cc rungs; its blocked.cc apart). */
export const GROUPS: { what: string; targets: string[]; file?: string }[];
/** The modules to build: all, or those NATIVE_KERNEL_TARGETS names; an error for unknown names. */
export function chosenTargets(env?: Record<string, string | undefined>): { targets: string[]; error?: undefined } | { error: string; targets?: undefined };
/** The one-line fix when no BLAS was found. */
export const BLAS_FIX: string;
/** The BLAS to link (flags) or why there is none; NATIVE_KERNEL_BLAS=none skips the search, =<dir> searches only <dir>. */
export function findBlas(
  env?: Record<string, string | undefined>,
): { found: true; via: string; cflags: string; libs: string } | { found: false; reason: string };
/** What -march=native compiles for: the architecture, the CPU's model and (Linux) a hash of its flags. */
export function cpuIdentity(): string;
/** Whether a recorded build is what this machine would make now (COURSE_BUILD_IF_STALE=1): same Node and CPU, every chosen module recorded, each built one present and newer than every source. */
export function buildIsCurrent(facts: {
  record: { node?: string; cpu?: string; targets?: Record<string, { available: boolean; file?: string }> } | null;
  targets: string[];
  node: string;
  cpu: string;
  newestSource: number;
  moduleMtimeMs(file: string): number | null;
}): boolean;
