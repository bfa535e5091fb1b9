/**
 * Files handed in by learners (results.json, notes.md, prediction.json) are untrusted: one of them can be a FIFO
 * that blocks a read forever, a symbolic link to /dev/zero that never ends, or a file too big for one string. Every
 * command reads them through `readTextFileSafely`, and shows text from them through the core's `terminalText` and
 * `shellCommandLine`, so no file can hang, kill or fool a run (issue 14).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { UnsafeFileError } from '../errors.ts';
import { formatBytes, MAX_RESULTS_BYTES } from '@parallel-course/core';

export { MAX_RESULTS_BYTES, UnsafeFileError };

export interface SafeReadOptions {
  /** The largest size accepted, in bytes; a bigger file is refused before a byte of it is read. */
  capBytes: number;
  /** What the file should be, for the message: "a results file", "notes.md". */
  what: string;
  /** How to fix a refused file, the end of the message. */
  fix: string;
}

/** The fix named when a results file is refused. */
export const RESULTS_FILE_FIX = 'give the results.json that "npm run lab" wrote into results/<lab>/<time>/ (a plain file)';

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device (such as /dev/zero)';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a folder';
  return 'not a plain file';
}

function isSymlink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The refusal for what `stats` describes, or null when it is a regular file within the cap. */
function refusal(file: string, stats: Stats, options: SafeReadOptions): UnsafeFileError | null {
  if (!stats.isFile()) {
    const link = isSymlink(file) ? 'a symbolic link to ' : '';
    return new UnsafeFileError('FILE_NOT_REGULAR', file, `is ${link}${kindOf(stats)}, not a regular file, so it was not read`, options.fix);
  }
  if (stats.size > options.capBytes) {
    return new UnsafeFileError(
      'FILE_TOO_LARGE',
      file,
      `is ${formatBytes(stats.size)}, more than the ${formatBytes(options.capBytes)} ${options.what} may be, so it was not read`,
      options.fix,
    );
  }
  return null;
}

/** An error from stat/open/read as an UnsafeFileError that names the file and the system's reason. */
function fromSystemError(file: string, error: unknown, options: SafeReadOptions): UnsafeFileError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new UnsafeFileError('FILE_NOT_FOUND', file, 'does not exist', options.fix);
  // open() of a socket fails with ENXIO: it is not a file at all.
  if (code === 'ENXIO') return new UnsafeFileError('FILE_NOT_REGULAR', file, 'is a socket or device, not a regular file, so it was not read', options.fix);
  const why = code === 'EACCES' || code === 'EPERM' ? `${code}: permission denied` : code === 'ELOOP' ? 'ELOOP: a loop of symbolic links' : (code ?? (error as Error).message);
  return new UnsafeFileError('FILE_UNREADABLE', file, `cannot be read (${why})`, options.fix);
}

/**
 * The text of a regular file of at most `capBytes`, read without ever blocking:
 *   1. stat (which opens nothing) refuses a FIFO, device, folder or socket, and a file over the cap;
 *   2. open with O_NONBLOCK (a FIFO swapped in after the stat cannot block the open) and O_NOCTTY, then fstat the
 *      descriptor: what was opened must still be a regular file within the cap;
 *   3. read at most cap + 1 bytes, so a file that grows while it is read is refused, never read without end.
 * Throws UnsafeFileError (exit code 2) whose message names the file, the reason and `options.fix`.
 */
export function readTextFileSafely(file: string, options: SafeReadOptions): string {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (error) {
    throw fromSystemError(file, error, options);
  }
  const early = refusal(file, stats, options);
  if (early) throw early;
  // A link to a regular file is refused too: a results folder's link to /etc/passwd must not be read (issue 25).
  if (isSymlink(file)) {
    throw new UnsafeFileError('FILE_NOT_REGULAR', file, 'is a symbolic link; links are not followed, so it was not read', options.fix);
  }

  let fd: number;
  try {
    // O_NONBLOCK and O_NOCTTY do not exist on Windows, where there are no FIFOs to open by name either.
    // O_NOFOLLOW: a link swapped in after the check is not followed either.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    throw fromSystemError(file, error, options);
  }
  try {
    const opened = fstatSync(fd);
    const late = refusal(file, opened, options);
    if (late) throw late;
    const limit = Math.min(opened.size, options.capBytes) + 1;
    const buffer = Buffer.allocUnsafe(limit);
    let total = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, total, limit - total, null);
      } catch (error) {
        throw fromSystemError(file, error, options);
      }
      if (n === 0) break;
      total += n;
      if (total === limit) {
        const reason = total > options.capBytes
          ? `grew past the ${formatBytes(options.capBytes)} ${options.what} may be while it was read, so it was not read`
          : 'grew while it was read, so it was not read';
        throw new UnsafeFileError(total > options.capBytes ? 'FILE_TOO_LARGE' : 'FILE_UNREADABLE', file, reason, options.fix);
      }
    }
    return buffer.toString('utf8', 0, total);
  } finally {
    closeSync(fd);
  }
}

