/**
 * Faults: a task that throws and a worker that dies, on threads (piscina) and on child processes, through the
 * reference scheduler. Each is reported with its task, no result goes missing silently, the pool carries on, and
 * closing leaves no process behind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runningProcesses } from '@parallel-course/harness/testing.ts';
import { Piscina } from 'piscina';
import { histogramSync, type MonteCarloSpec } from '../src/monte-carlo.ts';
import { ProcessPool, TaskCrashedError } from '../src/process-pool.ts';
import { ChunkFailedError, type FaultyChunkTask, type InjectedFault, type TaskRunner } from '../src/task-runner.ts';
import { runInChunks } from '../../../solutions/task-granularity/schedule.ts';
import { runInChunks as exerciseRunInChunks } from '../../../exercises/task-granularity/schedule.ts';

const SPEC: MonteCarloSpec = { seed: 11, points: 40_000 };
const CHUNK = 5_000; // 8 tasks

/** Wraps a runner so the tasks starting at the given points carry an injected fault. */
function withFaults(runner: TaskRunner, faults: Record<number, InjectedFault>): TaskRunner {
  return {
    run: (task: FaultyChunkTask) => {
      const fault = faults[task.start];
      return runner.run(fault ? { ...task, fault } : task);
    },
  };
}

function processWorkers(): string[] {
  return runningProcesses(fileURLToPath(new URL('../src/process-worker.ts', import.meta.url)));
}

test('threads: a task that throws and a thread that dies are reported with their tasks; the pool carries on', async () => {
  const pool = new Piscina({ filename: new URL('../src/chunk-worker.ts', import.meta.url).href, minThreads: 2, maxThreads: 2 });
  try {
    const error = await runInChunks(withFaults(pool, { 5_000: 'throw', 20_000: 'exit' }), SPEC, CHUNK).then(
      () => assert.fail('a run with failed tasks must not resolve'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ChunkFailedError);
    assert.equal(error.tasks, 8);
    assert.deepEqual(error.failures.map((f) => f.task.start).sort((a, b) => a - b), [5_000, 20_000]);
    const messages = error.failures.map((f) => (f.error as Error).message).sort();
    assert.match(messages.join('\n'), /injected fault: the task for chunk \[5000, 10000\) of seed 11 threw/);
    assert.match(messages.join('\n'), /worker exited with code: 3/);
    assert.match(error.message, /^2 of 8 tasks failed; first: chunk \[\d+, \d+\) of seed 11: .+ \(and 1 more, see \.failures\)$/);
    // The dead thread was replaced: the next run is complete and right.
    assert.deepEqual(await runInChunks(pool, SPEC, CHUNK), histogramSync(SPEC));
  } finally {
    await pool.destroy();
  }
});

test('processes: a child that dies costs only its task, named in the error; a replacement takes over', async () => {
  const pool = await ProcessPool.start({ workers: 2 });
  const firstPids = pool.pids();
  try {
    assert.equal(firstPids.length, 2);
    assert.equal(pool.startupMs.length, 2);
    const error = await runInChunks(withFaults(pool, { 10_000: 'exit', 30_000: 'throw' }), SPEC, CHUNK).then(
      () => assert.fail('a run with failed tasks must not resolve'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ChunkFailedError);
    const crashed = error.failures.find((f) => f.task.start === 10_000)?.error;
    assert.ok(crashed instanceof TaskCrashedError);
    assert.match(crashed.message, /^process worker \(pid \d+\) exited with code 3 while running the task for chunk \[10000, 15000\) of seed 11$/);
    const thrown = error.failures.find((f) => f.task.start === 30_000)?.error as Error;
    assert.equal(thrown.message, 'injected fault: the task for chunk [30000, 35000) of seed 11 threw');
    assert.equal(error.failures.length, 2);
    // Isolation: the main process and the other child lived on; the pool is whole again and the next run is right.
    assert.deepEqual(await runInChunks(pool, SPEC, CHUNK), histogramSync(SPEC));
    assert.equal(pool.pids().length, 2);
    assert.notDeepEqual(pool.pids(), firstPids);
  } finally {
    await pool.close();
  }
  assert.deepEqual(processWorkers(), []);
  await assert.rejects(pool.run({ seed: 1, start: 0, end: 1 }), /the process pool is closed: start a new one with ProcessPool.start\(\)/);
});

test('the process pool validates its size and closes cleanly with tasks still queued', async () => {
  await assert.rejects(ProcessPool.start({ workers: 0 }), /options.workers must be a positive integer, got 0/);
  const pool = await ProcessPool.start({ workers: 1 });
  const queued = Array.from({ length: 4 }, (_, i) => pool.run({ seed: 1, start: 0, end: 200_000 + i }));
  const settled = Promise.allSettled(queued);
  await pool.close();
  const outcomes = await settled;
  assert.ok(outcomes.some((o) => o.status === 'rejected'), 'closing with work queued rejects that work');
  // Nothing hangs and nothing is silently dropped: every task either finished or was rejected with a reason.
  for (const o of outcomes) if (o.status === 'rejected') assert.match((o.reason as Error).message, /closed|was killed|exited/);
  assert.deepEqual(processWorkers(), []);
});

test('the shipped exercise says what to write and where', async () => {
  const never: TaskRunner = { run: async () => assert.fail('the exercise must not run tasks yet') };
  await assert.rejects(
    exerciseRunInChunks(never, SPEC, CHUNK),
    /^NotImplementedError: not implemented: runInChunks in exercises\/task-granularity\/schedule\.ts/,
  );
});
