/**
 * The runs the course's numbers come from (issue 20), resolved once per build: every `<Measured>`, `<MeasuredTable>`
 * and `<SpeedupChart>` of the episodes, the episode pages' "numbers from" line and the results viewer read them here.
 *
 *   - default: the committed reference runs, `reference/<lab>/<time>/` at the repository root;
 *   - `COURSE_RUNS=<folder>`: an instructor's own runs, in any shape the harness writes (a results root with
 *     `<lab>/<time>/results.json`, an `--all` bundle folder `all/<time>/`, or `results/` holding `all/`; also one
 *     lab's folder `results/<lab>/` or one run folder `results/<lab>/<time>/`). For each lab
 *     the newest valid run there is used; a lab with none there falls back to the reference, with `fellBack` set so the
 *     pages say so. A relative path is taken from where the command was started (npm's INIT_CWD).
 * A run is valid when its results.json passes `npm run report -- validate` (schema, correctness, every number
 * recomputed from the samples) and its analysis/values.json, if any, passes its schema (tools/run-folders.ts) and,
 * for a COURSE_RUNS run, equals what the lab's analysis computes from those results (tools/recompute-values.ts); and
 * no ratio in it is beyond what its machine can give (the core's plausibility.ts).
 * Every file is read through the harness's safe reader (a regular file within its cap), never trusted as markup.
 * Build-time only (node:fs).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AnalysisValues } from '@parallel-course/core';
import { type CheckedRun, checkRunFolder, findRunFolders, findValuesFile, labNames } from '@parallel-course/harness/site.ts';
import { machineText, plausibilityFlags, type Results } from '@parallel-course/core';

export interface CourseRun {
  lab: string;
  /** The validated results. */
  results: Results;
  /** The validated analysis values, or null when the run has none. */
  values: AnalysisValues | null;
  /** Where the run comes from: the committed reference, or the folder COURSE_RUNS names. */
  source: 'reference' | 'course-runs';
  /** The run folder, absolute. */
  dir: string;
  /** COURSE_RUNS was given but had no valid run of this lab, so this is the reference's. */
  fellBack: boolean;
  /** Why the COURSE_RUNS runs of this lab were not used, when fellBack (each skipped run with its first problem). */
  fellBackReason: string | null;
}

export interface CourseRuns {
  /** One run per lab, by lab name; a lab without any valid run (not even in the reference) is absent. */
  labs: Map<string, CourseRun>;
  /** The reference's run of each lab (for selectors that do not resolve in a COURSE_RUNS run). */
  reference: Map<string, CourseRun>;
  /** The folder COURSE_RUNS named (absolute), or null for the reference. */
  courseRunsDir: string | null;
  referenceDir: string;
}

/** Thrown when COURSE_RUNS names a folder that does not exist or holds no valid run of any lab. */
export class CourseRunsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CourseRunsError';
  }
}

export interface LoadOptions {
  /** The repository root; default COURSE_REPO_ROOT (set by astro.config.mjs), else the parent of the working folder. */
  rootDir?: string;
  /** The COURSE_RUNS value; default process.env.COURSE_RUNS. Empty means unset. */
  courseRuns?: string | undefined;
  /** Where a relative COURSE_RUNS is taken from; default INIT_CWD (where npm was started), else the working folder. */
  cwd?: string;
}

/** The repository root as the build sees it. */
function repoRoot(): string {
  return process.env['COURSE_REPO_ROOT'] ?? path.resolve(process.cwd(), '..');
}

/** Reads and validates a run folder (every number recomputed): checkRunFolder, memoised (see its two makers below). */
type Check = (dir: string) => CheckedRun;

/**
 * The check of COURSE_RUNS folders, memoised for one load; it also recomputes each run's values.json with the lab's
 * analysis (an edited one is refused). The committed reference's values are checked against their recomputation by
 * the labs' tests instead (referenceCheck).
 */
function courseRunsCheck(rootDir: string): Check {
  const checked = new Map<string, CheckedRun>();
  return (dir) => {
    let result = checked.get(dir);
    if (result === undefined) {
      result = checkRunFolder(dir, { rootDir, recomputeValues: true });
      checked.set(dir, result);
    }
    return result;
  };
}

/**
 * The run folders of `lab` under `root`: findRunFolders's shapes, plus `root` itself when it is one run folder of
 * that lab (`COURSE_RUNS=results/event-loop/<time>`) and `root`'s own runs when it is that lab's folder
 * (`COURSE_RUNS=results/event-loop`).
 */
