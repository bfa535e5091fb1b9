/**
 * A runner the kernel's out-of-memory killer ended is said to be that, with the learner's file, not "a crash in native
 * code?" (issue 42: a graded run has 11 runners whose memory limits add up to more than a small machine holds).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CorrectnessEntry } from '@parallel-course/core';
import { attemptOutcome, type AttemptEnd, type AttemptRecord } from '../src/supervise/attempt-outcome.ts';
import { killedForMemory, oomKillCount } from '../src/supervise/oom-kills.ts';

test("the kernel's count of out-of-memory kills is read from vmstat, null where it is not there", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oom-'));
  writeFileSync(path.join(dir, 'with'), 'pgfault 12\noom_kill 3\nthp_fault_alloc 0\n');
  writeFileSync(path.join(dir, 'without'), 'pgfault 12\n');
  assert.equal(oomKillCount(path.join(dir, 'with')), 3);
  assert.equal(oomKillCount(path.join(dir, 'without')), null);
  assert.equal(oomKillCount(path.join(dir, 'missing')), null);
  if (process.platform === 'linux') assert.equal(typeof oomKillCount(), 'number', 'Linux 4.13 and later count them');
});

test('an exit is an out-of-memory kill only when SIGKILL ended it and the count grew while it ran', () => {
  assert.equal(killedForMemory('SIGKILL', 3, 4), true);
  assert.equal(killedForMemory('SIGKILL', 3, 3), false, 'SIGKILL from someone else: the count did not grow');
  assert.equal(killedForMemory('SIGSEGV', 3, 4), false, 'a crash while another process was the victim');
  assert.equal(killedForMemory(null, 3, 4), false);
  assert.equal(killedForMemory('SIGKILL', null, 4), false, 'no counter: not claimed');
});

test("a graded case whose runner the out-of-memory killer ended fails naming the machine's memory, the runners and the file", () => {
  const info = { key: 'pool', variant: 'pool', params: {}, learnerFile: 'exercises/task-granularity/schedule.ts', inputKey: '' };
  const entries = new Map<string, CorrectnessEntry>();
  const record = {
    job: { grade: true, impl: 'exercise' },
    run: { lab: { cases: [info] }, notes: [], fatal: null, interrupted: null },
    entries,
    options: {},
    limits: { memoryBytes: 4.5 * 2 ** 30, cpuSeconds: 4800, processes: 1152, fileBytes: 2 ** 30, outputBytes: 2 ** 20 },
  } as unknown as AttemptRecord;
  const end: AttemptEnd = {
    exit: { code: null, signal: 'SIGKILL' },
    oomKilled: true,
    side: 'graded',
    stopped: false,
    refused: null,
    done: false,
    measuringFinished: false,
    activity: { activity: { stage: 'measure', caseKey: 'pool', round: 2 }, limitMs: 10_000, why: '' },
    lastCalls: [],
    overran: null,
    overMemory: null,
    stderrTail: '',
  };
  const outcome = attemptOutcome(end, record);
  assert.equal(outcome.kind, 'case-ended');
  const reason = entries.get('pool')?.reason ?? '';
  assert.match(reason, /out-of-memory killer/);
  assert.match(reason, /11 lab processes at once/);
  assert.match(reason, /exercises\/task-granularity\/schedule\.ts/);
  assert.doesNotMatch(reason, /crash in native code/);
  // The same exit without the count growing: a crash, as before.
  const crash = new Map<string, CorrectnessEntry>();
  attemptOutcome({ ...end, oomKilled: false }, { ...record, entries: crash });
  assert.match(crash.get('pool')?.reason ?? '', /\(killed by SIGKILL\): a crash in native code\?/);
});
