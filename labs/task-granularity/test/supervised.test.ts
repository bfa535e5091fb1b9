/**
 * The observed failures of issue 14 on the real exercise: a synchronous block that never ends (an infinite loop, here
 * a wait that never returns), and process.exit(0), planted in a copy of the (solved) exercise's schedule.ts. Each run ends within its bound, fails the pool and process cases
 * naming exercises/task-granularity/schedule.ts, writes the other cases and exits 1, never 0.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { labCopyRoot, runLab, runningProcesses } from '@parallel-course/harness/testing.ts';
import { fileURLToPath } from 'node:url';

// Limits x 0.15: a check call may take 9.75 s instead of 65 s (a pool's first check call on a loaded machine
// can take a few seconds; a hang costs two limits and a restart per variant).
const LIMIT_SCALE = 0.15;
const TINY = { warmupSamples: 1, rounds: 2, samplesPerRound: 1 };
const PROCESS_WORKER = fileURLToPath(new URL('../src/process-worker.ts', import.meta.url));

async function runPlanted(t: { after(fn: () => void): void }, statement: string) {
  const root = labCopyRoot('task-granularity');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const file = path.join(root, 'exercises', 'task-granularity', 'schedule.ts');
  const source = readFileSync(file, 'utf8').replace('const tasks = splitIntoTasks(spec, chunk);', `${statement}\n  const tasks = splitIntoTasks(spec, chunk);`);
  assert.ok(source.includes(statement), 'the fault was planted');
  writeFileSync(file, source);
  const started = performance.now();
  const outcome = await runLab({
    lab: 'task-granularity', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: TINY, silent: true, rootDir: root, limitScale: LIMIT_SCALE,
    cpus: 2, // the same sweep on any machine
  });
  return { outcome, seconds: (performance.now() - started) / 1000 };
}

function assertScheduleCasesFailed(outcome: Awaited<ReturnType<typeof runLab>>, reason: RegExp): void {
  assert.equal(outcome.exitCode, 1);
  const scheduled = outcome.correctness.filter((e) => e.variant === 'pool' || e.variant === 'process');
  assert.ok(scheduled.length > 2);
  assert.ok(scheduled.every((e) => !e.passed));
  assert.ok(scheduled.some((e) => reason.test(e.reason ?? '')), scheduled.map((e) => e.reason).join('\n'));
  assert.ok(outcome.results, 'the other cases are written');
  assert.ok(outcome.results!.cases.some((c) => c.variant === 'tally' || c.variant === 'shared'));
  assert.ok(outcome.results!.cases.every((c) => c.variant !== 'pool' && c.variant !== 'process'));
  assert.deepEqual(runningProcesses(PROCESS_WORKER), []);
}

// The block never gives the event loop back, as `for (;;) {}` would, but waits instead of spinning: the supervisor
// sees the same silent child, and the two limits do not burn 20 CPU-seconds of the suite. A spinning loop in learner
// code is supervision.test.ts's (harness), where its limits are shorter.
const BLOCK_FOREVER = 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);';

test('a synchronous block that never ends in schedule.ts ends within the check limit, naming the file', async (t) => {
  const { outcome, seconds } = await runPlanted(t, BLOCK_FOREVER);
  assertScheduleCasesFailed(outcome, /did not finish within 9\.8 s .* Look at exercises\/task-granularity\/schedule\.ts\./);
  // Two variants hang: two limits and a restart each, plus three short runs.
  assert.ok(seconds < 150, `took ${seconds} s`);
});

test('process.exit(0) in schedule.ts fails those cases and the run exits 1, not 0', async (t) => {
  const { outcome } = await runPlanted(t, 'process.exit(0);');
  assertScheduleCasesFailed(outcome, /\(exit code 0\): does the code call process\.exit\(\)\? Look at exercises\/task-granularity\/schedule\.ts\./);
});
