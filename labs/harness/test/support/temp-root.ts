/**
 * A throw-away copy of a fixture repository root in the OS temp folder, so tests can edit a lab's exercise files
 * without touching the repository. node_modules is a symlink to the repository's, so the copied lab resolves
 * `@parallel-course/harness` (Node follows the link to the real files; the harness modules stay the same instances).
 */
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Copies `fixture` into a new temp folder. With `t`, the folder is removed when that test ends; with null, the caller
 * removes it (a suite-level `after`), or the test-global guard (tmp-guard.ts) fails the run naming it.
 */
export function tempRoot(fixture: 'root' | 'workflow-root' | 'faults-root', prefix: string, t: Pick<TestContext, 'after'> | null): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  // Required, so no call can forget it: the test's context removes the copy when it ends; null means the caller does.
  t?.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(fileURLToPath(new URL(`../fixtures/${fixture}/`, import.meta.url)), dir, { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** A correct sumSquares that does `repeat` times the work: a clearly slower variant of the same answer. */
export function slowImpl(repeat: number): string {
  return `export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let r = 0; r < ${repeat}; r++) { s = 0; for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!; }
  return s;
}
`;
}

export const WRONG_IMPL = `export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let i = 1; i < xs.length; i++) s += xs[i]! * xs[i]!; // skips element 0
  return s;
}
`;

/** Enough warm-up for the JIT to settle on these small loops, and few samples: a run takes well under a second. */
export const TINY_SAMPLING = { warmupSamples: 5, rounds: 2, samplesPerRound: 5 };
