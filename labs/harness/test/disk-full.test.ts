/**
 * A full disk (issue 25: results.json was written, notes.md hit ENOSPC, exit 3 with a stack trace and .tmp-* files
 * left). Simulated with a file-size limit (`ulimit -f`, SIGXFSZ ignored, so a write fails with EFBIG as a full disk
 * fails with ENOSPC): a failed atomic write leaves no temporary file, and a file beside kept results only warns.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const WRITER = new URL('../src/write/results-writer.ts', import.meta.url).pathname;

function underSizeLimit(dir: string, script: string) {
  const file = path.join(dir, 'child.ts');
  writeFileSync(file, script);
  // 8 blocks of 1 KiB: enough for small files, not for 64 KiB.
  return spawnSync('/bin/sh', ['-c', `trap '' XFSZ; ulimit -f 8; exec "$0" "$1"`, process.execPath, file], { encoding: 'utf8', timeout: 30_000 });
}

test('a write that runs out of space leaves no .tmp-* file, and a note beside kept results only warns', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'harness-diskfull-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = path.join(dir, 'run');
  const child = underSizeLimit(dir, `
    import { mkdirSync } from 'node:fs';
    import { writeFileAtomic, writeBesideResults } from ${JSON.stringify(WRITER)};
    mkdirSync(${JSON.stringify(run)});
    writeFileAtomic(${JSON.stringify(path.join(run, 'results.json'))}, '{}');
    let code = 'none';
    try { writeFileAtomic(${JSON.stringify(path.join(run, 'big.json'))}, 'x'.repeat(64 * 1024)); } catch (e) { code = e.code; }
    const kept = writeBesideResults('notes.md', ${JSON.stringify(run)}, () => writeFileAtomic(${JSON.stringify(path.join(run, 'notes.md'))}, 'y'.repeat(64 * 1024)));
    console.log(JSON.stringify({ code, kept }));
  `);
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout.trim().split('\n').pop()!);
  assert.deepEqual(out, { code: 'EFBIG', kept: false });
  assert.deepEqual(readdirSync(run), ['results.json'], 'the results are kept and nothing half-written is left');
  assert.match(child.stderr, /warning: notes\.md was not written \(EFBIG: no space left for it\); the results are kept in .*run\. Free some space/);
  assert.doesNotMatch(child.stderr, /\n\s+at /, 'no stack trace');
});
