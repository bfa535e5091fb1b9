/**
 * One way to start a child process: child-process.ts (startChild for a lab's processes with IPC, runScriptSync for a
 * bounded synchronous Node script). Every other module of labs/<lab>/src and site/src (an .astro component's
 * frontmatter too) that imports node:child_process for more than its types is listed here with why; a new spawn site fails this test until it uses the helper or is listed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runScriptSync } from '../src/child-process.ts';
import { ROOT_DIR } from '../src/lab-registry.ts';

/** Files (from the repository root) that start processes themselves, and why the helper does not serve them. */
const OTHER_SPAWN_SITES: Record<string, string> = {
  'labs/harness/src/child-process.ts': 'the helper itself',
  'labs/harness/src/machine/probe.ts': 'external commands (nvidia-smi, lscpu, git): bounded, output capped and sanitised for a terminal',
  'labs/harness/src/cli/watch.ts': "--watch's interactive run: a child that shares the terminal (stdio inherit) and is restarted on each save",
  'labs/harness/src/supervise/runner-process.ts': "the supervisor's attempt: the judged runner in its own process group, inside the OS sandbox (the referee's side)",
  'labs/harness/src/supervise/os-sandbox.ts': 'whether bubblewrap can start here: one bounded call of bwrap itself',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs|js|astro)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

test('every module that starts a child process is child-process.ts or listed with why', () => {
  const labsDir = path.join(ROOT_DIR, 'labs');
  const found: string[] = [];
  const sources = [
    ...readdirSync(labsDir, { withFileTypes: true }).filter((lab) => lab.isDirectory() && lab.name !== 'node_modules').map((lab) => path.join(labsDir, lab.name, 'src')),
    // The site's build-time code too (its components' frontmatter runs in the Node that builds the site).
    path.join(ROOT_DIR, 'site', 'src'),
  ];
  assert.ok(sources.length > 5, 'the labs were listed');
  for (const src of sources) {
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

test('runScriptSync: the Node binary, the working directory and the environment a caller gives', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'run-script-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'where.mjs');
  writeFileSync(script, 'process.stdout.write(JSON.stringify({ cwd: process.cwd(), given: process.env.GIVEN ?? null, home: process.env.HOME ?? null, node: process.execPath }));\n');
  // A "Node" that is a shell script running this one, so the test sees that the binary given is the one started.
  const node = path.join(dir, 'node-wrapper.sh');
  writeFileSync(node, `#!/bin/sh\nexport WRAPPED=yes\nexec ${JSON.stringify(process.execPath)} "$@"\n`, { mode: 0o755 });
  writeFileSync(path.join(dir, 'wrapped.mjs'), 'process.stdout.write(process.env.WRAPPED ?? "no");\n');
  const given = runScriptSync({ script, timeoutMs: 20_000, cwd: os.tmpdir(), env: { GIVEN: 'yes', PATH: process.env.PATH } });
  assert.equal(given.exitCode, 0, given.stderrTail);
  assert.deepEqual(JSON.parse(given.stdout), { cwd: realpathSync(os.tmpdir()), given: 'yes', home: null, node: process.execPath });
  const wrapped = runScriptSync({ script: path.join(dir, 'wrapped.mjs'), timeoutMs: 20_000, node });
  assert.equal(wrapped.stdout, 'yes');
  // Without them: this process's Node, directory and environment.
  const plain = JSON.parse(runScriptSync({ script, timeoutMs: 20_000 }).stdout) as { cwd: string; home: string | null };
  assert.deepEqual(plain, { cwd: process.cwd(), given: null, home: process.env.HOME ?? null, node: process.execPath });
});