function runFoldersOf(root: string, lab: string, check: Check): string[] {
  let ownLab: string | null = null;
  try {
    if (statSync(path.join(root, 'results.json')).isFile()) ownLab = check(root).results?.lab ?? null;
  } catch {
    ownLab = null;
  }
  if (ownLab !== null) return ownLab === lab ? [root] : [];
  if (path.basename(root) === lab) return findRunFolders(path.dirname(root), lab).filter((dir) => path.dirname(dir) === root);
  return findRunFolders(root, lab);
}

function newestValid(root: string, lab: string, source: CourseRun['source'], check: Check): { run: CourseRun | null; skipped: string[] } {
  const skipped: string[] = [];
  for (const dir of (source === 'reference' ? findRunFolders(root, lab) : runFoldersOf(root, lab, check)).reverse()) {
    const checked = check(dir);
    // A ratio no machine gives is valid arithmetic on a forged or broken measurement: never rendered as measured.
    const implausible = checked.results ? plausibilityFlags(checked.results).map((flag) => `implausible, not a measurement: ${flag.message}`) : [];
    if (checked.results && checked.problems.length === 0 && implausible.length === 0) {
      return { run: { lab, results: checked.results, values: checked.values, source, dir, fellBack: false, fellBackReason: null }, skipped };
    }
    skipped.push(`${path.relative(root, dir) || dir}: ${checked.problems[0] ?? implausible[0] ?? 'not valid'}`);
  }
  return { run: null, skipped };
}

/**
 * What this file keeps for the process, on globalThis rather than in the module: a build loads this file twice, once
 * as itself (astro.config.mjs) and once bundled into the pages Astro prerenders, and both copies would otherwise check
 * the same runs (about 2.5 s of bootstrap for the reference, as much again for an instructor's runs).
 * - loads: each load's runs, per root and COURSE_RUNS (one build reads one set of runs);
 * - referenceChecks: the reference folders' checks, kept across loads with other COURSE_RUNS (the site's tests make
 *   many); a folder whose files changed since (folderSignature) is checked afresh.
 */
interface Kept {
  loads: Map<string, CourseRuns>;
  referenceChecks: Map<string, { signature: string; checked: CheckedRun }>;
}
const KEPT = Symbol.for('parallel-course.site.course-runs');
const kept = ((globalThis as Record<symbol, unknown>)[KEPT] ??= { loads: new Map(), referenceChecks: new Map() } satisfies Kept) as Kept;

/** What changes when a run folder's files are rewritten: the stat of the folder, its results.json and its values file. */
function folderSignature(dir: string): string {
  return [dir, path.join(dir, 'results.json'), findValuesFile(dir) ?? '-']
    .map((file) => {
      try {
        const s = statSync(file);
        return `${file}:${s.ino}:${s.size}:${s.mtimeMs}`;
      } catch {
        return `${file}:-`;
      }
    })
    .join('|');
}

/** checkRunFolder for the reference folders, memoised across loads (kept.referenceChecks). */
function referenceCheck(rootDir: string): Check {
  return (dir) => {
    const key = `${rootDir}\0${dir}`;
    const signature = folderSignature(dir);
    const earlier = kept.referenceChecks.get(key);
    if (earlier && earlier.signature === signature) return earlier.checked;
    const checked = checkRunFolder(dir, { rootDir, recomputeValues: false });
    kept.referenceChecks.set(key, { signature, checked });
    return checked;
  };
}

/** The newest valid reference run of each lab (a lab without one is absent). */
function referenceRuns(rootDir: string, labs: readonly string[]): Map<string, CourseRun> {
  const referenceDir = path.join(rootDir, 'reference');
  const reference = new Map<string, CourseRun>();
  const checkReference = referenceCheck(rootDir);
  for (const lab of labs) {
    const { run } = newestValid(referenceDir, lab, 'reference', checkReference);
    if (run) reference.set(lab, run);
  }
  return reference;
}

/** COURSE_RUNS must name a folder: the error says which it named and what to give. */
function requireFolder(courseRunsDir: string, given: string): void {
  let isDir = false;
  try {
    isDir = statSync(courseRunsDir).isDirectory();
  } catch {
    isDir = false;
  }
  if (isDir) return;
  throw new CourseRunsError(
    `COURSE_RUNS=${given} names ${courseRunsDir}, which ${existsSync(courseRunsDir) ? 'is not a folder' : 'does not exist'}: ` +
      'give the folder of your runs (results/, or a bundle results/all/<time>/ that "npm run lab -- --all" wrote), or unset COURSE_RUNS to use the reference runs',
  );
}

