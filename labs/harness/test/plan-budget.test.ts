/**
 * The planner's arithmetic and its reductions (plan.ts), on a made-up lab whose estimates are stated here: a run
 * over budget gets fewer rounds, never below MIN_ROUNDS; then its optional cases go, never the baseline, the
 * headline or (when grading) a graded case; what changed is said in one line and a note. And the wiring, end to
 * end on the workflow fixture: `npm run lab` without a test's sampling runs the plan's rounds, leaves out what it
 * left out, and records the plan in the results' notes.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { CaseDefinition, LabContext, LabDefinition, SamplingPlan } from '../src/lab-definition.ts';
import { planLab, planLoadedLab } from '../src/plan/plan-lab.ts';
import { describeFit, fitToBudget, formatDuration, HARNESS_MS, MIN_ROUNDS, planRun } from '../src/plan/plan.ts';
import { parallelMs, rateOf } from '../src/plan/calibration.ts';
import { runLab } from '../src/run/run-lab.ts';
import { tempRoot } from './support/temp-root.ts';
import { caseKey } from '@parallel-course/core';
import { GRADE_FORKS } from '../src/measure/run-cases.ts';
import { loadLab, ROOT_DIR } from '../src/lab-registry.ts';
import { planRows } from '../src/tools/plan-cli.ts';

const CTX: LabContext = { impl: 'solution', implDir: '/nowhere', rootDir: '/nowhere', quick: false, availableParallelism: 4, seed: 1 };
const SAMPLING: SamplingPlan = { warmupSamples: 1, rounds: 10, samplesPerRound: 2 };

/** A case whose one sample takes `sampleMs` at the rate 1 (calibration { msPerUnit: 1 }). */
function fakeCase(variant: string, sampleMs: number, extra: Partial<CaseDefinition<unknown, unknown>> = {}): CaseDefinition<unknown, unknown> {
  return {
    variant,
    params: {},
    estimate: (_ctx, calibration) => ({ sampleMs: sampleMs * rateOf(calibration, 'msPerUnit'), setupMs: 100, checkMs: 50 }),
    setup: () => Promise.reject(new Error('a plan starts nothing')),
    ...extra,
  };
}

function fakeLab(cases: CaseDefinition<unknown, unknown>[], grading?: LabDefinition<unknown, unknown>['grading']): LabDefinition<unknown, unknown> {
  return {
    name: 'fake',
    title: 'Fake',
    summary: 'a lab that only plans',
    episode: 'episodes/none.mdx',
    variants: [],
    learnerFiles: [],
    baseline: 'base',
    sweeps: [],
    headline: { variant: 'head', params: {} },
    inputParams: [],
    inputs: () => ({ check: [], measure: null }),
    expected: () => null,
    comparator: { description: 'never called', compare: () => ({ equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null }) },
    workPerSample: () => ({ amount: 1, unit: 'things' }),
    cases: () => cases,
    sampling: { quick: SAMPLING, full: SAMPLING },
    planning: { calibrate: () => ({ msPerUnit: 1 }), courseMachine: { msPerUnit: 1 }, inputsMs: () => 1000 },
    ...(grading ? { grading } : {}),
  };
}

test('a plan adds set-up, check and (warm-up + rounds x iterations) samples per case, inputs once, and the harness', () => {
  const lab = fakeLab([fakeCase('base', 100), fakeCase('head', 300)]);
  const plan = planRun(lab, CTX, SAMPLING, { msPerUnit: 1 });
  // Reference: per case 100 set-up + (50 + 1 sample) check + (1 + 10 x 2) samples:
  //   base 100 + 150 + 21 x 100 = 2350; head 100 + 350 + 21 x 300 = 6750; inputs 1000; harness 6000 + 2 x 150.
  assert.equal(plan.totalMs, 2350 + 6750 + 1000 + HARNESS_MS.perRun + 2 * HARNESS_MS.perCase);
  assert.deepEqual(plan.unestimated, []);
  // Twice as slow a machine (the calibration says so): every case's part doubles.
  assert.equal(planRun(lab, CTX, SAMPLING, { msPerUnit: 2 }).totalMs - plan.totalMs, 21 * 400 + 400);
});

