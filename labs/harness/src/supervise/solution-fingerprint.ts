/**
 * The solution's fingerprint: a SHA-256 over every file of solutions/<lab> (relative path and bytes, in
 * sorted order), recorded in every graded run. A grade is a ratio to that code; validate and class compare the
 * fingerprint with the course checkout's own solutions/<lab> and refuse a grade measured against a changed one (a
 * sabotaged or edited solution makes any learner look fast). Links are hashed as their target text, never followed.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export interface SolutionFingerprint {
  /** `solutions/<lab>`, as the repository names it. */
  folder: string;
  sha256: string;
  files: number;
}

/** Files under the folder, skipping what git ignores by convention here (node_modules, build output). */
function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name === 'node_modules' || entry.name === 'build') continue;
    const name = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, name));
    else out.push(name);
  }
  return out;
}

/** The fingerprint of `rootDir/solutions/<lab>`, or null when the checkout has no such folder. */
export function fingerprintSolution(rootDir: string, lab: string): SolutionFingerprint | null {
  const folder = `solutions/${lab}`;
  const dir = path.join(rootDir, 'solutions', lab);
  if (!existsSync(dir)) return null;
  const hash = createHash('sha256');
  const files = listFiles(dir);
  for (const name of files) {
    const full = path.join(dir, name);
    const link = lstatSync(full).isSymbolicLink();
    const bytes = link ? Buffer.from(`link:${readlinkSync(full)}`) : readFileSync(full);
    hash.update(`${name}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return { folder, sha256: hash.digest('hex'), files: files.length };
}

/**
 * Why a graded run's grade cannot be trusted against the solution in `rootDir`, or null when it can (or the run is
 * not graded). One line, for validate and the class page.
 */
export function solutionProblem(results: { lab: string; grade: unknown; solutionFingerprint?: SolutionFingerprint | undefined }, rootDir: string): string | null {
  if (results.grade === null || results.grade === undefined) return null;
  const recorded = results.solutionFingerprint;
  if (!recorded) return `grade: the run does not record which solution it was measured against (no solutionFingerprint); rerun with --grade on this version of the course`;
  const current = fingerprintSolution(rootDir, results.lab);
  if (!current) return `grade: this checkout has no solutions/${results.lab} to compare the run's solution with; validate from the course checkout`;
  if (current.sha256 !== recorded.sha256) {
    return (
      `grade: measured against a changed solution (${recorded.folder} was ${recorded.sha256.slice(0, 12)}..., ${recorded.files} files, ` +
      `in the run; it is ${current.sha256.slice(0, 12)}..., ${current.files} files, in this checkout): the grade is refused. ` +
      `Rerun with --grade on an unmodified copy of the course`
    );
  }
  return null;
}

/** SHA-256 of each file (null where it is missing or unreadable), by path: read only, never loaded. */
export function fingerprintFiles(files: readonly string[]): Map<string, string | null> {
  const hashes = new Map<string, string | null>();
  for (const file of files) {
    try {
      hashes.set(file, createHash('sha256').update(readFileSync(file)).digest('hex'));
    } catch {
      hashes.set(file, null);
    }
  }
  return hashes;
}

/** The files whose fingerprint differs between `before` and `after` (fingerprintFiles of the same list). */
export function changedFiles(before: ReadonlyMap<string, string | null>, after: ReadonlyMap<string, string | null>): string[] {
  return [...before.keys()].filter((file) => before.get(file) !== after.get(file));
}
