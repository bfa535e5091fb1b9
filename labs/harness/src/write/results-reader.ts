/**
 * Reading results back: a run folder or a results.json named on the command line, and the runs kept under a
 * results folder. Every file is read through safe-read.ts (a regular file within MAX_RESULTS_BYTES, never a blocking
 * read) and validated against the one schema (parseResultsJson).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { UnsafeFileError, UsageError } from '../errors.ts';
import { parseResultsJson, type Results } from '@parallel-course/core';
import { readResultsText } from './safe-read.ts';

export const RESULTS_FILE = 'results.json';

/** Whether `target` is a folder (false where it is missing or cannot be read): the run and class readers' one test. */
export function isFolder(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}

/** `<folder>/results.json` for a run folder, the path itself otherwise (readResults then checks what it is). */
export function resolveResultsFile(target: string): string {
  const resolved = path.resolve(target);
  return isFolder(resolved) ? path.join(resolved, RESULTS_FILE) : resolved;
}

/**
 * Reads and validates a run's results. Throws UsageError for a missing file or folder, UnsafeFileError for a file
 * that is not a regular file or is over the cap, ResultsFileError naming every schema problem (all exit 2).
 */
export function readResults(target: string): { file: string; runDir: string; results: Results } {
  const file = resolveResultsFile(target);
  let text: string;
  try {
    text = readResultsText(file);
  } catch (error) {
    if (error instanceof UnsafeFileError && error.code === 'FILE_NOT_FOUND') {
      throw new UsageError(
        file === path.resolve(target)
          ? `${target} does not exist: give a run folder such as results/<lab>/<timestamp>/ or its results.json`
          : `${target} has no ${RESULTS_FILE}: give a run folder the harness wrote (results/<lab>/<timestamp>/)`,
      );
    }
    throw error;
  }
  const results = parseResultsJson(text, file);
  return { file, runDir: path.dirname(file), results };
}

export interface RunOnDisk {
  runDir: string;
  /** The validated results, or null when the file is not a valid results file. */
  results: Results | null;
  /** Why the file could not be read, when results is null. */
  problem: string | null;
}

/**
 * Every run folder under `<outRoot>/<lab>/`, oldest first (folder names are ISO timestamps). Never throws for bad
 * files: a results.json that is refused (a FIFO, a device, over the cap) or invalid is listed with its problem.
 */
export function listRuns(outRoot: string, lab: string): RunOnDisk[] {
  const labDir = path.join(outRoot, lab);
  if (!isFolder(labDir)) return [];
  let entries;
  try {
    entries = readdirSync(labDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const runs: RunOnDisk[] = [];
  // Dirent.isDirectory() does not follow symbolic links: a link to elsewhere is not a run folder.
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const runDir = path.join(labDir, entry.name);
    const file = path.join(runDir, RESULTS_FILE);
    try {
      runs.push({ runDir, results: parseResultsJson(readResultsText(file), file), problem: null });
    } catch (error) {
      if (error instanceof UnsafeFileError && error.code === 'FILE_NOT_FOUND') continue;
      runs.push({ runDir, results: null, problem: (error as Error).message });
    }
  }
  return runs;
}
