/** The site-build lock of the planted-course builds (support/planted-build.ts): taken over from a dead holder, waited for while its holder lives. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { withSiteBuildLock } from './support/planted-build.ts';

/** A temp folder of this test's own as os.tmpdir(), where the lock lives; restored when the test ends. */
function ownTmp(t: TestContext): string {
  const saved = process.env['TMPDIR'];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'site-build-lock-'));
  process.env['TMPDIR'] = dir;
  t.after(() => {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

test('a lock left by a process that has ended is taken over; the lock is gone after the build', (t) => {
  const dir = ownTmp(t);
  const lock = path.join(dir, 'course-site-build.lock');
  const ended = spawnSync(process.execPath, ['-e', '0']);
  mkdirSync(lock);
  writeFileSync(path.join(lock, 'pid'), String(ended.pid));
  assert.equal(withSiteBuildLock(() => (existsSync(lock) ? 'built under the lock' : 'no lock')), 'built under the lock');
  assert.equal(existsSync(lock), false);
});

test('a lock whose holder lives is waited for, then the wait ends with the folder to remove', (t) => {
  const dir = ownTmp(t);
  const lock = path.join(dir, 'course-site-build.lock');
  mkdirSync(lock);
  writeFileSync(path.join(lock, 'pid'), String(process.pid));
  let ran = false;
  assert.throws(() => withSiteBuildLock(() => (ran = true), 300), /waited 0\.3 s for another site build \(.*course-site-build\.lock\); if no test is building, remove that folder/);
  assert.equal(ran, false);
  assert.equal(existsSync(lock), true, 'another holder\'s lock is left alone');
});
