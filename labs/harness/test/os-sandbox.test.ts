/**
 * The operating system's walls (os-sandbox.ts, issue 42): learner code of a lab that may start child processes and
 * read /proc (as task-granularity's may) runs `/bin/sh`, which Node's permission model does not follow, reads other
 * processes' /proc and the whole disk through /proc/self/root, connects to the machine's network and leaves a
 * `setsid sleep` behind. Inside bubblewrap each attempt finds nothing; before it, every one succeeded (checked on the
 * code before this test: the learner's case failed with "escaped: ..." listing all of them, the sh wrote into
 * solutions/ and the sleep outlived the run). Memory, output and the no-sandbox grade are tested here too.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { supervise } from '../src/supervise/supervisor.ts';
import { runCases } from '../src/measure/run-cases.ts';
import { loadLab } from '../src/lab-registry.ts';
import { osSandboxNote, probeOsSandbox, sandboxLimits } from '../src/supervise/os-sandbox.ts';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };
const MARKER = `sleep ${41 + Math.random()}`;
const SECRET = `secret-${Math.random().toString(36).slice(2)}`;
// CI installs bubblewrap (.ci/run) and sets this, so these tests fail there rather than skip.
const required = process.env.COURSE_REQUIRE_BWRAP === '1';
const probe = probeOsSandbox();
const skip = !probe.available && !required ? `no OS sandbox here (${probe.available ? '' : probe.reason})` : false;

const SUM = `export function sumSquares(xs: Float64Array): number {
  if (escaped.length > 0) throw new Error('escaped: ' + escaped.join(', '));
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`;

function hostile(port: number, root: string): string {
  return `import * as fs from 'node:fs';
import * as cp from 'node:child_process';
import * as net from 'node:net';
const escaped: string[] = [];
const read = (file: string) => { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } };
// Other processes: the harness's command line and environment.
for (const pid of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
  if (read('/proc/' + pid + '/cmdline').includes('os-sandbox.test')) { escaped.push('/proc/' + pid + ' of the harness'); break; }
}
if (Object.values(process.env).some((v) => v === '${SECRET}')) escaped.push("the harness's environment");
// The whole disk through /proc/self/root.
if (read('/proc/self/root${root}/reference/secret.txt').includes('${SECRET}')) escaped.push('/proc/self/root');
// A program outside the permission model: a write into solutions/ and a process that outlives the run.
try { cp.execFileSync('/bin/sh', ['-c', 'echo pwned > ${root}/solutions/PWNED-by-sh.txt; setsid ${MARKER} > /dev/null 2>&1 < /dev/null & exit 0']); } catch {}
// The network.
await new Promise<void>((done) => {
  const socket = net.connect(${port}, '127.0.0.1');
  socket.on('connect', () => { escaped.push('the network'); socket.destroy(); done(); });
  socket.on('error', () => done());
});
${SUM}`;
}

/** PIDs of processes whose command line is MARKER. */
function markedProcesses(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() === MARKER) pids.push(Number(name));
    } catch {
      // gone already
    }
  }
  return pids;
}

/** Gives the faulty lab task-granularity's needs: child processes and /proc. */
function declareNeeds(root: string, sandbox: object): void {
  writeFileSync(path.join(root, 'labs', 'faulty', 'package.json'), JSON.stringify({ name: 'faulty', private: true, sandbox }));
}

test('inside bubblewrap, /bin/sh, /proc, the network and a setsid process reach nothing outside the run', { skip }, async (t) => {
  const root = tempRoot('faults-root', 'harness-os-sandbox-', t);
  declareNeeds(root, { childProcess: true, reads: ['/proc'] });
  mkdirSync(path.join(root, 'reference'));
  writeFileSync(path.join(root, 'reference', 'secret.txt'), SECRET);
  const server = net.createServer((socket) => socket.end()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => {
    server.close();
    for (const pid of markedProcesses()) process.kill(pid, 'SIGKILL'); // only the one this test's learner started
  });
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), hostile((server.address() as net.AddressInfo).port, root));
  process.env.HARNESS_TEST_SECRET = SECRET;
  t.after(() => delete process.env.HARNESS_TEST_SECRET);

  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  const learner = outcome.correctness.find((e) => e.variant === 'learner' && e.params.impl === undefined);
  assert.equal(learner?.reason ?? null, null, 'nothing escaped');
  assert.equal(learner?.passed, true);
  assert.ok(!existsSync(path.join(root, 'solutions', 'PWNED-by-sh.txt')), 'solutions/ unchanged');
  assert.deepEqual(markedProcesses(), [], 'no process left behind');
  assert.ok(outcome.results?.notes.some((n) => n.startsWith('Sandbox: bubblewrap')), 'the notes say the run was sandboxed');
});

