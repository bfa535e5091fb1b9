/** Results are never overwritten: a new folder per run, atomic writes that refuse to replace a file. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs, { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { mock, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { checkOutDir } from '../src/write/out-dir-check.ts';
import { createRunDir, runFolderName, writeFileAtomic, writeResults, writeRunFolder } from '../src/write/results-writer.ts';
import { parseResults, type Results } from '@parallel-course/core';
import { tempDir } from './support/temp-dir.ts';

test('run folders are named by time and never reused', (t) => {
  const out = tempDir(t, 'writer-');
  const date = new Date('2026-12-02T13:45:10.123Z');
  assert.equal(runFolderName(date), '2026-12-02T13-45-10-123Z');
  const a = createRunDir(out, 'event-loop', date);
  const b = createRunDir(out, 'event-loop', date);
  assert.equal(path.basename(a), '2026-12-02T13-45-10-123Z');
  assert.equal(path.basename(b), '2026-12-02T13-45-10-123Z-2');
});

/**
 * The longest path this system's file calls take, in bytes with the final NUL (PATH_MAX: 4,096 on Linux, 1,024 on
 * macOS), read from `getconf PATH_MAX` for the folder the test writes in.
 */
function pathMax(dir: string): number {
  const read = spawnSync('getconf', ['PATH_MAX', dir], { encoding: 'utf8' });
  const value = Number(read.stdout.trim());
  assert.ok(read.status === 0 && Number.isInteger(value) && value >= 256, `getconf PATH_MAX ${dir} gave ${JSON.stringify(read.stdout ?? '')} (${read.stderr ?? read.error})`);
  return value;
}

// A run folder's name past the path limit fails after <out>/<lab> was made for it: that empty folder (and <out> when it
// was new) went with the failure, leaving a folder of no run; an earlier <out>/<lab> stays.
test('a run folder that cannot be made leaves no folder of its own behind, and keeps the ones it found', (t) => {
  const out = tempDir(t, 'writer-');
  const lab = 'event-loop';
  const date = new Date('2026-12-02T13:45:10.123Z');
  // <out>/d.../d.../e.../event-loop is 16 bytes under the limit: made fine; the run folder in it (25 more) is too long.
  const longest = pathMax(out) - 16;
  let outRoot = path.join(out, 'new');
  while (path.join(outRoot, lab).length + 201 < longest) outRoot = path.join(outRoot, 'd'.repeat(200));
  outRoot = path.join(outRoot, 'e'.repeat(longest - path.join(outRoot, lab).length - 1));
  assert.equal(path.join(outRoot, lab).length, longest);
  assert.throws(() => createRunDir(outRoot, lab, date), { code: 'ENAMETOOLONG' });
  assert.deepEqual(readdirSync(out), []);
  // An <out>/<lab> that was there before (earlier runs' folder) is never removed.
  mkdirSync(path.join(outRoot, lab), { recursive: true });
  assert.throws(() => createRunDir(outRoot, lab, date), { code: 'ENAMETOOLONG' });
  assert.deepEqual(readdirSync(path.join(outRoot, lab)), []);
});

// Two runs share --out: run A made <out>/<lab>, failed, and removed it while empty; run B had found it there (so did not
// make it) and its run folder's mkdir came just after A's removal: ENOENT, and B's results went to a temporary folder.
test("a run folder is made when another run sharing --out removed the empty lab folder just before this run's mkdir", (t) => {
  const out = tempDir(t, 'writer-');
  const labDir = path.join(out, 'event-loop');
  mkdirSync(labDir); // run A's, found by this run
  const original = fs.mkdirSync;
  let removed = false;
  // The removal lands between this run's look at <out>/<lab> and its mkdir of the run folder (node:fs's named exports
  // follow the module object once synced, so createRunDir's mkdirSync is this one).
  const mkdir = mock.method(fs, 'mkdirSync', ((dir: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
    if (!removed && path.dirname(String(dir)) === labDir) {
      removed = true;
      rmdirSync(labDir); // run A's clean-up
    }
    return original(dir, options);
  }) as typeof fs.mkdirSync);
  syncBuiltinESMExports();
  t.after(() => {
    mkdir.mock.restore();
    syncBuiltinESMExports();
  });
  const dir = createRunDir(out, 'event-loop', new Date('2026-12-02T13:45:10.123Z'));
  assert.ok(removed, 'the other run removed <out>/<lab> first');
  assert.equal(dir, path.join(labDir, '2026-12-02T13-45-10-123Z'));
  assert.ok(statSync(dir).isDirectory());
});

