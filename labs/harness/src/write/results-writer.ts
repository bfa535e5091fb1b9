/**
 * Stage 5, results: one new folder per run, made only when there are results to put in it, with `results.json`
 * validated against the schema and written atomically. Nothing is ever overwritten: a learner's earlier runs are their
 * evidence. (Whether `--out` can be written at all is checked before anything is measured: out-dir-check.ts.)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseResults, type Results } from '@parallel-course/core';

/**
 * `mkdir -p`, one level at a time. Node's own `mkdirSync(..., { recursive: true })` never returns for a path
 * under /proc (seen with Node 20 and 24), so a mistyped --out could hang the run instead of failing it.
 * Each folder this call made is pushed on `made`, outermost first, also when a deeper one then fails.
 */
function makeDirs(dir: string, made: string[] = []): void {
  if (existsSync(dir)) return;
  makeDirs(path.dirname(dir), made);
  try {
    mkdirSync(dir);
    made.push(dir);
  } catch (error) {
    // Another run made it between the check and here (a job array's tasks share one --out): a folder is what we wanted.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw error;
  }
}

/** Removes `made` (folders makeDirs made), innermost first, each only while it is empty: another run may use one now. */
function unmakeDirs(made: readonly string[]): void {
  for (const dir of [...made].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      return; // not empty (another run's folder is in it), or gone: the folders above it stay too
    }
  }
}

/** How many times createRunDir makes `<out>/<lab>` again after another run removed it (each removal is a failed run's). */
const MAX_REMADE = 10;