/** A results.json's text, at most `capBytes` (default MAX_RESULTS_BYTES, the site's cap too); see readTextFileSafely. */
export function readResultsText(file: string, capBytes = MAX_RESULTS_BYTES): string {
  return readTextFileSafely(file, { capBytes, what: 'a results file', fix: RESULTS_FILE_FIX });
}

/** C0 and C1 control characters (ANSI escapes, carriage returns, newlines, tabs, DEL) and the bidi overrides that
 * reorder a line: anything that can move the cursor, recolour, clear or disguise a terminal line. */
const UNSAFE_TERMINAL_CHARS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;



/** Characters that need no quoting in a POSIX shell word (no globbing, expansion, separators or leading ~). */
const SHELL_SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

function ansiCEscape(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\t') return '\\t';
  if (c === '\r') return '\\r';
  const code = c.codePointAt(0) ?? 0;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One shell word: as it is when every character is safe, else in single quotes; a word with control characters
 * (a newline, an escape) is written as $'...' with each one escaped, so the word stays on one line and one word.
 */
export function shellQuote(word: string): string {
  if (SHELL_SAFE_WORD.test(word)) return word;
  if (/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(word)) {
    return `$'${word.replace(/[\\']/g, (c) => `\\${c}`).replace(UNSAFE_TERMINAL_CHARS, ansiCEscape)}'`;
  }
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command line as recorded in a results file (its words joined by single spaces, as the harness records argv)
 * with every word quoted by shellQuote: a genuine command comes back unchanged, while a newline, ";" or "$(...)"
 * in an edited one stays inside a quoted word of the same shell line.
 */
export function shellCommandLine(command: string): string {
  return (shellWords(command) ?? command.split(' '))
    .filter((word) => word !== '')
    .map(shellQuote)
    .join(' ');
}

/** The argv a command line was recorded from: each word quoted by shellQuote where it needs it (cli.ts records runs so). */
export function recordCommandLine(prefix: string, argv: readonly string[]): string {
  return [prefix, ...argv.map(shellQuote)].join(' ');
}

const ANSI_C_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'" };

/**
 * The words of a recorded command line, reading the quotes shellQuote writes ('...', '\'' and $'...' with \n, \t,
 * \r, \xHH, \uHHHH) so a quoted `--why '2 CPUs'` stays one word; words are separated by single spaces only (a newline
 * in an edited file stays inside its word, as before). Null for an unterminated quote: the caller then splits on spaces.
 */
export function shellWords(command: string): string[] | null {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === ' ') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return null;
      word += command.slice(i + 1, end);
      i = end;
    } else if (c === '$' && command[i + 1] === "'") {
      let j = i + 2;
      for (; j < command.length && command[j] !== "'"; j++) {
        if (command[j] !== '\\') {
          word += command[j];
          continue;
        }
        const e = command[++j];
        if (e === undefined) return null;
        const hex = e === 'x' ? /^[0-9a-fA-F]{2}/.exec(command.slice(j + 1)) : e === 'u' ? /^[0-9a-fA-F]{4}/.exec(command.slice(j + 1)) : null;
        if (hex) {
          word += String.fromCodePoint(Number.parseInt(hex[0], 16));
          j += hex[0].length;
        } else {
          word += ANSI_C_ESCAPES[e] ?? `\\${e}`;
        }
      }
      if (j >= command.length) return null;
      i = j;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i];
    } else {
      word += c;
    }
  }
  if (inWord) words.push(word);
  return words;
}
