/**
 * The pool benchmark (bench/pool-per-task.ts) runs and prints both pools' cost per task with intervals and their
 * ratio; its options are checked. No speed is asserted: the numbers depend on the machine and its load.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseOptions } from '../bench/pool-per-task.ts';

const SCRIPT = fileURLToPath(new URL('../bench/pool-per-task.ts', import.meta.url));

describe('bench/pool-per-task.ts', () => {
  it('prints the lab\'s pool and the minimal pool per task, each with an interval, and the ratio with its interval', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '--tasks', '40', '--rounds', '3', '--workers', '2'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    // Three significant digits (core format.ts), a time in the unit that reads best.
    const number = String.raw`\d+(?:\.\d+)?`;
    const time = String.raw`${number} (?:ns|µs|ms) \[${number}, ${number}\] per task`;
    assert.match(run.stdout, /^pool per-task cost: 40 empty tasks per sample, 2 workers, 3 rounds interleaved; Node v\d+.*, load \d+\.\d\d \/ \d+\.\d\d \/ \d+\.\d\d\n/);
    assert.match(run.stdout, new RegExp(String.raw`the lab's pool \(piscina, labs/task-graph/src/thread-pool\.ts\): ${time}`));
    assert.match(run.stdout, new RegExp(String.raw`a minimal pool \(worker_threads, one task in flight per worker\): ${time}`));
    assert.match(run.stdout, new RegExp(String.raw`ratio, the lab's pool over the minimal one: ${number}x \[${number}, ${number}\] \(issue 47: within 1\.25x\)`));
  });

  it('takes positive whole numbers for --tasks, --rounds and --workers, and names a bad flag and the fix', () => {
    assert.deepEqual(parseOptions(['--tasks', '10', '--rounds', '4', '--workers', '3']), { tasks: 10, rounds: 4, workers: 3 });
    assert.throws(() => parseOptions(['--tasks', '0']), { message: '--tasks must be a positive integer, got 0: e.g. --tasks 4' });
    assert.throws(() => parseOptions(['--rounds']), { message: '--rounds must be a positive integer, got nothing: e.g. --rounds 4' });
    assert.throws(() => parseOptions(['--threads', '2']), { message: 'unknown option --threads: use --tasks N, --rounds R or --workers W' });
  });
});
