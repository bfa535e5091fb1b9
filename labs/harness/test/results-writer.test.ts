/** Results are never overwritten: a new folder per run, atomic writes that refuse to replace a file. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createRunDir, runFolderName, writeFileAtomic, writeResults } from '../src/results-writer.ts';
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
