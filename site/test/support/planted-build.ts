/**
 * Builds a planted course (its own episodes folder, outDir and cacheDir) with scripts/build-checked.ts, one build at a
 * time across the test run.
 *
 * Why one at a time: Astro writes `.astro/` in the site folder whatever the outDir and cacheDir (content-modules.mjs
 * names the module that renders each entry) and reads it back while it bundles. `npm test` runs two test files at
 * once (labs/harness/test/support/suite.ts), and two of them build a planted course: two builds at once would read
 * each other's list. The lock is a folder made with mkdir, which is atomic, in the run's temp folder (shared by every
 * test file of the run), holding the holder's pid so a lock left by a killed test is taken over.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SITE = fileURLToPath(new URL('../../', import.meta.url));
const WAIT_MS = 600_000;

function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    return true; // being written: the holder is there
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `fn` holding the site-build lock; waits up to `waitMs` for another holder. */
export function withSiteBuildLock<T>(fn: () => T, waitMs = WAIT_MS): T {
  const lock = path.join(os.tmpdir(), 'course-site-build.lock');
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() - started > waitMs) throw new Error(`waited ${waitMs / 1000} s for another site build (${lock}); if no test is building, remove that folder`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** `node scripts/build-checked.ts` in the site folder with `env` added to this process's, under the lock. */
export function buildPlantedCourse(env: Record<string, string>): SpawnSyncReturns<string> {
  return withSiteBuildLock(() =>
    spawnSync(process.execPath, ['scripts/build-checked.ts'], { cwd: SITE, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000 }),
  );
}