test("a graded run's plan counts its forks: rounds raised to F, each graded pair's other forks' set-up, check and warm-up, the discarded sample before each round, and the runners they add", () => {
  const lab = fakeLab([fakeCase('base', 100), fakeCase('head', 300), fakeCase('graded', 200)], { cases: () => [{ variant: 'graded', params: {} }], target: 0.9, targetText: 'at least 0.9' });
  const three: SamplingPlan = { warmupSamples: 1, rounds: 3, samplesPerRound: 2 };
  const plan = planRun(lab, CTX, three, { msPerUnit: 1 }, { grade: true });
  assert.equal(GRADE_FORKS, 5);
  assert.equal(plan.sampling.rounds, 5, 'a round for each fork (quick native-kernel plans 3)');
  // Reference at 5 rounds: per case 100 set-up + (50 + 1 sample) check + (1 + 5 x 2) samples:
  //   base 100 + 150 + 11 x 100 = 1350; head 100 + 350 + 11 x 300 = 3750; graded 100 + 250 + 11 x 200 = 2550, and
  //   its 4 other forks' 100 + 250 + 1 x 200 = 550 each (2200) and 5 discarded samples (1000): 5750, twice (the
  //   learner's and the solution's copy); inputs 1000; harness 4000 + 4 x 100 + 2 x 4 runners x 500.
  assert.equal(plan.totalMs, 1350 + 3750 + 2 * 5750 + 1000 + HARNESS_MS.perRun + 4 * HARNESS_MS.perCase + 8 * HARNESS_MS.perRunner);
  // Two forks (a test's RunJob.forks): the plan's own 3 rounds, one other fork each.
  const two = planRun(lab, CTX, three, { msPerUnit: 1 }, { grade: true, forks: 2 });
  assert.equal(two.sampling.rounds, 3);
  // A fit keeps a round for each fork: never below F.
  assert.equal(fitToBudget(plan, 1).plan.sampling.rounds, 5);
});

test("the judge's whole fetches of outputs over 4 MiB are planned: the measured one's in the check and per sample, each other check output's once", () => {
  const big = (outputBytes: number, checkOutputBytes: number[]) =>
    fakeCase('head', 300, { estimate: () => ({ sampleMs: 300, setupMs: 100, checkMs: 50, outputBytes, checkOutputBytes }) });
  const plain = planRun(fakeLab([fakeCase('base', 100), fakeCase('head', 300)]), CTX, SAMPLING, { msPerUnit: 1 });
  // Reference (whole-output.ts, 5 ns a byte): a 2^19 + 3 element check output, 4,194,328 bytes, 20.97164 ms once; the
  // 2 MiB and 40-byte ones are sent whole, nothing. The measured 8 MiB output: 41.94 ms in the check and in each of
  // the 21 samples after it.
  const checkOnly = planRun(fakeLab([fakeCase('base', 100), big(1024, [40, 2 * 2 ** 20, 8 * (2 ** 19 + 3)])]), CTX, SAMPLING, { msPerUnit: 1 });
  assert.equal((checkOnly.totalMs - plain.totalMs).toPrecision(4), '20.97');
  const both = planRun(fakeLab([fakeCase('base', 100), big(8 * 2 ** 20, [8 * (2 ** 19 + 3)])]), CTX, SAMPLING, { msPerUnit: 1 });
  assert.equal((both.totalMs - plain.totalMs).toPrecision(5), (20.97164 + 22 * 41.94304).toPrecision(5));
});

