/**
 * A graded run's runners each send the check verdicts of their own cases only (issue 42): the run's entries are one
 * map for all three runners (attempt-messages.ts), so a runner's 'checked' for another runner's case would decide
 * that case. The learner's runner (learner code in it can write frames to its channel) sends right outputs and a
 * passed entry for the learner's graded case, which the graded runner failed: the forged verdict must not stand.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CorrectnessEntry } from '@parallel-course/core';
import { caseKey } from '@parallel-course/core';
import { AttemptMessages, type AttemptParts } from '../src/supervise/attempt-messages.ts';
import { CheckJudge } from '../src/measure/check-judge.ts';
import { withinTolerance } from '../src/comparators.ts';
import type { LabContext, LabDefinition } from '../src/lab-definition.ts';
import type { RunnerMessage } from '../src/measure/run-protocol.ts';
import { MeasureMeeting } from '../src/measure/measure-meeting.ts';
import type { SupervisedRun, SuperviseOptions } from '../src/measure/supervised-run.ts';

const CTX: LabContext = { impl: 'solution', implDir: '/nowhere', rootDir: '/nowhere', quick: true, availableParallelism: 2, seed: 1 };
const INPUTS = [[1, 2], [3, 4], [5, 6]];
const lab = {
  name: 'doubling',
  inputParams: ['n'],
  inputs: () => ({ check: INPUTS.slice(0, 2), measure: INPUTS[2] }),
  expected: (input: number[]) => input.map((v) => 2 * v),
  comparator: withinTolerance({ abs: 0, rel: 0 }),
} as unknown as LabDefinition<unknown, unknown>;

const GRADED = { variant: 'double', params: { n: 2 } };
const KEY = caseKey(GRADED);
const INFO = { key: KEY, variant: 'double', params: { n: 2 }, learnerFile: 'exercises/doubling/double.ts', inputKey: 'n=2' };
const passed: CorrectnessEntry = {
  variant: 'double', params: { n: 2 }, passed: true, comparator: "the runner's", reason: null, notImplemented: false,
  firstMismatch: null, maxAbsError: null, maxRelError: null, inputsChecked: 3, failedAt: null,
};

function runnerMessages(name: 'learner' | 'graded', entries: Map<string, CorrectnessEntry>, run: { lab: unknown; fatal: unknown }): AttemptMessages {
  const parts = {
    child: { pid: undefined },
    channel: { close() {}, tell() {}, pendingCase: null },
    watchdog: { activity: null },
    side: { name, meeting: {}, stopped: () => false },
    run,
    entries,
    options: { job: { grade: true } },
    checks: new CheckJudge(lab, CTX, new Map([[KEY, { params: GRADED.params }]])),
    tmpDir: '/nowhere',
  } as unknown as AttemptParts;
  return new AttemptMessages(parts);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

test("a graded run's learner runner cannot pass the learner's graded case, which the graded runner failed", async () => {
  const entries = new Map<string, CorrectnessEntry>();
  const run = { lab: { name: 'doubling', cases: [INFO], grading: { cases: [GRADED], target: 0.9, targetText: '' } }, fatal: null as unknown };
  const graded = runnerMessages('graded', entries, run);
  const learner = runnerMessages('learner', entries, run);
  const send = (to: AttemptMessages, message: RunnerMessage) => to.handle(message, performance.now());
  // The graded runner: a wrong output on check input #0, and its own failed entry.
  send(graded, { type: 'check-output', caseKey: KEY, input: 0, output: { kind: 'whole', value: [0, 0] } } as RunnerMessage);
  send(graded, { type: 'checked', caseKey: KEY, entry: { ...passed, passed: false, reason: 'wrong' }, measureCallMs: null });
  await settle();
  assert.equal(entries.get(KEY)?.passed, false);
  // The learner's runner, later: every output right, and 'passed'.
  INPUTS.forEach((input, i) => send(learner, { type: 'check-output', caseKey: KEY, input: i, output: { kind: 'whole', value: input.map((x) => 2 * x) } } as RunnerMessage));
  send(learner, { type: 'checked', caseKey: KEY, entry: passed, measureCallMs: null });
  await settle();
  assert.equal(entries.get(KEY)?.passed, false, JSON.stringify(entries.get(KEY)));
  assert.match(String((run.fatal as { message?: string } | null)?.message), /^a check output arrived for a case this runner does not run: lab or learner code wrote to the harness's channel/);
});

test("a graded run's learner runner cannot fail (or measure) a case of another runner: the forged message is refused", async () => {
  const entries = new Map<string, CorrectnessEntry>();
  const run = { lab: { name: 'doubling', cases: [INFO], grading: { cases: [GRADED], target: 0.9, targetText: '' } }, fatal: null as unknown };
  const learner = runnerMessages('learner', entries, run);
  entries.set(KEY, passed);
  learner.handle({ type: 'case-failed', caseKey: KEY, reason: 'forged', sample: null, stage: 'measure' } as RunnerMessage, performance.now());
  await settle();
  assert.equal(entries.get(KEY)?.passed, true, JSON.stringify(entries.get(KEY)));
  assert.match(String((run.fatal as { message?: string } | null)?.message), /^a failure arrived for a case this runner does not run/);
});

test("a graded case checked in several forks passes only if every fork passed: one fork's pass never replaces another's failure (issue 42)", async () => {
  // Learner code in a fresh process may behave differently (it reads its pid, a clock, a file), and each fork checks
  // its cases into the run's one map of entries: the fork that checked last decided the case before.
  for (const order of ['failed first', 'passed first'] as const) {
    const entries = new Map<string, CorrectnessEntry>();
    const run = { lab: { name: 'doubling', cases: [INFO], grading: { cases: [GRADED], target: 0.9, targetText: '' } }, fatal: null as unknown };
    const forks = [runnerMessages('graded', entries, run), runnerMessages('graded', entries, run)];
    const send = (to: AttemptMessages, message: RunnerMessage) => to.handle(message, performance.now());
    const fail = async (fork: AttemptMessages) => {
      send(fork, { type: 'check-output', caseKey: KEY, input: 0, output: { kind: 'whole', value: [0, 0] } } as RunnerMessage);
      send(fork, { type: 'checked', caseKey: KEY, entry: { ...passed, passed: false, reason: 'wrong' }, measureCallMs: null });
      await settle();
    };
    const pass = async (fork: AttemptMessages) => {
      INPUTS.forEach((input, i) => send(fork, { type: 'check-output', caseKey: KEY, input: i, output: { kind: 'whole', value: input.map((x) => 2 * x) } } as RunnerMessage));
      send(fork, { type: 'checked', caseKey: KEY, entry: passed, measureCallMs: null });
      await settle();
    };
    if (order === 'failed first') {
      await fail(forks[0]!);
      await pass(forks[1]!);
    } else {
      await pass(forks[0]!);
      assert.equal(entries.get(KEY)?.passed, true, 'one fork passed so far');
      await fail(forks[1]!);
    }
    const entry = entries.get(KEY);
    assert.equal(entry?.passed, false, `${order}: ${JSON.stringify(entry)}`);
    assert.match(String(entry?.reason), /exercises\/doubling\/double\.ts/, 'the failure names the learner file');
    assert.equal(run.fatal, null, 'both forks are the graded side: no message was refused');
  }
});

test("a fork that offers a graded case for measuring without having checked it is not measured on another fork's pass (review, session 20)", async () => {
  // The run's entries are one map for every fork: fork 0's pass made the case 'passed', and fork 1, whose runner sent
  // no verdict of its own (learner code can write 'measuring' to its channel before its runner's check), was admitted
  // by the meeting and measured with code no check of its own had seen.
  const entries = new Map<string, CorrectnessEntry>();
  const run = { lab: { name: 'doubling', cases: [INFO], grading: { cases: [GRADED], target: 0.9, targetText: '' }, plan: { warmupSamples: 1, rounds: 2, samplesPerRound: 1 } }, fatal: null as unknown, notes: [] };
  const failed: { key: string; reason: string }[] = [];
  const meeting = new MeasureMeeting(2, run as unknown as SupervisedRun, entries, {} as SuperviseOptions, (key, reason) => void failed.push({ key, reason }));
  const fork = (n: number) =>
    new AttemptMessages({
      child: { pid: undefined },
      channel: { close() {}, tell() {}, ask: () => new Promise(() => {}), pendingCase: null },
      watchdog: { activity: null, watch() {} },
      side: { name: 'graded', fork: n, meeting, stopped: () => false },
      run,
      entries,
      options: { job: { grade: true } },
      checks: new CheckJudge(lab, CTX, new Map([[KEY, { params: GRADED.params }]])),
      tmpDir: '/nowhere',
    } as unknown as AttemptParts);
  const [first, second] = [fork(0), fork(1)];
  const send = (to: AttemptMessages, message: RunnerMessage) => to.handle(message, performance.now());
  INPUTS.forEach((input, i) => send(first, { type: 'check-output', caseKey: KEY, input: i, output: { kind: 'whole', value: input.map((x) => 2 * x) } } as RunnerMessage));
  send(first, { type: 'checked', caseKey: KEY, entry: passed, measureCallMs: null });
  await settle();
  assert.equal(entries.get(KEY)?.passed, true);
  const measuring = { type: 'measuring', cases: [{ key: KEY, checkMs: 1 }] } as unknown as RunnerMessage;
  send(first, measuring);
  send(second, measuring);
  await settle();
  assert.deepEqual(failed, [{ key: KEY, reason: 'its process 2 of 2 offered it for measuring without having passed its check there (each process checks its own cases)' }]);
});