test('writeFileAtomic refuses to replace an existing file', (t) => {
  const dir = tempDir(t, 'writer-');
  const file = path.join(dir, 'results.json');
  writeFileSync(file, 'learner data');
  assert.throws(() => writeFileAtomic(file, 'new data'), /EEXIST/);
  writeFileAtomic(path.join(dir, 'other.json'), 'ok');
  assert.equal(readFileSync(path.join(dir, 'other.json'), 'utf8'), 'ok');
  assert.equal(readFileSync(file, 'utf8'), 'learner data');
});

test('writeResults validates before it writes', (t) => {
  const dir = tempDir(t, 'writer-');
  assert.throws(() => writeResults(dir, { lab: 'x' } as never), /the results of this run is not a valid results file/);
});

// A job array's tasks start together and share one --out (class-array.sbatch: $CLASS_OUT/<learner>): each checks the
// folder (out-dir-check.ts), then makes the folders above its own run folder (createRunDir). CI caught one task refused
// with "cannot write results ...: EEXIST" (exit 2) when another made the shared folder between its check and its mkdir.
// Four processes, each checking and making 150 fresh nested folders at once: before the fix about one in ten failed.
test('runs started together under one new --out folder each get their run folder (no EEXIST race)', { timeout: 60_000 }, async (t) => {
  const out = tempDir(t, 'writer-race-');
  const module = (name: string) => pathToFileURL(path.join(import.meta.dirname, '..', 'src', 'write', name)).href;
  const script = `
    import { createRunDir } from ${JSON.stringify(module('results-writer.ts'))};
    import { checkOutDir } from ${JSON.stringify(module('out-dir-check.ts'))};
    const [root, lab, startAt] = process.argv.slice(1);
    while (Date.now() < Number(startAt)) {}
    const failed = [];
    for (let i = 0; i < 150; i++) {
      const outRoot = root + '/r' + i + '/class/runs';
      try { checkOutDir(outRoot, lab); createRunDir(outRoot, lab, new Date()); } catch (e) { failed.push(e.message); }
    }
    console.log(JSON.stringify(failed));`;
  const startAt = Date.now() + 800;
  const runs = [1, 2, 3, 4].map((k) => new Promise<string[]>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, out, `lab${k}`, String(startAt)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout) as string[]) : reject(new Error(`writer child exited with ${code}`))));
  }));
  const failures = (await Promise.all(runs)).flat();
  assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of 600 run folders refused`);
  assert.equal(readdirSync(path.join(out, 'r0', 'class', 'runs')).length, 4, 'each process its own lab folder');
  assert.deepEqual(readdirSync(path.join(out, 'r0', 'class', 'runs', 'lab1')).length, 1, 'one run folder, and no probe left beside it');
});

// The check of --out makes nothing that stays: the run folder is made only by the write stage, so no half-made folder
// can exist while a run measures (nor need removing when it is interrupted).
test('checking --out leaves nothing behind, and names the folder, the code and the fix when it cannot be written', (t) => {
  const out = tempDir(t, 'writer-check-');
  checkOutDir(path.join(out, 'new', 'results'), 'event-loop');
  assert.deepEqual(readdirSync(out), [], 'no folder made for a new --out');
  mkdirSync(path.join(out, 'results', 'event-loop'), { recursive: true });
  checkOutDir(path.join(out, 'results'), 'event-loop');
  assert.deepEqual(readdirSync(path.join(out, 'results', 'event-loop')), [], 'no probe left in the lab folder');
  const file = path.join(out, 'a-file');
  writeFileSync(file, 'not a folder');
  assert.throws(() => checkOutDir(file, 'event-loop'), {
    message: `cannot write results under '${path.join(file, 'event-loop')}': ENOTDIR. Nothing was measured. Choose a folder you can write to with --out DIR.`,
  });
});

const RESULTS = (): Results => parseResults(JSON.parse(readFileSync(new URL('./fixtures/results-event-loop.json', import.meta.url), 'utf8')), 'the fixture');
const REPORT = [{ relativePath: 'report.md', contents: 'the report' }, { relativePath: 'charts/a.png', contents: new Uint8Array([1, 2, 3]) }];

// The write stage makes the run folder and writes everything at once; where the file system fails it (a full disk,
// --out made unwritable while the run measured), the whole run goes to a new temporary folder, which the caller names,
// and no half-written run folder is left beside the learner's earlier runs.
test('a run folder the file system fails: the results and reports go to a temporary folder, and the half-written one goes', (t) => {
  const out = tempDir(t, 'writer-fallback-');
  const startedAt = new Date('2026-12-06T17:00:00.000Z');
  const runDir = path.join(out, 'event-loop', runFolderName(startedAt));
  const made: string[] = [];
  // The run folder fails its first write: something is already at results.json (EEXIST, as a full disk gives ENOSPC).
  const full = writeRunFolder({ outRoot: out, lab: 'event-loop', startedAt }, RESULTS(), REPORT, (dir) => {
    if (made.push(dir) === 1) writeFileSync(path.join(dir, 'results.json'), 'in the way');
  });
  t.after(() => rmSync(full.dir, { recursive: true, force: true }));
  assert.deepEqual([full.fellBack, full.problem, path.dirname(full.dir)], [true, 'EEXIST', os.tmpdir()]);
  assert.deepEqual(readdirSync(full.dir, { recursive: true }).map(String).sort(), ['charts', 'charts/a.png', 'report.md', 'results.json']);
  assert.equal(JSON.parse(readFileSync(path.join(full.dir, 'results.json'), 'utf8')).lab, 'event-loop');
  assert.deepEqual(made, [runDir, full.dir], 'each folder told as soon as it was made');
  assert.deepEqual(readdirSync(path.join(out, 'event-loop')), [], 'the half-written run folder was removed');

  // A folder that cannot be made at all: --out is a file now.
  const file = path.join(out, 'a-file');
  writeFileSync(file, 'not a folder');
  const notDir = writeRunFolder({ outRoot: file, lab: 'event-loop', startedAt }, RESULTS(), REPORT, () => {});
  t.after(() => rmSync(notDir.dir, { recursive: true, force: true }));
  assert.deepEqual([notDir.fellBack, notDir.problem, existsSync(path.join(notDir.dir, 'charts', 'a.png'))], [true, 'ENOTDIR', true]);

  // Both fail (a report in the way in the run folder, then results.json in the way in the temporary one): the run
  // folder is kept with its whole results.json, the half-made temporary folder goes, and the first failure is thrown.
  const both: string[] = [];
  const bothAt = new Date('2026-12-06T17:01:00.000Z');
  assert.throws(
    () => writeRunFolder({ outRoot: out, lab: 'event-loop', startedAt: bothAt }, RESULTS(), REPORT, (dir) => {
      mkdirSync(path.join(dir, both.push(dir) === 1 ? 'report.md' : 'results.json'));
    }),
    (error: NodeJS.ErrnoException) => error.code === 'EISDIR' || error.code === 'EEXIST' || error.code === 'EPERM',
  );
  t.after(() => both.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  assert.equal(both.length, 2, 'the fallback was tried');
  assert.equal(JSON.parse(readFileSync(path.join(both[0]!, 'results.json'), 'utf8')).lab, 'event-loop', "the run folder kept its results.json");
  assert.equal(existsSync(both[1]!), false, 'the half-made temporary folder was removed');

  // Invalid results are a bug, not the file system: an error, with no folder left anywhere.
  const temps = readdirSync(os.tmpdir()).filter((f) => f.startsWith('x-run-')).length;
  assert.throws(() => writeRunFolder({ outRoot: out, lab: 'x', startedAt }, { lab: 'x' } as never, REPORT, () => {}), /not a valid results file/);
  assert.deepEqual(readdirSync(path.join(out, 'x')), []);
  assert.equal(readdirSync(os.tmpdir()).filter((f) => f.startsWith('x-run-')).length, temps, 'no temporary folder made for it');
});
