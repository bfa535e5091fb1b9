/**
 * Reading results back: a run folder or a results.json named on the command line, and the runs kept under a
 * results folder. Every file read is validated against the one schema (parseResultsJson).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.ts';
import { parseResultsJson, type Results } from './results-schema.ts';

export const RESULTS_FILE = 'results.json';

/** `<folder>/results.json` for a run folder, the file itself for a file; a UsageError with the fix otherwise. */
export function resolveResultsFile(target: string): string {
  const resolved = path.resolve(target);
  if (!existsSync(resolved)) {
    throw new UsageError(`${target} does not exist: give a run folder such as results/<lab>/<timestamp>/ or its results.json`);
  }
  if (statSync(resolved).isDirectory()) {
    const file = path.join(resolved, RESULTS_FILE);
    if (!existsSync(file)) {
      throw new UsageError(`${target} has no ${RESULTS_FILE}: give a run folder the harness wrote (results/<lab>/<timestamp>/)`);
    }
    return file;
  }
  return resolved;
}

/** Reads and validates a run's results; throws ResultsFileError (exit 2) naming every problem. */
export function readResults(target: string): { file: string; runDir: string; results: Results } {
  const file = resolveResultsFile(target);
  const results = parseResultsJson(readFileSync(file, 'utf8'), file);
  return { file, runDir: path.dirname(file), results };
}

export interface RunOnDisk {
  runDir: string;
  /** The validated results, or null when the file is not a valid results file. */
  results: Results | null;
  /** Why the file could not be read, when results is null. */
  problem: string | null;
}

/** Every run folder under `<outRoot>/<lab>/`, oldest first (folder names are ISO timestamps). Never throws for bad files. */
export function listRuns(outRoot: string, lab: string): RunOnDisk[] {
  const labDir = path.join(outRoot, lab);
  if (!existsSync(labDir)) return [];
  const runs: RunOnDisk[] = [];
  for (const entry of readdirSync(labDir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(labDir, entry.name, RESULTS_FILE);
    if (!entry.isDirectory() || !existsSync(file)) continue;
    try {
      runs.push({ runDir: path.dirname(file), results: parseResultsJson(readFileSync(file, 'utf8'), file), problem: null });
    } catch (error) {
      runs.push({ runDir: path.dirname(file), results: null, problem: (error as Error).message });
    }
  }
  return runs;
}
