/**
 * Issue 42's cached-answer attack on this lab: a schedule.ts that remembers the measured run's histogram (when every
 * sample timed the same input) and then does a third of the tasks, answering from memory, PASSed its grade at 3.12.
 * Each measured sample now counts a stream of its own (lab.ts measureAt, numbered by the runner before learner code
 * loads), checked in full (checkSample), so the remembered answer is wrong on the first sample it is used for, and
 * the case fails naming the file.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { labCopyRoot, runLab } from '@parallel-course/harness/testing.ts';

const TINY = { warmupSamples: 1, rounds: 2, samplesPerRound: 1 };

// Cached by the run's size only (2^22 points per worker and up: the check's own inputs are smaller), so the check
// passes in full; every later call of that size does a third of the tasks and returns the remembered histogram.
const CACHING_SCHEDULE = `import { splitIntoTasks } from '@parallel-course/task-granularity/chunks.ts';
import { BINS, mergeInto, type MonteCarloSpec } from '@parallel-course/task-granularity/monte-carlo.ts';
import type { TaskRunner } from '@parallel-course/task-granularity/task-runner.ts';

const remembered = new Map<number, number[]>();

export async function runInChunks(runner: TaskRunner, spec: MonteCarloSpec, chunk: number): Promise<number[]> {
  const tasks = splitIntoTasks(spec, chunk);
  const cached = remembered.get(spec.points);
  const todo = cached ? tasks.slice(0, Math.ceil(tasks.length / 3)) : tasks;
  const histogram = new Array<number>(BINS).fill(0);
  for (const counts of await Promise.all(todo.map((task) => runner.run(task)))) mergeInto(histogram, counts);
  if (cached) return [...cached];
  if (spec.points >= 1 << 22) remembered.set(spec.points, histogram);
  return histogram;
}
`;

test("a scheduler that answers from a histogram it remembered fails its first measured sample, naming schedule.ts (issue 42)", async (t) => {
  const root = labCopyRoot('task-granularity');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(path.join(root, 'exercises', 'task-granularity', 'schedule.ts'), CACHING_SCHEDULE);
  const outcome = await runLab({
    lab: 'task-granularity', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: TINY, silent: true, rootDir: root,
    cpus: 2, // the same sweep on any machine
  });
  const scheduled = outcome.correctness.filter((e) => e.variant === 'pool' || e.variant === 'process');
  assert.ok(scheduled.length > 2, JSON.stringify(outcome.correctness.map((e) => e.variant)));
  for (const entry of scheduled) {
    assert.equal(entry.passed, false, `${entry.variant} ${JSON.stringify(entry.params)} passed`);
    assert.deepEqual(entry.failedAt, { stage: 'warm-up', sample: 0 }, JSON.stringify(entry));
    assert.match(entry.reason ?? '', /^wrong output on warm-up sample #0 at \[\d+\]: expected \d+, got \d+ .* Look at exercises\/task-granularity\/schedule\.ts\.$/);
  }
  assert.equal(outcome.exitCode, 1);
  // The serial baseline, on the same fresh inputs, is measured and passes.
  assert.ok(outcome.results?.cases.some((c) => c.variant === 'serial'));
  assert.ok(outcome.correctness.filter((e) => e.variant === 'serial').every((e) => e.passed));
});