/** A native initializer (the kernel.cc static initializer): writes, a swapped build output, a double fork. */
function nativeInitializer(root: string, marker: string): string {
  const [program, seconds] = marker.split(' ');
  return `#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
  FILE *f = fopen("${root}/solutions/PWNED-native.txt", "w");
  if (f) { fputs("pwned", f); fclose(f); }
  rename("${root}/labs/faulty/build/planted.node", "${root}/labs/faulty/build/solution.node");
  if (fork() == 0) { setsid(); if (fork() == 0) { execl("/bin/${program}", "${program}", "${seconds}", (char *)0); } _exit(0); }
}
`;
}

const cc = spawnSync('cc', ['--version']).status === 0;
test("a native addon's initializer writes nothing, swaps no build output and leaves no process behind", { skip: skip || (cc ? false : 'no C compiler here') }, async (t) => {
  const root = tempRoot('faults-root', 'harness-os-sandbox-', t);
  declareNeeds(root, { addons: true });
  t.after(() => {
    for (const pid of markedProcesses()) process.kill(pid, 'SIGKILL'); // only the one this test's initializer started
  });
  mkdirSync(path.join(root, 'labs', 'faulty', 'build'));
  writeFileSync(path.join(root, 'labs', 'faulty', 'build', 'solution.node'), 'the reference build');
  writeFileSync(path.join(root, 'labs', 'faulty', 'build', 'planted.node'), "the learner's build");
  const source = path.join(root, 'exercises', 'faulty', 'evil.c');
  writeFileSync(source, nativeInitializer(root, MARKER));
  const built = spawnSync('cc', ['-shared', '-fPIC', '-o', path.join(root, 'exercises', 'faulty', 'evil.node'), source], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  // The initializer runs when the library is opened, whether or not it registers as an addon.
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), `const escaped: string[] = [];
try { process.dlopen({ exports: {} }, new URL('./evil.node', import.meta.url).pathname); } catch {}
${SUM}`);
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  assert.ok(outcome.runDir, 'the run was written');
  assert.ok(!existsSync(path.join(root, 'solutions', 'PWNED-native.txt')), 'solutions/ unchanged');
  assert.equal(readFileSync(path.join(root, 'labs', 'faulty', 'build', 'solution.node'), 'utf8'), 'the reference build', 'the build output unchanged');
  await new Promise((resolve) => setTimeout(resolve, 300)); // a grandchild the kernel ends is gone within this
  assert.deepEqual(markedProcesses(), [], 'no process left behind');
});

test('a run that holds more memory than its limit fails the case that did, naming the file', { skip }, async (t) => {
  const root = tempRoot('faults-root', 'harness-os-sandbox-', t);
  writeFileSync(
    path.join(root, 'exercises', 'faulty', 'faulty.ts'),
    `const kept: Buffer[] = [];
export function sumSquares(xs: Float64Array): number {
  for (let i = 0; i < 8; i++) kept.push(Buffer.alloc(64 * 1024 * 1024, 1));
  const until = Date.now() + 3000;
  while (Date.now() < until) {}
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`,
  );
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, limits: { memoryBytes: 384 * 1024 * 1024 } });
  const learner = outcome.correctness.find((e) => e.variant === 'learner');
  assert.equal(learner?.passed, false);
  assert.match(learner?.reason ?? '', /held \d+\.\d GiB of memory, over the run's limit of 0\.4 GiB: the lab process was ended.*Look at exercises\/faulty\/faulty\.ts/);
});

test('output past the limit is cut with a note, and a process past its CPU seconds fails its case, naming the file', { skip }, async (t) => {
  const root = tempRoot('faults-root', 'harness-os-sandbox-', t);
  // 1 MB of output at import (the learner printed 100 MB, all passed through), then a spin past 3 CPU s.
  writeFileSync(
    path.join(root, 'exercises', 'faulty', 'faulty.ts'),
    `process.stdout.write('# planted output\\n'.repeat(60_000));
export function sumSquares(xs: Float64Array): number {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {}
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`,
  );
  const job = { lab: 'faulty', impl: 'exercise' as const, quick: true, seed: 1, rootDir: root, checkOnly: true, availableParallelism: 2 };
  // What the lab process's output forwarded to this stdout holds of its planted lines (node --test's own event
  // frames go through the same stream while the test runs: 1.2 KB of them were counted as passed through before).
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (written.push(Buffer.from(chunk).toString('latin1')), write(chunk, ...rest))) as typeof process.stdout.write;
  let run;
  try {
    run = await supervise({ job, cases: runCases(await loadLab('faulty', root), job, { notes: false }), forwardOutput: true, limits: { outputBytes: 300, cpuSeconds: 3 } });
  } finally {
    process.stdout.write = write;
  }
  const planted = written.join('').split('# planted output\n').length - 1;
  assert.ok(planted > 0 && planted * '# planted output\n'.length <= 300, `passed through: ${planted} planted lines`);
  assert.ok(run.notes.includes('Output truncated: the lab process wrote more than 300 bytes to stdout.'), run.notes.join('\n'));
  const learner = run.correctness.find((e) => e.variant === 'learner');
  assert.match(learner?.reason ?? '', /used more than 3 CPU seconds in one process, the run's limit: the lab process was ended.*Look at exercises\/faulty\/faulty\.ts/);
});

