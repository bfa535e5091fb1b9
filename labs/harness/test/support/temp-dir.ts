/**
 * A fresh folder in the OS temp folder for one test, removed (with everything in it) when that test ends, passed or
 * failed. The test-global guard (tmp-guard.ts) fails `npm test` on anything a test leaves in the temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, type TestContext } from 'node:test';

export function tempDir(t: Pick<TestContext, 'after'>, prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Folders that outlive one test (a run made once and read by every test of a file): `make` makes a fresh one, `keep`
 * takes one made elsewhere; all are removed when the file's tests end. Call it at the top level of a test file (it
 * registers that file's `after`).
 */
export function fileTempDirs(): { make(prefix: string): string; keep(...dirs: string[]): void } {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    make(prefix) {
      const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    keep(...more) {
      dirs.push(...more);
    },
  };
}