/** `2026-12-02T13-45-10-123Z`: sortable, and legal in file names on every OS. */
export function runFolderName(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

/**
 * Creates a new, empty run folder `<outRoot>/<lab>/<timestamp>[-N]`; never reuses an existing one. When it fails, the
 * folders above it that this call made (`<outRoot>/<lab>`, and `<outRoot>` itself if it was new) go again, while empty.
 */
export function createRunDir(outRoot: string, lab: string, date: Date): string {
  const labDir = path.join(outRoot, lab);
  const made: string[] = [];
  try {
    makeDirs(labDir, made);
    const base = path.join(labDir, runFolderName(date));
    let remade = 0;
    for (let n = 1; n < 1000; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      try {
        mkdirSync(candidate); // not recursive: fails with EEXIST instead of reusing a folder
        return candidate;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Another run sharing --out made <lab> (so makeDirs found it), failed, and removed it while empty (unmakeDirs)
        // before this mkdir: make it again, ours now, and try the same name (a few times: each needs a run that failed).
        if (code === 'ENOENT' && remade < MAX_REMADE) {
          remade++;
          makeDirs(labDir, made);
          n--;
          continue;
        }
        if (code !== 'EEXIST') throw error;
      }
    }
    throw new Error(`could not create a new run folder under ${labDir}`);
  } catch (error) {
    unmakeDirs(made);
    throw error;
  }
}

export interface WrittenRun {
  /** The folder the results are in: the new run folder, or a temporary one if writing there failed. */
  dir: string;
  fellBack: boolean;
  /** Why the run folder could not be used, when it could not. */
  problem: string | null;
}

/** Where a run's folder goes: `<outRoot>/<lab>/<startedAt as runFolderName>`. */
export interface RunFolderPlace {
  outRoot: string;
  lab: string;
  startedAt: Date;
}

/** A file that goes into the run folder beside results.json (a report, a chart), at a path inside it. */
export interface RunFolderFile {
  /** Relative to the run folder, forward slashes, already checked to stay inside it (report/reporter.ts reportPath). */
  relativePath: string;
  contents: string | Uint8Array;
}

/**
 * Makes this run's folder (createRunDir: new, never an earlier run's) and writes results.json, then `files`, into it,
 * all at once (everything is rendered before); if that fails (a full disk, `--out` made unwritable during the run),
 * into a new temporary folder instead, so a measured run is never lost, and once that holds the whole run the
 * half-written run folder is removed (if the temporary folder fails too, the run folder is kept as far as it got).
 * `made` hears of each folder the moment it exists, so a signal can remove it (run/interrupt.ts). The caller names the
 * folder it got.
 */
export function writeRunFolder(place: RunFolderPlace, results: Results, files: readonly RunFolderFile[], made: (dir: string) => void): WrittenRun {
  let runDir: string | null = null;
  try {
    runDir = createRunDir(place.outRoot, place.lab, place.startedAt);
    made(runDir);
    writeFolder(runDir, results, files);
    return { dir: runDir, fellBack: false, problem: null };
  } catch (error) {
    // Only the file system failing us calls for another folder (its errors carry an errno); invalid results are a
    // bug, and stay an error, with no folder of this run left.
    const { code: problem, errno } = error as NodeJS.ErrnoException;
    if (typeof problem !== 'string' || typeof errno !== 'number') {
      if (runDir) rmSync(runDir, { recursive: true, force: true });
      throw error;
    }
    let dir: string | null = null;
    try {
      dir = mkdtempSync(path.join(os.tmpdir(), `${results.lab}-run-`));
      made(dir);
      writeFolder(dir, results, files);
    } catch {
      // Neither folder took the whole run: this run's own folder stays as far as it got (results.json first, so the
      // evidence is there if anything is), the half-made temporary one goes, and the first failure is the error.
      if (dir) rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    // The whole run is in the temporary folder now: this run's half-written folder goes (never an earlier run's), so
    // the one copy of the run is the whole one.
    if (runDir) rmSync(runDir, { recursive: true, force: true });
    return { dir, fellBack: true, problem };
  }
}

/** results.json first (the run's evidence), then each file at its path, its folders made as needed. */
function writeFolder(dir: string, results: Results, files: readonly RunFolderFile[]): void {
  writeResults(dir, results);
  for (const file of files) {
    const target = path.join(dir, file.relativePath);
    makeDirs(path.dirname(target));
    writeFileAtomic(target, file.contents);
  }
}

/**
 * The harness's one atomic writer. The text goes to a temporary file in the same folder, then:
 * - by default it is hard-linked to its final name, which fails with EEXIST where a rename would overwrite: results,
 *   reports and notes never replace a file (a learner's earlier runs are their evidence);
 * - with `{ replace: true }` it is renamed over the final name: for caches the project regenerates (a model file).
 * A reader sees either no file (or the old one) or the whole new file, never half of one.
 */
export function writeFileAtomic(file: string, text: string | Uint8Array, options: { replace?: boolean } = {}): void {
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(temp, text, { flag: 'wx' });
  } catch (error) {
    // A full disk fails the write after the file was created: no half-written .tmp-* is left behind.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(temp, { force: true });
    throw error;
  }
  if (options.replace) {
    try {
      renameSync(temp, file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    return;
  }
  try {
    linkSync(temp, file);
  } finally {
    unlinkSync(temp);
  }
}

/** The codes of a write that failed for want of space: a full disk, a quota, a file-size limit. */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG';
}

/**
 * Writes a file that goes beside results already kept (notes.md, prediction.json): when the disk is full it says
 * so on stderr and returns false, so a measured run is never turned into a crash (exit 3) by its last small file.
 */
export function writeBesideResults(what: string, runDir: string, write: () => void): boolean {
  try {
    write();
    return true;
  } catch (error) {
    if (!isOutOfSpace(error)) throw error;
    process.stderr.write(
      `warning: ${what} was not written (${(error as NodeJS.ErrnoException).code}: no space left for it); the results are kept in ${runDir}. ` +
        `Free some space, then 'npm run report -- ${runDir}' writes it.\n`,
    );
    return false;
  }
}

/** Validates the results against the schema, then writes `results.json` into the run folder. */
export function writeResults(runDir: string, results: Results): string {
  const valid = parseResults(results, 'the results of this run');
  const file = path.join(runDir, 'results.json');
  writeFileAtomic(file, `${JSON.stringify(valid, null, 2)}\n`);
  return file;
}
