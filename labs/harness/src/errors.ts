import { constants as osConstants } from 'node:os';

/**
 * Errors the harness raises at its edges, and the one place that maps them to exit codes.
 * Every message says what is wrong and then how to fix it.
 */

/** Bad command-line input: unknown lab, bad flag, unwritable folder. Exit code 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A lab could not be loaded or set up (broken lab module, missing file). Exit code 2. */
export class LabLoadError extends Error {
  readonly code = 'LAB_LOAD';
  constructor(message: string) {
    super(message);
    this.name = 'LabLoadError';
  }
}

export const EXIT_OK = 0;
/** The run finished but the implementation under test failed its check or is not implemented. */
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;
/** Anything unexpected: a bug in the harness or a lab. */
export const EXIT_INTERNAL = 3;

/** The exit code of a run ended by a signal: 128 + its number, as shells report it (SIGINT 130, SIGTERM 143, SIGHUP 129). */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 2);
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
export class UnsafeFileError extends Error {
  readonly code: UnsafeFileCode;
  readonly file: string;
  /** The reason alone, e.g. "is a named pipe (FIFO), not a regular file, so it was not read". */
  readonly reason: string;
  constructor(code: UnsafeFileCode, file: string, reason: string, fix: string) {
    super(`${file} ${reason}: ${fix}`);
    this.name = 'UnsafeFileError';
    this.code = code;
    this.file = file;
    this.reason = reason;
  }
}
