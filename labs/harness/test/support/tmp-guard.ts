/**
 * Fails a test run that leaves anything in the OS temp folder. Used as
 * the global set-up of the suite runner (suite.ts: root and site `npm test`), or
 * `node --test --test-global-setup=labs/harness/test/support/tmp-guard.ts ...` by hand.
 *
 * globalSetup runs in the test runner's own process before the first test file starts: it makes a fresh folder
 * (`course-test-tmp-XXXXXX` in the OS temp folder) and points TMPDIR at it. The runner starts every test file with
 * that environment, so os.tmpdir(), mkdtemp, compilers, Chromium and every child process they start put their temp
 * files there. globalTeardown runs after the last test: whatever is still in the folder was left by a test (or by
 * code a test ran) that did not remove what it created. It names each entry on stderr and sets exit code 1, then
 * removes the folder, so even a failing run leaves nothing behind.
 *
 * Why a folder of our own rather than a before/after listing of /tmp: other processes on the machine (other test
 * runs, editors, compilers) create and remove entries in /tmp meanwhile, which would fail the run, or hide a leak,
 * at random. The cost: a test that writes to a hard-coded /tmp path escapes the guard; use os.tmpdir().
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The prefix of the guard's folder in the OS temp folder. */
export const GUARD_PREFIX = 'course-test-tmp-';

/**
 * Caches that code the tests run keeps in the temp folder on purpose, to reuse in the next run: not a test's leak.
 * In a test run they are inside the guard's folder and are removed with it.
 */
export const KNOWN_CACHES: ReadonlyMap<string, string> = new Map([
  ['parallel-course-gpu-batching', 'the gpu-batching data set cache (labs/gpu-batching/src/dataset.ts, defaultCacheRoot)'],
  ['node-compile-cache', "Node's module compile cache, which npm turns on (npm/lib/cli.js: module.enableCompileCache())"],
]);

let guardDir: string | null = null;
let savedTmpdir: string | undefined;

export async function globalSetup(): Promise<void> {
  savedTmpdir = process.env.TMPDIR;
  guardDir = mkdtempSync(path.join(os.tmpdir(), GUARD_PREFIX));
  process.env.TMPDIR = guardDir;
  // onnxruntime-node (gpu-batching) sends usage telemetry by default and writes mat-debug-<pid>.log and .ses into the
  // temp folder for it, in every process that opens a session (the variable is read by libonnxruntime's
  // posix/telemetry.cc). The tests send nothing and leave no logs; a lab run does both until the lab turns it off.
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
}

export async function globalTeardown(): Promise<void> {
  if (guardDir === null) return;
  const dir = guardDir;
  guardDir = null;
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;

  const leaked = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !KNOWN_CACHES.has(entry.name))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
  if (leaked.length > 0) {
    process.stderr.write(
      `tmp-guard: the tests left ${leaked.length} ${leaked.length === 1 ? 'entry' : 'entries'} in the temp folder (${dir}):\n` +
        leaked.map((name) => `  ${name}\n`).join('') +
        'tmp-guard: remove what a test creates when it ends: t.after(() => rmSync(dir, { recursive: true, force: true })), ' +
        'or tempDir(t, prefix) from labs/harness/test/support/temp-dir.ts\n',
    );
    process.exitCode = 1;
  }
  removeFolder(dir);
}

/** Removes the guard's folder, even with an immutable (`chattr +i`) folder left in it. */
function removeFolder(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    spawnSync('chattr', ['-R', '-i', dir], { stdio: 'ignore' });
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`tmp-guard: could not remove ${dir}: ${(error as Error).message}; remove it by hand\n`);
      process.exitCode = 1;
    }
  }
}
