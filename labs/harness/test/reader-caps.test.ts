/**
 * Readers bound their work (issue 25): every number a results file controls has a cap, so validate (and class, the
 * viewer and the site build, which read through the same check) finish in bounded time; a link is not followed; an
 * error never quotes the file; control characters never reach a report; CSV defuses TAB and CR too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { validateFile, validateSubmission } from '../src/tools/validate.ts';
import { csvField, escapeHtml, escapeMarkdown } from '@parallel-course/core';

const REFERENCE = fileURLToPath(new URL('../../../reference/task-granularity/', import.meta.url));
const committed = () => {
  const run = readdirSync(REFERENCE).filter((n) => !n.includes('.')).sort()[0]!;
  return JSON.parse(readFileSync(path.join(REFERENCE, run, 'results.json'), 'utf8'));
};

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'harness-caps-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a file asking for 10^9 resamples is refused by the schema at once, not recomputed for hours', { timeout: 20_000 }, () => {
  const results = committed();
  results.bootstrapResamples = 1_000_000_000;
  const started = performance.now();
  const checked = validateSubmission(results);
  assert.ok(performance.now() - started < 5_000, 'bounded');
  assert.equal(checked.valid, false);
  assert.match(checked.problems.join('\n'), /bootstrapResamples/);
});

test('many samples times many resamples is refused too, each under its own cap', { timeout: 20_000 }, () => {
  const results = committed();
  results.bootstrapResamples = 100_000;
  results.cases[0].samplesMs = Array.from({ length: 5_000 }, () => 1);
  results.cases[0].sampleRounds = Array.from({ length: 5_000 }, () => 0);
  const checked = validateSubmission(results);
  assert.equal(checked.valid, false);
  assert.match(checked.problems.join('\n'), /bootstrapResamples x samples is over/);
});

test('environment strings have a length cap (a 50 MB CPU name made a 105 MB class page)', () => {
  const results = committed();
  results.environment.cpuModel = 'x'.repeat(1_000_000);
  const checked = validateSubmission(results);
  assert.equal(checked.valid, false);
  assert.match(checked.problems.join('\n'), /environment\.cpuModel/);
});

test('a results.json that is a link to a readable file is not followed, and no error quotes a file', (t) => {
  const dir = tempDir(t);
  const secret = path.join(dir, 'passwd');
  writeFileSync(secret, 'root:x:0:0:root:/root:/bin/bash\n');
  const link = path.join(dir, 'results.json');
  symlinkSync(secret, link);
  const linked = validateFile(link);
  assert.equal(linked.valid, false);
  assert.match(linked.problems[0] ?? '', /is a symbolic link; links are not followed, so it was not read/);
  assert.doesNotMatch(linked.problems.join('\n'), /root:x/);

  const plain = path.join(dir, 'plain.json');
  writeFileSync(plain, 'root:x:0:0:root:/root:/bin/bash\n');
  const parsed = validateFile(plain);
  assert.equal(parsed.valid, false);
  assert.doesNotMatch(parsed.problems.join('\n'), /root|bash/);
  assert.match(parsed.problems[0] ?? '', /^schema: not JSON: a syntax error/);
});

test('ESC and BEL never reach report.md, report.html or class.html', () => {
  const hostile = 'Xeon\u001b]0;owned\u0007\u001b[2J';
  assert.equal(escapeHtml(hostile), 'Xeon]0;owned[2J');
  assert.equal(escapeMarkdown(hostile), 'Xeon\\]0;owned\\[2J');
});

test('gradebook.csv defuses a leading TAB and CR as well as = + - @', () => {
  assert.equal(csvField('\t=1+1'), "'\t=1+1");
  assert.equal(csvField('\r=1+1'), `"'\r=1+1"`);
  assert.equal(csvField('=1+1'), "'=1+1");
  assert.equal(csvField('alice'), 'alice');
});
