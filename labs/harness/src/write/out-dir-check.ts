/**
 * The open stage's check of `--out`: can this run's results be written under `<out>/<lab>`? A probe that leaves
 * nothing behind, so a run that could not keep its results fails in a second (exit 2), not after minutes of measuring,
 * and no folder of this run exists while it measures (the write stage makes it, write/results-writer.ts).
 * In: the results folder and the lab's name. Out: nothing, or a UsageError naming the folder, the code and the fix.
 */
import { lstatSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.ts';

/**
 * Throws unless a file can be made where this run's folder will go. The probe is a folder of its own with one file in
 * it, made in the deepest part of `<out>/<lab>` that exists (the write stage makes the rest, so that part decides) and
 * removed at once. `--out /dev/null`, `--out` a plain file (ENOTDIR), a read-only `<out>/<lab>` (EACCES; EPERM for an
 * immutable one) and a path under /proc all fail here. Makes nothing that stays: concurrent Slurm array tasks sharing
 * one `--out` never race on it.
 */
export function checkOutDir(outRoot: string, lab: string): void {
  const labDir = path.join(outRoot, lab);
  try {
    const probe = mkdtempSync(path.join(deepestExisting(path.resolve(labDir)), '.write-test-'));
    try {
      writeFileSync(path.join(probe, 'ok'), 'ok', { flag: 'wx' });
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot write results under '${labDir}': ${code}. Nothing was measured. Choose a folder you can write to with --out DIR.`);
  }
}

/** `dir` itself or its nearest ancestor that exists (as a name: a file or a dangling link counts, and fails the probe). */
function deepestExisting(dir: string): string {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      lstatSync(at);
      return at;
    } catch (error) {
      // ENOTDIR: a part above is a file (`/dev/null/<lab>`); the probe in that file then fails with ENOTDIR.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(at) === at) throw error;
    }
  }
}