test('a graded run where no OS sandbox can start is not a grade, unless the instructor trusts the code', async (t) => {
  const root = tempRoot('faults-root', 'harness-os-sandbox-', t);
  const before = process.env.COURSE_BWRAP;
  process.env.COURSE_BWRAP = 'none';
  t.after(() => (before === undefined ? delete process.env.COURSE_BWRAP : (process.env.COURSE_BWRAP = before)));
  const base = { lab: 'faulty', impl: 'solution' as const, quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root };
  await assert.rejects(runLab({ ...base, grade: true }), /not sandboxed: not a grade\. bubblewrap cannot wall in the learner's code here \(COURSE_BWRAP=none\).*--trusted-code/);
  const practice = await runLab(base);
  const practiceNote = practice.results?.notes.find((n) => n.startsWith("Sandbox: Node's permission model only")) ?? '';
  assert.ok(practiceNote, 'a practice run goes on, and says how it was walled in');
  assert.doesNotMatch(practiceNote, /together/, 'one runner: its limit is the bound');
  const trusted = await runLab({ ...base, grade: true, trustedCode: true, forks: 2 });
  assert.ok(trusted.results?.grade, 'graded with --trusted-code');
  assert.ok(trusted.results?.notes.some((n) => n.startsWith('Graded without an OS sandbox (--trusted-code)')));
  // Five runners (the learner's, and two forks each of its graded cases' and the solution's), each with the limit:
  // the run's bound is five times it.
  const note = trusted.results?.notes.find((n) => n.startsWith('Sandbox: ')) ?? '';
  const [, each, together] = /at most (\d+\.\d) GiB of memory\..*this graded run has 5 \(the learner's, and 2 forks each of its graded cases' and the solution's\), so at most (\d+\.\d) GiB of memory together\.$/.exec(note) ?? [];
  assert.ok(each && together, note);
  // Each is printed to one decimal, so five times it may differ from the printed total by the rounding (4.25 -> "4.3", 12.75 -> "12.8").
  assert.ok(Math.abs(Number(together) - 5 * Number(each)) <= 0.25 + 1e-9, note);
});

// A runner that cannot be started (too many processes, the sandbox's program gone) gets no 'exit' from Node, only an
// 'error': the run ends saying so. Before, the error was thrown in the harness's process, uncaught. Here a bwrap that
// passes the probe and removes itself.
test('a lab process that cannot start ends the run with a message, not an uncaught error', { skip: process.platform === 'linux' ? false : 'the OS sandbox is Linux only' }, async (t) => {
  const root = tempRoot('faults-root', 'harness-os-sandbox-', t);
  const fake = path.join(root, 'gone-bwrap');
  writeFileSync(fake, '#!/bin/sh\nrm -f "$0"\nexit 0\n', { mode: 0o755 });
  const before = process.env.COURSE_BWRAP;
  process.env.COURSE_BWRAP = fake;
  t.after(() => (before === undefined ? delete process.env.COURSE_BWRAP : (process.env.COURSE_BWRAP = before)));
  await assert.rejects(
    runLab({ lab: 'faulty', impl: 'solution', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root }),
    /^Error: the lab process could not start: spawn .*gone-bwrap ENOENT$/,
  );
});

test("the sandbox note states the run's memory bound: each runner's limit, and three times it for a graded run's three runners", () => {
  const limits = sandboxLimits(2, 12 * 2 ** 30);
  const bwrap = { available: true as const, bwrap: '/usr/bin/bwrap', prlimit: '/usr/bin/prlimit' };
  const practice = osSandboxNote(bwrap, limits);
  assert.match(practice, /at most 12\.0 GiB of memory, 4800 CPU s per process, 1152 processes and threads, 1 MiB of output per stream\) and Node's permission model\.$/);
  assert.equal(
    osSandboxNote(bwrap, limits, 3),
    `${practice} These limits are each runner's: this graded run has 3 (the learner's, its graded cases' and the solution's), so at most 36.0 GiB of memory together.`,
  );
  assert.match(osSandboxNote({ available: false, reason: 'COURSE_BWRAP=none' }, sandboxLimits(2, null), 3), /at most 4\.5 GiB of memory\. A practice run; a grade needs the sandbox\. .* so at most 13\.5 GiB of memory together\.$/);
  // A graded run's forks (run-cases.ts GRADE_FORKS): the learner's runner and five of each graded side.
  assert.equal(
    osSandboxNote(bwrap, limits, 11),
    `${practice} These limits are each runner's: this graded run has 11 (the learner's, and 5 forks each of its graded cases' and the solution's), so at most 132.0 GiB of memory together.`,
  );
});
