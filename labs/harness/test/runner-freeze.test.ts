/**
 * A graded run's idle runners are stopped while the judge asks another (runner-freeze.ts; issue 42, review session
 * 20 finding 2): learner code whose threads spin whenever none of its calls is in flight slowed the solution's
 * samples, not its own, and the grade moved; a stopped runner is never left stopped behind an interrupted or failed run.
 */
// npm test runs this file alone: it watches a graded run's runner processes through /proc every few ms.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseResultsJson } from '@parallel-course/core';
import { runLab } from '../src/run/run-lab.ts';
import { killGroup } from '../src/supervise/runner-process.ts';
import { AttemptWatchdog, MEMORY_POLL_MS } from '../src/supervise/attempt-watchdog.ts';
import { continueAll, continueRunner, isStopped, stoppedPids, stopRunner } from '../src/measure/runner-freeze.ts';
import { tempRoot } from './support/temp-root.ts';

/**
 * Both sides' code: a parallel sum (this thread and one helper thread each square-sum half of the input, REPEAT times
 * over), so the solution needs two CPUs. Autogroup scheduling (Linux gives each session a fair share of the CPUs, and
 * each runner is a session of its own) keeps idle spinners in another session from slowing a one-thread sample
 * much; a parallel one loses its second CPU to them.
 */
const PARALLEL = `import { Worker } from 'node:worker_threads';
const REPEAT = 60;
const ctl = new Int32Array(new SharedArrayBuffer(8));
const shared = new Float64Array(new SharedArrayBuffer(8 * 4097));
const HELPER = \`const { workerData: [ctl, shared] } = require('node:worker_threads');
let gen = 0;
for (;;) {
  Atomics.wait(ctl, 0, gen);
  gen = Atomics.load(ctl, 0);
  const n = shared[4096] | 0;
  let s = 0;
  for (let r = 0; r < \${REPEAT}; r++) { s = 0; for (let i = n >> 1; i < n; i++) s += shared[i] * shared[i]; }
  shared[4095] = s;
  Atomics.store(ctl, 1, gen);
  Atomics.notify(ctl, 1);
}\`;
new Worker(HELPER, { eval: true, workerData: [ctl, shared] }).unref();
function parallelSum(xs: Float64Array): number {
  const n = Math.min(xs.length, 4094);
  shared.set(xs.subarray(0, n));
  shared[4096] = n;
  const gen = Atomics.add(ctl, 0, 1) + 1;
  Atomics.notify(ctl, 0);
  let s = 0;
  for (let r = 0; r < REPEAT; r++) { s = 0; for (let i = 0; i < n >> 1; i++) s += xs[i]! * xs[i]!; }
  for (let i = n; i < xs.length; i++) s += xs[i]! * xs[i]!;
  for (let seen = Atomics.load(ctl, 1); seen !== gen; seen = Atomics.load(ctl, 1)) Atomics.wait(ctl, 1, seen, 10);
  return s + shared[4095]!;
}
`;
/** Threads per learner process that spin while none of its calls runs (and wait while one does). */
const SPINNERS = 4;
/** The same parallel sum, with SPINNERS threads that load the machine whenever the runner is idle. */
const SPINNING = `${PARALLEL}
const busy = new Int32Array(new SharedArrayBuffer(4));
const SPIN = \`const { workerData: busy } = require('node:worker_threads');
for (;;) {
  if (Atomics.load(busy, 0) === 1) { Atomics.wait(busy, 0, 1, 2); continue; }
  let x = 0; for (let i = 0; i < 2000; i++) x += i * i;
}\`;
for (let i = 0; i < ${SPINNERS}; i++) new Worker(SPIN, { eval: true, workerData: busy }).unref();
export function sumSquares(xs: Float64Array): number {
  Atomics.store(busy, 0, 1);
  try {
    return parallelSum(xs);
  } finally {
    Atomics.store(busy, 0, 0);
  }
}
`;