test('a run over budget gets fewer rounds, never below 3, and says so', () => {
  const lab = fakeLab([fakeCase('base', 1000), fakeCase('head', 1000)]);
  const asked = planRun(lab, CTX, SAMPLING, { msPerUnit: 1 });
  // 2 cases x (1 + 2r) samples of 1 s + 2 x 1.15 s + 1 s + 4.2 s: r = 10 gives 49.5 s; 40 s allows r = 7 (37.5 s).
  const fit = fitToBudget(asked, 40_000);
  assert.equal(fit.plan.sampling.rounds, 7);
  assert.ok(fit.withinBudget);
  assert.ok(fit.plan.totalMs <= 40_000 && fit.asked.totalMs > 40_000);
  assert.equal(describeFit(fit), `planned: 2 cases, about ${formatDuration(fit.plan.totalMs)} (P = 4); rounds reduced from 10 to 7 to stay within 40 s`);

  // Far over: the fewest rounds, and the line says it is still over.
  const over = fitToBudget(asked, 5_000);
  assert.equal(over.plan.sampling.rounds, MIN_ROUNDS);
  assert.equal(over.withinBudget, false);
  assert.match(describeFit(over), /rounds reduced from 10 to 3, and still over the 5 s budget: expect a longer run$/);

  // Within budget: nothing changes, and nothing is said about it.
  assert.equal(describeFit(fitToBudget(asked, 60_000)), 'planned: 2 cases, about 50 s (P = 4)');
});

test('at the fewest rounds the optional cases go, the longest first, never the baseline, the headline or (grading) a graded case', () => {
  const cases = [
    fakeCase('base', 1000, { optional: true }),
    fakeCase('head', 1000, { optional: true }),
    fakeCase('slow', 4000, { optional: true }),
    fakeCase('graded', 3000, { optional: true }),
    fakeCase('cheap', 100, { optional: true }),
    fakeCase('kept', 2000),
  ];
  const lab = fakeLab(cases, { cases: () => [{ variant: 'graded', params: {} }], target: 0.9, targetText: 'at least 0.9' });
  const asked = planRun(lab, CTX, SAMPLING, { msPerUnit: 1 });
  assert.deepEqual(asked.cases.filter((c) => c.optional).map((c) => c.key), [caseKey({ variant: 'slow', params: {} }), caseKey({ variant: 'graded', params: {} }), caseKey({ variant: 'cheap', params: {} })]);
  // At 3 rounds each case takes 0.15 s + (1 + 1 + 6) samples: 95.3 s in all; leaving out 'slow' (32.15 s) fits 70 s.
  const fit = fitToBudget(asked, 70_000);
  assert.deepEqual(fit.omitted.map((c) => c.label), ['slow']);
  assert.ok(fit.withinBudget);
  assert.match(describeFit(fit), /rounds reduced from 10 to \d+ and 1 optional case left out \(slow\) to stay within 1 min 10 s$/);

  // In a --grade run the graded case is kept (and planned twice: the learner's and the reference's).
  const graded = planRun(lab, CTX, SAMPLING, { msPerUnit: 1 }, { grade: true });
  assert.deepEqual(graded.cases.filter((c) => c.optional).map((c) => c.key), [caseKey({ variant: 'slow', params: {} }), caseKey({ variant: 'cheap', params: {} })]);
  assert.deepEqual(graded.cases.filter((c) => c.label.startsWith('graded')).map((c) => c.label), ['graded', 'graded [solution]']);
});

