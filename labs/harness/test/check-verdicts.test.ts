/**
 * The check stage's verdicts, decided in the judge's process (judge-outputs.ts CheckVerdicts, out of the supervisor's
 * attempt since session 18): a case stands as the runner reports it only when the judge found every check output it
 * sent right and had one for every check input. A lab of three check inputs (two check inputs and the measured one),
 * whose expected output is each input doubled, compared exactly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CorrectnessEntry } from '@parallel-course/core';
import { CheckJudge, CheckVerdicts, type CheckVerdictHooks } from '../src/measure/judge-outputs.ts';
import { withinTolerance } from '../src/comparators.ts';
import type { LabContext, LabDefinition } from '../src/lab-definition.ts';

const CTX: LabContext = { impl: 'solution', implDir: '/nowhere', rootDir: '/nowhere', quick: true, availableParallelism: 2, seed: 1 };
const INPUTS = [[1, 2], [3, 4], [5, 6]];

const lab = {
  name: 'doubling',
  inputParams: ['n'],
  inputs: () => ({ check: INPUTS.slice(0, 2), measure: INPUTS[2] }),
  expected: (input: number[]) => input.map((v) => 2 * v),
  comparator: withinTolerance({ abs: 0, rel: 0 }),
} as unknown as LabDefinition<unknown, unknown>;

const KEY = 'double n=2';
const passed: CorrectnessEntry = {
  variant: 'double', params: { n: 2 }, passed: true, comparator: 'the runner\'s', reason: null, notImplemented: false,
  firstMismatch: null, maxAbsError: null, maxRelError: null, inputsChecked: 3, failedAt: null,
};

/** Verdicts over the lab above, with the hooks a supervisor gives, recording what they are asked. */
function verdicts(): { verdicts: CheckVerdicts; decided: Map<string, CorrectnessEntry>; shown: number[][] } {
  const decided = new Map<string, CorrectnessEntry>();
  const shown: number[][] = [];
  const hooks: CheckVerdictHooks = {
    show: async (_key, _input, positions) => {
      shown.push(positions);
      return [];
    },
    failed: (_key, reason, previous) => ({ ...passed, ...previous, passed: false, reason: `${reason}. Look at exercises/doubling/double.ts.`, failedAt: { stage: 'check', sample: null } }),
    decided: (key, entry) => void decided.set(key, entry),
  };
  const checks = new CheckJudge(lab, CTX, new Map([[KEY, { params: { n: 2 } }]]));
  return { verdicts: new CheckVerdicts(checks, hooks), decided, shown };
}

const whole = (value: number[]) => ({ kind: 'whole', value });

test('every check output right and one for every check input: the runner\'s entry stands, with the judge\'s errors', async () => {
  const { verdicts: v, decided } = verdicts();
  INPUTS.forEach((input, i) => v.output(KEY, i, whole(input.map((x) => 2 * x))));
  v.checked(KEY, passed);
  await v.settled();
  assert.deepEqual(decided.get(KEY), { ...passed, maxAbsError: 0, maxRelError: 0 });
});

test('a wrong check output fails the case whatever the runner says, naming the input, the mismatch and the file', async () => {
  const { verdicts: v, decided } = verdicts();
  v.output(KEY, 0, whole([2, 4]));
  v.output(KEY, 1, whole([6, 9]));
  v.output(KEY, 2, whole([10, 12]));
  v.checked(KEY, passed);
  await v.settled();
  const entry = decided.get(KEY);
  assert.equal(entry?.passed, false);
  assert.match(entry?.reason ?? '', /^wrong output on check input #1.*Look at exercises\/doubling\/double\.ts\.$/);
  assert.deepEqual(entry?.firstMismatch, { index: 1, expected: '8', actual: '9' });
  assert.equal(entry?.comparator, lab.comparator.description);
  assert.equal(entry?.inputsChecked, 2);
  assert.deepEqual(entry?.failedAt, { stage: 'check', sample: null });
});

test('a case the runner says passed, with an output missing, fails: its outputs did not all reach the harness', async () => {
  const { verdicts: v, decided } = verdicts();
  v.output(KEY, 0, whole([2, 4]));
  v.checked(KEY, passed);
  await v.settled();
  const entry = decided.get(KEY);
  assert.equal(entry?.passed, false);
  assert.match(entry?.reason ?? '', /its check outputs did not all reach the harness \(1 of 3\): lab or learner code wrote to the harness's channel/);
});

test('after a wrong output, a large one is still asked for (with no positions), so the runner goes on; the first failure stands', async () => {
  const { verdicts: v, decided, shown } = verdicts();
  v.output(KEY, 0, whole([0, 0]));
  v.output(KEY, 1, { kind: 'large', length: 2 ** 20 });
  v.checked(KEY, passed);
  await v.settled();
  assert.deepEqual(shown, [[]]);
  assert.match(decided.get(KEY)?.reason ?? '', /^wrong output on check input #0/);
});