/** The /proc state letter of `pid` (T: stopped), or null once it is gone. */
function stateOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

/** Resolves once `done()` holds, or after a second. */
async function settled(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The runner processes of runs under `root` (their node processes, inside bubblewrap or not): pid, side and state. */
function runnersUnder(root: string): { pid: number; side: string; state: string }[] {
  const found: { pid: number; side: string; state: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      // The node runner itself (bwrap's own command line holds the same words after its options).
      if (!args[0]?.endsWith('node') || !args.some((a) => a.endsWith('run-child.ts'))) continue;
      const job = args.find((a) => a.startsWith('{') && a.includes(root));
      if (!job) continue;
      const side = (JSON.parse(job) as { side?: string }).side ?? 'practice';
      found.push({ pid: Number(name), side, state: stateOf(Number(name)) ?? '?' });
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

test("learner threads that spin while the learner's runner is idle get no CPU while the solution's samples are timed: idle runners are stopped (issue 42)", { skip: process.platform !== 'linux' }, async (t) => {
  const root = tempRoot('faults-root', 'harness-freeze-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), SPINNING);
  writeFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), `${PARALLEL}export { parallelSum as sumSquares };\n`);
  // One fork a side: the learner's graded runner is idle exactly while the solution's is sampled.
  const sampling = { warmupSamples: 2, rounds: 6, samplesPerRound: 3 };
  /** What the judge's waits saw: polls with the solution's runner running, and of those, with the learner's graded one running too. */
  const seen = { solutionRunning: 0, bothRunning: 0, stopped: 0 };
  // The poll runs while the judge waits for an answer (this process runs the supervisor): one runner is asked then.
  const poll = setInterval(() => {
    const runners = runnersUnder(root);
    const solution = runners.find((r) => r.side === 'solution');
    const learner = runners.find((r) => r.side === 'graded');
    // The measure stage: some runner stopped (the checks before and the exits after run every runner at once).
    if (!runners.some((r) => r.state === 'T')) return;
    seen.stopped++;
    if (!solution || !learner || solution.state === 'T') return;
    seen.solutionRunning++;
    if (learner.state !== 'T') seen.bothRunning++;
  }, 3);
  let outcome;
  try {
    outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling, silent: true, rootDir: root, grade: true, forks: 1 });
  } finally {
    clearInterval(poll);
  }
  assert.ok(outcome.runDir, outcome.summary);
  const results = parseResultsJson(readFileSync(path.join(outcome.runDir, 'results.json'), 'utf8'), 'results.json');
  assert.equal(results.cases.filter((c) => c.variant === 'learner' && c.samplesMs.length > 0).length, 2, `both sides' graded cases were measured: ${outcome.summary}`);
  // Before the change no runner was ever stopped: the learner's spinners ran beside every solution sample.
  assert.ok(seen.stopped > 0 && seen.solutionRunning > 0, JSON.stringify(seen));
  // A poll may read a runner just stopped before the kernel has stopped it (the signal takes a turn of the scheduler).
  assert.ok(seen.bothRunning <= seen.solutionRunning / 4, `the learner's graded runner ran beside the solution's in ${seen.bothRunning} of ${seen.solutionRunning} polls`);
  assert.deepEqual(stoppedPids(), [], 'every runner continued after the measure stage');
});

