/**
 * A fresh folder in the OS temp folder for one test, removed (with everything in it) when that test ends, passed or
 * failed. The test-global guard (tmp-guard.ts) fails `npm test` on anything a test leaves in the temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

export function tempDir(t: Pick<TestContext, 'after'>, prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
