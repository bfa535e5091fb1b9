/**
 * One way to start a child process: child-process.ts (startChild for a lab's processes with IPC, runScriptSync for a
 * bounded synchronous Node script). Every other module of labs/<lab>/src that imports node:child_process for more
 * than its types is listed here with why; a new spawn site fails this test until it uses the helper or is listed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runScriptSync } from '../src/child-process.ts';
import { ROOT_DIR } from '../src/lab-registry.ts';

/** Files (from the repository root) that start processes themselves, and why the helper does not serve them. */
const OTHER_SPAWN_SITES: Record<string, string> = {
  'labs/harness/src/child-process.ts': 'the helper itself',
  'labs/harness/src/probe.ts': 'external commands (nvidia-smi, lscpu, git): bounded, output capped and sanitised for a terminal',
  'labs/harness/src/watch.ts': "--watch's interactive run: a child that shares the terminal (stdio inherit) and is restarted on each save",
  'labs/harness/src/run-attempt.ts': "the supervisor's attempt: the judged runner in its own process group, inside the OS sandbox (the referee's side)",
  'labs/harness/src/os-sandbox.ts': 'whether bubblewrap can start here: one bounded call of bwrap itself',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs|js)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

test('every module that starts a child process is child-process.ts or listed with why', () => {
  const labsDir = path.join(ROOT_DIR, 'labs');
  const found: string[] = [];
  for (const lab of readdirSync(labsDir, { withFileTypes: true })) {
    if (!lab.isDirectory() || lab.name === 'node_modules') continue;
    const src = path.join(labsDir, lab.name, 'src');
    let files: string[];
    try {
      files = sourceFiles(src);
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // A value import (not `import type`) or a require of child_process: the module can start processes.
      const starts = /^import\s+(?!type\b)[^;]*from\s+['"](node:)?child_process['"]/m.test(text) || /require\(\s*['"](node:)?child_process['"]\s*\)/.test(text);
      if (starts) found.push(path.relative(ROOT_DIR, file).split(path.sep).join('/'));
    }
  }
  const unlisted = found.filter((file) => !(file in OTHER_SPAWN_SITES));
  assert.deepEqual(unlisted, [], `start these through labs/harness/src/child-process.ts (startChild, runScriptSync), or list them here with why: ${unlisted.join(', ')}`);
  // A listed file that no longer starts a process leaves the list, so the list only shrinks.
  const stale = Object.keys(OTHER_SPAWN_SITES).filter((file) => !found.includes(file));
  assert.deepEqual(stale, [], `no longer start processes: take them off OTHER_SPAWN_SITES: ${stale.join(', ')}`);
});

test('runScriptSync: stdout, the exit code, the stderr tail, and a script killed at its time limit', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'run-script-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'script.mjs');
  writeFileSync(
    script,
    "const [mode] = process.argv.slice(2);\n" +
      "if (mode === 'ok') process.stdout.write(JSON.stringify({ flags: process.execArgv }));\n" +
      "else if (mode === 'fail') { process.stderr.write('first\\nit broke\\n'); process.exit(3); }\n" +
      'else setInterval(() => {}, 1000);\n',
  );
  const ok = runScriptSync({ script, args: ['ok'], timeoutMs: 20_000 });
  assert.deepEqual({ ...ok, stdout: JSON.parse(ok.stdout) }, { stdout: { flags: [] }, stderrTail: '', exitCode: 0, signal: null, timedOut: false });
  const failed = runScriptSync({ script, args: ['fail'], timeoutMs: 20_000 });
  assert.equal(failed.exitCode, 3);
  assert.equal(failed.timedOut, false);
  assert.equal(failed.stderrTail, 'first\nit broke\n');
  const hung = runScriptSync({ script, args: ['hang'], timeoutMs: 300 });
  assert.equal(hung.timedOut, true);
  assert.equal(hung.exitCode, null);
  assert.equal(hung.signal, 'SIGTERM');
});
