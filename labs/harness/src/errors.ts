
/**
 * Errors the harness raises at its edges, every one of them here, and the one place that maps them to exit codes.
 * Every message says what is wrong and then how to fix it. The modules that throw them re-export them, so a caller
 * imports an error from where it is thrown (e.g. `LearnerModuleError` from learner-module.ts).
 */

/**
 * The shape of every harness error: a stable `code` (callers and tests match it, not the wording) and the class's name
 * as `error.name`. A new error is one line here: `export class FooError extends HarnessError { readonly code = 'FOO';
 * override name = 'FooError'; }` (the name spelled out, so a bundle that renames classes keeps it).
 */
export abstract class HarnessError extends Error {
  abstract readonly code: string;
}

/** Bad command-line input: unknown lab, bad flag, unwritable folder. Exit code 2. */
export class UsageError extends HarnessError { readonly code = 'USAGE'; override name = 'UsageError'; }

/** A lab could not be loaded or set up (broken lab module, missing file). Exit code 2. */
export class LabLoadError extends HarnessError { readonly code = 'LAB_LOAD'; override name = 'LabLoadError'; }

/**
 * Thrown by an exercise where the learner has not written the code yet (lab-definition.ts's `notImplemented`). The
 * message says what to write and where, e.g. `notImplemented('the piscina worker body in exercises/event-loop/worker.ts')`.
 */
export class NotImplementedError extends HarnessError {
  readonly code = 'NOT_IMPLEMENTED';
  override name = 'NotImplementedError';
  constructor(what: string) {
    super(`not implemented: ${what}`);
  }
}

/** A learner file that does not load or lacks an export the lab calls (learner-module.ts). */
export class LearnerModuleError extends HarnessError { readonly code = 'LEARNER_MODULE'; override name = 'LearnerModuleError'; }

/** A child process did not start: it exited, reported a failure, or did not say it was ready in time (child-process.ts). */
export class ChildStartError extends HarnessError { readonly code = 'CHILD_START_FAILED'; override name = 'ChildStartError'; }

/** A report file could not be written, or a reporter asked for a path it may not write (report/index.ts). */
export class ReportWriteError extends HarnessError { readonly code = 'REPORT_WRITE_FAILED'; override name = 'ReportWriteError'; }

/** A chart could not be drawn as a PNG (report/png.ts). */
export class ChartRenderError extends HarnessError { readonly code = 'CHART_RENDER_FAILED'; override name = 'ChartRenderError'; }

/** A selector that does not resolve in a run; the message names it and what the run has instead (measured.ts). */
export class MeasuredSelectorError extends HarnessError { readonly code = 'MEASURED_SELECTOR'; override name = 'MeasuredSelectorError'; }

/** Why a run cannot be reported; the message names the run and each reason (tools/learner-report.ts). */
export class ReportRefusedError extends HarnessError { readonly code = 'REPORT_REFUSED'; override name = 'ReportRefusedError'; }

/**
 * A variant's property evidence (CaseInstance.propertyEvidence, made in the lab process) that is not of the shape its
 * judge reads: the message names the field and what it holds (property-evidence.ts readEvidence).
 */
export class PropertyEvidenceError extends HarnessError { readonly code = 'PROPERTY_EVIDENCE'; override name = 'PropertyEvidenceError'; }

/** A started child process ended when it was not asked to (a crash, a kill, process.exit). */
export class ChildCrashedError extends HarnessError {
  readonly code = 'CHILD_CRASHED';
  override name = 'ChildCrashedError';
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  constructor(what: string, exitCode: number | null, signal: NodeJS.Signals | null, stderrTail: string) {
    super(`${what} ${signal ? `was killed by ${signal}` : `exited with code ${exitCode}`}${stderrTail ? `:\n${stderrTail}` : ''}`);
    this.exitCode = exitCode;
    this.signal = signal;
  }
}

/** A profile that cannot be analysed; `problem` names what is wrong, `fix` how to get a usable one (tools/profile-analysis.ts). */
export class ProfileFormatError extends HarnessError {
  readonly code = 'PROFILE_FORMAT';
  override name = 'ProfileFormatError';
  readonly problem: string;
  readonly fix: string;
  constructor(problem: string, fix: string) {
    super(`${problem}; ${fix}`);
    this.problem = problem;
    this.fix = fix;
  }
}

export const EXIT_OK = 0;
/** The run finished but the implementation under test failed its check or is not implemented. */
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;
/** Anything unexpected: a bug in the harness or a lab. */
const EXIT_INTERNAL = 3;

/**
 * The signals a run stops on: Ctrl-C, SIGTERM from scancel or a Slurm --time limit, a closed terminal. The supervisor
 * (supervise/supervisor.ts) listens for them while its runners are alive, the last stages' guard (run/interrupt.ts)
 * while the results are written.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const satisfies readonly NodeJS.Signals[];

/**
 * The numbers of the signals a run stops on (POSIX's, and what os.constants.signals gives on Linux, macOS and Windows).
 * A table rather than node:os: the site's results viewer imports this file (site/src/lib/viewer-runs.ts ->
 * measured.ts -> here), and the site's build fails on a Node built-in in browser code.
 */
const SIGNAL_NUMBERS: Record<(typeof STOP_SIGNALS)[number], number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** The exit code of a run ended by a signal: 128 + its number, as shells report it (SIGINT 130, SIGTERM 143, SIGHUP 129). */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return 128 + (SIGNAL_NUMBERS[signal as keyof typeof SIGNAL_NUMBERS] ?? 2);
}

/** What went wrong, in one string: an Error's message, or anything else thrown as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The exit code for an error that reached the top of the CLI. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof LabLoadError || error instanceof UnsafeFileError) return EXIT_USAGE;
  if (error instanceof Error && error.name === 'ResultsFileError') return EXIT_USAGE;
  return EXIT_INTERNAL;
}

/**
 * Runs a command-line entry point: its return value is the exit code, and an error that reaches the top is printed
 * as one line (with the stack only for internal errors, which are bugs) and mapped to its exit code here.
 */
export function runCli(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const code = exitCodeFor(error);
      const message = error instanceof Error ? (code === EXIT_INTERNAL ? (error.stack ?? error.message) : error.message) : String(error);
      process.stderr.write(`error: ${message}\n`);
      process.exitCode = code;
    },
  );
}

/** Why a file was refused unread: it is missing, not a regular file (FIFO, device, directory, socket), over the size
 * cap, or unreadable. */
export type UnsafeFileCode = 'FILE_NOT_FOUND' | 'FILE_NOT_REGULAR' | 'FILE_TOO_LARGE' | 'FILE_UNREADABLE';

/**
 * A file from disk (a results.json, notes.md, prediction.json) that the harness refused to read, so that no FIFO,
 * device or huge file can hang or kill a command (safe-read.ts). The message names the file, the reason and the fix.
 * Exit code 2.
 */
export class UnsafeFileError extends HarnessError {
  readonly code: UnsafeFileCode;
  override name = 'UnsafeFileError';
  readonly file: string;
  /** The reason alone, e.g. "is a named pipe (FIFO), not a regular file, so it was not read". */
  readonly reason: string;
  constructor(code: UnsafeFileCode, file: string, reason: string, fix: string) {
    super(`${file} ${reason}: ${fix}`);
    this.code = code;
    this.file = file;
    this.reason = reason;
  }
}
