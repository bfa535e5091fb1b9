/**
 * Competing load is measured per round and flagged (issue 25: two runs at once took a headline from 1.84x to 1.08x,
 * unflagged). The arithmetic on /proc's counters, and a run beside a process that spins on a CPU.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { busyTicksOf, competingCpus, competingLoadNote, processTicksOf, roundLoad } from '../src/measure/competing-load.ts';
import { runLab } from '../src/run/run-lab.ts';
import { slowImpl, tempRoot } from './support/temp-root.ts';

test('the counters: busy ticks, a process group and its ticks, CPUs used by others', () => {
  assert.equal(busyTicksOf('cpu  100 5 50 1000 20 3 2 1 0 0\ncpu0 1 2 3\n'), 100 + 5 + 50 + 3 + 2 + 1);
  // A command name with a space and a parenthesis does not shift the fields.
  const stat = '4242 (node (x) y) S 1 4200 4200 0 -1 4194560 100 0 0 0 250 30 7 3 20 0 1 0';
  assert.deepEqual(processTicksOf(stat), { ppid: 1, pgrp: 4200, ticks: 250 + 30 + 7 + 3, rssPages: 0 });
  // Over 2 s the machine was busy 500 ticks, 200 of them ours: others used 300 ticks / 100 Hz / 2 s = 1.5 CPUs.
  assert.equal(competingCpus(roundLoad({ atMs: 0, busyTicks: 1000, ownTicks: 100 }, { atMs: 2000, busyTicks: 1500, ownTicks: 300 })), 1.5);
  assert.equal(competingLoadNote(new Map([[0, { othersTicks: 10, seconds: 1 }], [1, { othersTicks: 40, seconds: 1 }]])), null, 'a quiet machine says nothing');
  assert.match(competingLoadNote(new Map([[0, { othersTicks: 10, seconds: 1 }], [1, { othersTicks: 180, seconds: 1 }]])) ?? '', /^Competing load: .* 1 of 2 measured rounds .*the most: 1\.8 CPUs in round 2/);
  assert.equal(competingLoadNote(new Map([[0, { othersTicks: 2, seconds: 0.01 }]])), null, 'a round too short to judge is not judged');
});

test('a run beside a process spinning on a CPU says so in its notes', { skip: !existsSync('/proc/stat') }, async (t) => {
  const root = tempRoot('faults-root', 'harness-load-', t);
  writeFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), slowImpl(20000)); // long enough that each round passes MIN_JUDGED_SECONDS on a quiet machine
  const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  t.after(() => spinner.kill('SIGKILL'));
  const outcome = await runLab({
    lab: 'faulty', impl: 'solution', quick: true, outDir: path.join(root, 'results'), silent: true, rootDir: root,
    sampling: { warmupSamples: 1, rounds: 3, samplesPerRound: 8 },
  });
  assert.ok(outcome.results, 'the run was written');
  assert.ok(outcome.results.notes.some((n) => /^Competing load: other processes on this machine used more than 0\.5 CPU/.test(n)), outcome.results.notes.join('\n'));
});
