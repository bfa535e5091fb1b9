/**
 * Finding and checking whole run folders under a folder of runs, for the course's reference runs (reference/, issue
 * 20) and the site that renders its numbers from them (site/src/lib/course-runs.ts):
 *   - a results root: `<root>/<lab>/<time>/results.json` (what `npm run lab` writes, and reference/);
 *   - an `--all` bundle folder: `<bundle>/<lab>/<time>/` (the same shape);
 *   - a results root holding bundles: `<root>/all/<time>/<lab>/<time>/`.
 * Every file is read through safe-read.ts (a regular file within its cap) and validated with its schema; a run is
 * valid when its results pass `npm run report -- validate` (schema, correctness, every number recomputed) and its
 * analysis values, when it has any, pass theirs.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAnalysisValuesJson, VALUES_FILE, type AnalysisValues } from '@parallel-course/core';
import { UnsafeFileError } from '../errors.ts';
import { isFolder, RESULTS_FILE } from '../write/results-reader.ts';
import type { Results } from '@parallel-course/core';
import { readTextFileSafely } from '../write/safe-read.ts';
import { recomputeValuesInChild, valuesContradictions } from './recompute-values.ts';
import { validateFile } from './validate.ts';

/** The largest values.json read, in bytes: far above any lab's (a few KiB). */
const MAX_VALUES_BYTES = 4 * 1024 * 1024;


function subfolders(dir: string): string[] {
  try {
    // Dirent.isDirectory() does not follow symbolic links: a link to elsewhere is not a run folder.
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * Every folder that holds a results.json for `lab` under `root`, in any of the shapes above, sorted by folder name
 * (ISO timestamps: oldest first). Bundles (`all/`) are looked into; nothing is read.
 */
export function findRunFolders(root: string, lab: string): string[] {
  const found: { dir: string; name: string }[] = [];
  const scanLab = (labDir: string) => {
    for (const name of subfolders(labDir)) {
      const dir = path.join(labDir, name);
      try {
        if (statSync(path.join(dir, RESULTS_FILE)).isFile()) found.push({ dir, name });
      } catch {
        // no results.json: not a run folder
      }
    }
  };
  scanLab(path.join(root, lab));
  for (const bundle of subfolders(path.join(root, 'all'))) scanLab(path.join(root, 'all', bundle, lab));
  return found.sort((a, b) => a.name.localeCompare(b.name) || a.dir.localeCompare(b.dir)).map((f) => f.dir);
}

/** The labs that have at least one run folder under `root` (any shape), sorted. */
export function labsWithRuns(root: string): string[] {
  const labs = new Set<string>();
  const consider = (dir: string) => {
    for (const lab of subfolders(dir)) {
      if (lab === 'all' || !/^[a-z0-9-]+$/.test(lab)) continue;
      if (subfolders(path.join(dir, lab)).some((run) => isFolder(path.join(dir, lab, run)))) labs.add(lab);
    }
  };
  consider(root);
  for (const bundle of subfolders(path.join(root, 'all'))) consider(path.join(root, 'all', bundle));
  return [...labs].sort();
}

/** The newest `analysis*` folder of a run that has a values.json (analysis, analysis-2, ...: highest number wins). */
export function findValuesFile(runDir: string): string | null {
  const folders = subfolders(runDir)
    .map((name) => ({ name, n: name === 'analysis' ? 1 : Number(/^analysis-(\d+)$/.exec(name)?.[1] ?? NaN) }))
    .filter((f) => Number.isInteger(f.n))
    .sort((a, b) => b.n - a.n);
  for (const f of folders) {
    const file = path.join(runDir, f.name, VALUES_FILE);
    try {
      if (statSync(file).isFile()) return file;
    } catch {
      // this analysis folder has no values.json (written before issue 20)
    }
  }
  return null;
}

export interface CheckedRun {
  runDir: string;
  /** The validated results, or null when the file could not be read or did not match the schema. */
  results: Results | null;
  /** The validated analysis values of the run, or null when it has none (or they are invalid: see problems). */
  values: AnalysisValues | null;
  /** Every problem found; empty when the run is valid. */
  problems: string[];
}

export interface CheckRunOptions {
  /** A run without a values.json is a problem. */
  requireValues?: boolean;
  /**
   * Recompute the values from the validated results with this version of the lab's analysis (recompute-values.ts)
   * and refuse a values.json that differs: for runs from folders the course does not own (COURSE_RUNS).
   */
  recomputeValues?: boolean;
  /** The repository root whose labs and solutions the run is checked against; default the harness's. */
  rootDir?: string;
}

/**
 * Reads and checks a run folder: results.json as `npm run report -- validate` checks it, and the newest values.json,
 * which must be valid and belong to the same run (lab and startedAt). With `recomputeValues` the values returned are
 * the ones the lab's analysis computes from the validated results, and a values.json whose numbers contradict them
 * makes the run invalid.
 */
export function checkRunFolder(runDir: string, options: CheckRunOptions = {}): CheckedRun {
  const checked = validateFile(path.join(runDir, RESULTS_FILE), options.rootDir === undefined ? {} : { courseRoot: options.rootDir });
  const problems = [...checked.problems];
  let values: AnalysisValues | null = null;
  const valuesFile = findValuesFile(runDir);
  if (valuesFile === null && options.recomputeValues && checked.results && checked.valid) {
    // A run from before values.json (or whose analysis folder was not copied): its values are computed here.
    try {
      values = recomputeValuesInChild(runDir, options.rootDir);
    } catch (error) {
      problems.push(`${VALUES_FILE}: the values of ${runDir} could not be computed: ${(error as Error).message}`);
    }
  } else if (valuesFile === null) {
    if (options.requireValues) problems.push(`${VALUES_FILE}: the run has no analysis/${VALUES_FILE} (run "npm run analyse -- ${runDir}")`);
  } else {
    try {
      values = parseAnalysisValuesJson(
        readTextFileSafely(valuesFile, { capBytes: MAX_VALUES_BYTES, what: 'an analysis values file', fix: 'give the values.json that "npm run analyse" wrote' }),
        valuesFile,
      );
      if (checked.results && (values.lab !== checked.results.lab || values.startedAt !== checked.results.startedAt)) {
        problems.push(`${VALUES_FILE}: ${valuesFile} belongs to the ${values.lab} run of ${values.startedAt}, not to this ${checked.results.lab} run of ${checked.results.startedAt}`);
        values = null;
      } else if (options.recomputeValues && checked.results && checked.valid) {
        // The values shown are the recomputed ones; a file whose numbers contradict them was edited: the run is refused.
        try {
          const recomputed = recomputeValuesInChild(runDir, options.rootDir);
          const contradictions = valuesContradictions(values, recomputed);
          if (contradictions.length > 0) {
            problems.push(
              `${VALUES_FILE}: ${valuesFile} contradicts this run's results (${contradictions.join('; ')}): it was edited after the ` +
                `run; rerun "npm run analyse -- ${runDir}" to write a new analysis folder`,
            );
            values = null;
          } else {
            values = recomputed;
          }
        } catch (error) {
          problems.push(`${VALUES_FILE}: the values of ${runDir} could not be recomputed: ${(error as Error).message}`);
          values = null;
        }
      }
    } catch (error) {
      if (!(error instanceof UnsafeFileError) && !(error instanceof Error && 'problems' in error) ) throw error;
      problems.push(`${VALUES_FILE}: ${(error as Error).message}`);
      values = null;
    }
  }
  return { runDir, results: checked.results, values, problems };
}