/**
 * The instructor's runs (COURSE_RUNS): the newest valid run of each lab there, else the reference's, marked fellBack
 * with the reason; a folder with no valid run of any lab is an error that lists what was skipped.
 */
function instructorRuns(rootDir: string, courseRunsDir: string, given: string, labs: readonly string[], reference: ReadonlyMap<string, CourseRun>): Map<string, CourseRun> {
  requireFolder(courseRunsDir, given);
  const chosen = new Map<string, CourseRun>();
  const allSkipped: string[] = [];
  const checkCourseRuns = courseRunsCheck(rootDir);
  for (const lab of labs) {
    const { run, skipped } = newestValid(courseRunsDir, lab, 'course-runs', checkCourseRuns);
    allSkipped.push(...skipped);
    const ref = reference.get(lab);
    if (run) chosen.set(lab, run);
    else if (ref) {
      chosen.set(lab, {
        ...ref,
        fellBack: true,
        fellBackReason: skipped.length === 0 ? `no run of ${lab} in ${given}` : `no valid run of ${lab} in ${given} (${skipped.slice(0, 2).join('; ')})`,
      });
    }
  }
  if (![...chosen.values()].some((r) => r.source === 'course-runs')) {
    throw new CourseRunsError(
      `COURSE_RUNS=${given} (${courseRunsDir}) holds no valid run of any lab (${labs.join(', ')})` +
        (allSkipped.length > 0 ? `:\n  ${allSkipped.slice(0, 8).join('\n  ')}` : ': expected <lab>/<time>/results.json or all/<time>/<lab>/<time>/results.json under it') +
        '\nRun "npm run lab -- --all --impl solution" (or one lab) and point COURSE_RUNS at results/, or unset it to use the reference runs.',
    );
  }
  return chosen;
}

/** The runs the site shows, one per lab (see the file's comment). Cached per root and COURSE_RUNS. */
export function loadCourseRuns(options: LoadOptions = {}): CourseRuns {
  const rootDir = options.rootDir ?? repoRoot();
  const given = options.courseRuns !== undefined ? options.courseRuns : process.env['COURSE_RUNS'];
  const cwd = options.cwd ?? process.env['INIT_CWD'] ?? process.cwd();
  const courseRunsDir = given === undefined || given.trim() === '' ? null : path.resolve(cwd, given.trim());
  const key = `${rootDir}\0${courseRunsDir ?? ''}`;
  const cached = kept.loads.get(key);
  if (cached) return cached;
  const labs = labNames(rootDir);
  const reference = referenceRuns(rootDir, labs);
  const chosen = courseRunsDir === null || given === undefined ? new Map(reference) : instructorRuns(rootDir, courseRunsDir, given, labs, reference);
  const loaded: CourseRuns = { labs: chosen, reference, courseRunsDir, referenceDir: path.join(rootDir, 'reference') };
  kept.loads.set(key, loaded);
  return loaded;
}

/** The run of `lab` the site shows; a clear error when there is none at all (not even in the reference). */
export function courseRun(runs: CourseRuns, lab: string): CourseRun {
  const run = runs.labs.get(lab);
  if (run) return run;
  const known = labNamesSafe(runs);
  throw new CourseRunsError(
    known.includes(lab)
      ? `there is no valid run of the ${lab} lab in ${path.relative(process.cwd(), runs.referenceDir) || runs.referenceDir}: make the reference runs with "npm run reference" (reference/README.md)`
      : `run="${lab}" is not a lab; the labs are: ${known.join(', ')}`,
  );
}

function labNamesSafe(runs: CourseRuns): string[] {
  return [...new Set([...runs.reference.keys(), ...runs.labs.keys()])].sort();
}

/** Who made a run, for tooltips and the pages' line: "reference run" or "instructor's run". */
export function runKind(run: CourseRun): string {
  return run.source === 'reference' ? 'reference run' : "instructor's run";
}

/** One line naming a run: "event-loop: reference run of 2026-12-03 15:16 UTC on AMD EPYC 7763 (P = 2, Node v24.21.0)". */
export function describeRun(run: CourseRun): string {
  const when = `${run.results.startedAt.slice(0, 10)} ${run.results.startedAt.slice(11, 16)} UTC`;
  return `${run.lab}: ${runKind(run)} of ${when} on ${machineText(run.results, { date: false })}${run.results.quick ? ' (a --quick run)' : ''}`;
}