test('a graded run interrupted (SIGTERM) while its runners are stopped ends every runner at once and leaves none stopped', { skip: process.platform !== 'linux' }, async (t) => {
  const root = tempRoot('faults-root', 'harness-freeze-stop-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), SPINNING);
  // SIGTERM to this process (the supervisor runs here and handles it) the first time a runner is seen stopped.
  let signalledAt: number | null = null;
  const poll = setInterval(() => {
    if (signalledAt === null && runnersUnder(root).some((r) => r.state === 'T')) {
      signalledAt = performance.now();
      process.kill(process.pid, 'SIGTERM');
    }
  }, 20);
  let outcome;
  try {
    outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: { warmupSamples: 2, rounds: 40, samplesPerRound: 3 }, silent: true, rootDir: root, grade: true, forks: 2 });
  } finally {
    clearInterval(poll);
  }
  assert.ok(signalledAt !== null, `the run was interrupted in its measure stage: ${outcome.summary}`);
  assert.match(outcome.summary, /Interrupted \(SIGTERM\)/);
  // The supervisor SIGKILLs what SIGTERM left after INTERRUPT_GRACE_MS (1.5 s): every runner had ended before.
  const endedMs = performance.now() - signalledAt;
  assert.deepEqual(stoppedPids(), []);
  assert.deepEqual(runnersUnder(root), [], 'every runner ended with the run');
  assert.ok(endedMs < 1500, `the runners took ${endedMs.toFixed(0)} ms to end`);
});

test('a stopped runner tree (a child that left its group too) is continued by the kill of its group, and never left stopped', { skip: process.platform !== 'linux' }, async () => {
  // A runner like the supervisor's: its own group, a child in a session of its own (setsid) that forks again.
  const script = `const { spawn } = require('node:child_process');
spawn(process.execPath, ['-e', "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000)"], { detached: true, stdio: 'ignore' });
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1000);
console.log('up');`;
  const child = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const pid = child.pid!;
  let tree: number[] = [];
  try {
    assert.ok(stopRunner(pid));
    tree = stoppedPids();
    assert.equal(tree.length, 3, `the runner, its setsid'd child and that child's child: ${tree.join(', ')}`);
    // A signal takes effect at the process's next turn on a CPU: wait a little for it.
    await settled(() => tree.every((p) => stateOf(p) === 'T'));
    for (const p of tree) assert.equal(stateOf(p), 'T', `process ${p} is stopped`);
    continueRunner(pid);
    await settled(() => tree.every((p) => stateOf(p) !== 'T'));
    for (const p of tree) assert.notEqual(stateOf(p), 'T', `process ${p} continued`);
    // Stopped again, then interrupted as the supervisor does (SIGTERM to the group): a stopped process would wait
    // for SIGCONT to act on it; the kill continues it, so it ends at once.
    stopRunner(pid);
    assert.ok(isStopped(pid));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    killGroup(child, 'SIGTERM');
    assert.equal(await Promise.race([exited.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still stopped'), 3000))]), 'ended');
    assert.deepEqual(stoppedPids(), []);
    await settled(() => tree.every((p) => stateOf(p) !== 'T'));
    for (const p of tree) assert.notEqual(stateOf(p), 'T', `process ${p} is not left stopped`);
  } finally {
    continueAll();
    // The setsid'd pair is in a session of its own: the group's kill does not end it.
    for (const p of [...tree, pid]) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
  }
});

test("a stopped runner's memory is not polled (its scans fell inside another runner's samples); once continued, it is", { skip: process.platform !== 'linux' }, async () => {
  // A runner that holds 64 MiB and idles, watched with a limit of 16 MiB: polled, it is ended at once.
  const script = `globalThis.held = Buffer.alloc(64 * 1024 * 1024, 1); setInterval(() => {}, 1000); console.log('up');`;
  const child = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  const pid = child.pid!;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  assert.ok(stopRunner(pid));
  const watchdog = new AttemptWatchdog(child, 16 * 1024 * 1024, undefined, () => false);
  try {
    await new Promise((resolve) => setTimeout(resolve, 3 * MEMORY_POLL_MS + 200));
    assert.equal(watchdog.overMemory, null, 'stopped: not polled (before, the first poll ended it)');
    assert.equal(child.exitCode ?? child.signalCode, null);
    continueRunner(pid);
    assert.equal(await Promise.race([exited.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still running'), 3 * MEMORY_POLL_MS + 1000))]), 'ended');
    assert.ok((watchdog.overMemory ?? 0) > 16 * 1024 * 1024, `over the limit once polled: ${watchdog.overMemory}`);
  } finally {
    watchdog.stop();
    continueAll();
    try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  }
});