test('a case without an estimate is counted as nothing and named; parallel work divides by min(workers, P)', () => {
  const lab = fakeLab([fakeCase('base', 100), { ...fakeCase('head', 100), estimate: undefined } as CaseDefinition<unknown, unknown>]);
  const plan = planRun(lab, CTX, SAMPLING, { msPerUnit: 1 });
  assert.deepEqual(plan.unestimated, ['head']);
  assert.match(describeFit(fitToBudget(plan, 300_000)), /\(P = 4; 1 case\(s\) without an estimate not counted\)$/);
  assert.equal(parallelMs(800, 2, 4), 400);
  assert.equal(parallelMs(800, 16, 4), 200); // workers past P add no rate
  assert.throws(() => rateOf({ other: 1 }, 'msPerUnit'), /the calibration has no positive rate 'msPerUnit' \(it has: other\); the lab's planning.calibrate must measure it/);
});

test('planned durations read as people say them', () => {
  assert.deepEqual([400, 42_000, 60_000, 130_400, 3_600_000, 3_930_000].map(formatDuration), ['0 s', '42 s', '1 min', '2 min 10 s', '1 h', '1 h 6 min']);
});

test('npm run lab runs the plan: fewer rounds, an optional case left out, the plan in the notes', async (t) => {
  const root = tempRoot('workflow-root', 'harness-plan-', t);
  const file = path.join(root, 'labs', 'sums', 'src', 'lab.ts');
  // The fixture lab with estimates of 1.5 s per sample (its samples really take about a millisecond), 'mine'
  // optional, and 6 quick rounds: over the 90 s quick budget until it has 3 rounds and no 'mine'.
  const source = readFileSync(file, 'utf8')
    .replace(
      '    ...(workers === undefined ? {} : { workers }),\n',
      "    ...(workers === undefined ? {} : { workers }),\n    estimate: () => ({ sampleMs: 1500 }),\n    ...(name === 'mine' ? { optional: true } : {}),\n",
    )
    .replace('quick: { warmupSamples: 3, rounds: 2, samplesPerRound: 4 },', 'quick: { warmupSamples: 3, rounds: 6, samplesPerRound: 4 },')
    .replace(/\n};\n\nexport default lab;/, '\n  planning: { calibrate: () => ({}), courseMachine: {} },\n};\n\nexport default lab;');
  assert.match(source, /optional: true[\s\S]*rounds: 6[\s\S]*planning: /, 'the fixture was edited as intended');
  writeFileSync(file, source);
  const planned = await planLab({ lab: 'sums', impl: 'solution', quick: true, p: 2, seed: 1, rootDir: root, rates: 'here' });
  assert.ok(planned);
  assert.equal(planned.fit.asked.sampling.rounds, 6);
  assert.deepEqual(planned.omit, [caseKey({ variant: 'mine', params: {} })]);
  assert.equal(planned.sampling.rounds, 3);

  const outcome = await runLab({ lab: 'sums', impl: 'solution', quick: true, rootDir: root, outDir: path.join(root, 'results'), silent: true, cpus: 2 });
  assert.equal(outcome.exitCode, 0, outcome.summary);
  const results = outcome.results!;
  assert.deepEqual(results.cases.map((c) => c.variant).sort(), ['loop', 'split', 'split']);
  assert.ok(results.cases.every((c) => c.samplesMs.length === 3 * 4), 'each case: 3 rounds of 4 samples');
  assert.ok(
    results.notes.some((n) => /^Planned run time: about .* for 3 cases at P = 2 \(from each case's work per sample and the lab's estimates\); rounds reduced from 6 to 3 and 1 optional case left out \(mine\) to stay within 1 min 30 s\.$/.test(n)),
    results.notes.join('\n'),
  );
});

test("npm run plan -- --grade plans every graded lab's graded run: its forks counted, at least GRADE_FORKS rounds; a lab with nothing to grade as before", async () => {
  // The course machine's rates, as the command uses them (the GPU lab plans its CPU devices).
  const savedCuda = process.env.CUDA_VISIBLE_DEVICES;
  process.env.CUDA_VISIBLE_DEVICES = '';
  const [practice, graded] = await Promise.all([planRows([2], 'course', ROOT_DIR), planRows([2], 'course', ROOT_DIR, true)]).finally(() => {
    if (savedCuda === undefined) delete process.env.CUDA_VISIBLE_DEVICES;
    else process.env.CUDA_VISIBLE_DEVICES = savedCuda;
  });
  for (const [i, row] of graded.entries()) {
    const lab = await loadLab(row.lab, ROOT_DIR);
    const [asked, quick] = [practice[i]!.plans[0]!.quick, row.plans[0]!.quick];
    if (!asked || !quick) continue;
    if (!lab.grading) {
      assert.equal(quick.fit.plan.totalMs, asked.fit.plan.totalMs, `${row.lab}: nothing to grade, planned as a practice run`);
      continue;
    }
    assert.ok(quick.fit.plan.totalMs > asked.fit.plan.totalMs, `${row.lab}: a graded run costs more`);
    assert.ok(quick.sampling.rounds >= GRADE_FORKS, `${row.lab}: ${quick.sampling.rounds} rounds`);
    assert.equal(quick.fit.plan.forks, GRADE_FORKS);
  }
});
