/**
 * The native-kernel lab's part of `npm run doctor` (src/doctor-probe.ts): a rung counts only when its module loads
 * and multiplies right, not because the build record says it was built. Stand-in build folders in a temp directory.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readBuildRecord, rungStatus } from '../src/addon.ts';
import { nativeFindings } from '../src/doctor-probe.ts';

function tempPackage(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'native-doctor-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
  return dir;
}

const allTargets = (file: (target: string) => string) =>
  Object.fromEntries(['solution', 'exercise'].flatMap((impl) => ['O0', 'O3', 'march', 'blocked'].map((rung) => [`${impl}_${rung}`, { available: true, file: file(`${impl}_${rung}`) }])));

test('no build record: both checks warn, with the build command', (t) => {
  const [addon, blas] = nativeFindings(null, tempPackage(t));
  assert.equal(addon?.level, 'warn');
  assert.match(addon?.advice ?? '', /has not been built .* Fix: run `npm run build -w labs\/native-kernel`/);
  assert.equal(blas?.level, 'warn');
});

test('a record that says "built" for a module that is missing or does not load is a warning, not an ok', (t) => {
  const dir = tempPackage(t);
  // Not a shared object: what a module built for another machine or copied half-way looks like to the loader.
  writeFileSync(path.join(dir, 'build', 'Release', 'solution_O0.node'), 'not a shared object');
  const record = { targets: { ...allTargets((target) => `build/Release/${target}.node`), blas: { available: true, file: 'build/Release/blas.node' } } };
  const [addon, blas] = nativeFindings(record, dir);
  assert.equal(addon?.level, 'warn');
  assert.equal(addon?.value, '8 of 8 modules unusable');
  assert.match(addon?.advice ?? '', /solution O0: build\/Release\/solution_O0\.node does not load \(/);
  assert.match(addon?.advice ?? '', /solution O3: build\/Release\/solution_O3\.node is missing/);
  assert.equal(blas?.level, 'warn');
  assert.match(blas?.advice ?? '', /blas\.node is missing/);
});

test("this checkout's build: every rung the record calls available loads, and the solution's multiply right", (t) => {
  const record = readBuildRecord();
  const built = record !== null && rungStatus('solution', 'O3', record).available;
  if (!built) {
    t.skip('the native addon is not built here (no C++ toolchain at install): the cases above cover the warnings');
    return;
  }
  const [addon] = nativeFindings(record);
  assert.equal(addon?.level, 'ok', addon?.advice);
  assert.match(addon?.value ?? '', /^built and loaded: solution O0, solution O3, solution march, solution blocked, exercise O0, exercise O3, exercise march, exercise blocked$/);
});
