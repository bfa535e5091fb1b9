/**
 * A run's declarations are computed from the lab in each process (run-cases.ts), never sent between them: the case
 * list the supervisor holds is the runner's, with the plan's omissions gone and --grade's solution copies added.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LabLoadError, UsageError } from '../src/errors.ts';
import { loadLab } from '../src/lab-registry.ts';
import { GRADE_FORKS, gradeForks, runCases, runnerSideOf } from '../src/measure/run-cases.ts';
import { tempRoot } from './support/temp-root.ts';
import { caseKey, gradedCaseParams, isSolutionCopy } from '@parallel-course/core';

const ROOT = fileURLToPath(new URL('./fixtures/faults-root/', import.meta.url));
const JOB = { lab: 'faulty', impl: 'solution' as const, quick: true, seed: 1, rootDir: ROOT, availableParallelism: 2 };

test('the declarations: every case in the lab\'s order with its learner file, the headline, the plan', async () => {
  const { info, definitions } = runCases(await loadLab('faulty', ROOT), JOB);
  assert.deepEqual(info.cases.map((c) => c.key), [caseKey({ variant: 'loop', params: {} }), caseKey({ variant: 'learner', params: {} }), caseKey({ variant: 'steady', params: {} })]);
  assert.deepEqual(definitions.map((d) => d.variant), ['loop', 'learner', 'steady']);
  assert.equal(info.cases.find((c) => c.variant === 'learner')?.learnerFile, 'solutions/faulty/faulty.ts');
  assert.deepEqual(info.headline, { variant: 'steady', params: {} });
  assert.equal(info.grading, null);
  assert.deepEqual(info.plan, { warmupSamples: 1, rounds: 2, samplesPerRound: 3 });
});

test('omitted cases are gone; --grade adds the solution\'s copy of each graded case, from solutions/', async () => {
  const lab = await loadLab('faulty', ROOT);
  assert.deepEqual(runCases(lab, { ...JOB, omit: [caseKey({ variant: 'steady', params: {} })] }).info.cases.map((c) => c.key), [caseKey({ variant: 'loop', params: {} }), caseKey({ variant: 'learner', params: {} })]);
  const graded = runCases(lab, { ...JOB, impl: 'exercise', grade: true }).info;
  assert.deepEqual(graded.cases.map((c) => [c.variant, c.params, c.learnerFile]), [
    ['loop', {}, 'labs/faulty/src/lab.ts'],
    ['learner', {}, 'exercises/faulty/faulty.ts'],
    ['steady', {}, 'labs/faulty/src/lab.ts'],
    ['learner', { impl: 'solution' }, 'solutions/faulty/faulty.ts'],
  ]);
  assert.equal(graded.grading?.target, 0.2);
});

test('a missing impl folder is the lab\'s problem, named with its fix, before any process starts', async (t) => {
  const root = tempRoot('faults-root', 'harness-run-cases-', t);
  const { rmSync } = await import('node:fs');
  rmSync(`${root}/exercises/faulty`, { recursive: true });
  const lab = await loadLab('faulty', root);
  assert.throws(() => runCases(lab, { ...JOB, rootDir: root, impl: 'exercise' }), (error: unknown) => error instanceof LabLoadError && /^exercises\/faulty is missing: restore it with 'git checkout -- exercises\/faulty'$/.test(error.message));
});

test('a runner whose case list differs from the supervisor\'s stops with the reason, instead of reporting unknown cases', async () => {
  const { supervise } = await import('../src/supervise/supervisor.ts');
  const job = { ...JOB, checkOnly: true };
  const cases = runCases(await loadLab('faulty', ROOT), job);
  const run = await supervise({ job, cases: { ...cases, info: { ...cases.info, cases: cases.info.cases.slice(1) } } });
  assert.equal(run.fatal?.kind, 'internal');
  assert.match(run.fatal?.message ?? '', /the faulty lab's cases differ between the harness's process and the runner's \(2 vs 3 cases; first difference: \["learner",\[\]\]\): cases\(\) must depend only on its context/);
  assert.deepEqual(run.correctness, []);
});

test("a graded run's two graded runners hold the same cases in the same order, and the learner's runner none of them (issue 42)", async () => {
  // native-kernel: two graded cases (native-march n = 256, native-blocked at the quick run's largest size).
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const { definitions, info } = runCases(await loadLab('native-kernel', root), { lab: 'native-kernel', impl: 'exercise', quick: true, seed: 1, rootDir: root, availableParallelism: 2, grade: true });
  const graded = new Set((info.grading?.cases ?? []).map((g) => caseKey(g)));
  const of = (side: string) => definitions.filter((d) => runnerSideOf(d, graded) === side);
  const mirrored = of('graded').map((d) => caseKey(d));
  assert.equal(mirrored.length, 2);
  assert.deepEqual(mirrored, [...graded], "the learner's graded runner has exactly the graded cases, in the grading's order");
  assert.deepEqual(of('solution').map((d) => caseKey({ variant: d.variant, params: gradedCaseParams(d.params) })), mirrored, "the solution's runner has their copies, in the same order");
  assert.ok(of('learner').some((d) => d.variant === info.baseline), "the learner's runner has the baseline");
  assert.ok(of('learner').every((d) => !graded.has(caseKey(d)) && !isSolutionCopy(d.params)));
  assert.equal(of('learner').length + of('graded').length + of('solution').length, definitions.length);
});

test("a graded run's plan has a round for each fork: native-kernel's quick 3 rounds become GRADE_FORKS, a practice run keeps them (issue 42)", async () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const lab = await loadLab('native-kernel', root);
  const job = { lab: 'native-kernel', impl: 'exercise' as const, quick: true, seed: 1, rootDir: root, availableParallelism: 2 };
  assert.equal(lab.sampling.quick.rounds, 3);
  assert.equal(runCases(lab, job).info.plan.rounds, 3, 'a practice run: the plan as it is');
  assert.equal(runCases(lab, { ...job, grade: true }).info.plan.rounds, GRADE_FORKS, 'the runner and the supervisor compute the same raised plan');
  assert.equal(runCases(lab, { ...job, grade: true, forks: 2 }).info.plan.rounds, 3, "two forks (a test's): 3 rounds cover them");
  assert.deepEqual([gradeForks({ grade: true }), gradeForks({ grade: true, forks: 2 }), gradeForks({ grade: false, forks: 2 })], [GRADE_FORKS, 2, 1]);
  for (const forks of [0, 1.5, 101]) {
    assert.throws(() => runCases(lab, { ...job, grade: true, forks }), (e: unknown) => e instanceof UsageError && e.message === `forks must be a whole number of process pairs from 1 to 100 (default 5); got ${forks}`);
  }
});
