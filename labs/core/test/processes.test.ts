/**
 * The grade's interval over pairs of processes (statistics/processes.ts) on hand-computed values, and in the grade: a
 * forked graded run is graded over its pairs of processes, one slow process widens the interval, validate recomputes
 * it, and a file without processes grades as before.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  analyzeRun,
  checkResults,
  parseResultsJson,
  processPairLogRatios,
  processRatioInterval,
  recompute,
  sameProcessCells,
  StatisticsInputError,
  studentTQuantile,
  type AnalysisInput,
  type Results,
} from '@parallel-course/core';

const close = (a: number, b: number, digits = 4) => assert.ok(Math.abs(a - b) < 10 ** -digits, `${a} vs ${b}`);

test('processPairLogRatios: per pair, the mean over its rounds of the rounds\' log-median ratios', () => {
  // Reference (processes.ts): pair 0 = mean(ln 4 - ln 2, (ln 9 + ln 1) / 2 - ln 3) = mean(ln 2, 0); pair 1 = ln 6 - ln 3.
  const numerator = { samplesMs: [4, 4, 9, 1, 6], sampleRounds: [0, 0, 1, 1, 2], sampleProcesses: [0, 0, 0, 0, 1] };
  const denominator = { samplesMs: [2, 2, 3, 3, 3], sampleRounds: [0, 0, 1, 1, 2], sampleProcesses: [0, 0, 0, 0, 1] };
  const [first, second] = processPairLogRatios(numerator, denominator);
  close(first!, Math.log(2) / 2, 12);
  close(second!, Math.log(2), 12);
  // The order of the samples does not matter, only their cells.
  const shuffled = { samplesMs: [6, 1, 4, 9, 4], sampleRounds: [2, 1, 0, 1, 0], sampleProcesses: [1, 0, 0, 0, 0] };
  assert.deepEqual(processPairLogRatios(shuffled, denominator), processPairLogRatios(numerator, denominator));
});

test('processRatioInterval: the geometric mean of the pairs\' ratios, inside its t interval (F - 1 degrees of freedom)', () => {
  // Two pairs with l = [0, ln 2]: ratio sqrt 2; se = ln 2 / 2; t(0.975, 1) = 12.7062.
  const numerator = { samplesMs: [3, 3, 6, 6], sampleRounds: [0, 0, 1, 1], sampleProcesses: [0, 0, 1, 1] };
  const denominator = { samplesMs: [3, 3, 3, 3], sampleRounds: [0, 0, 1, 1], sampleProcesses: [0, 0, 1, 1] };
  const { ratio, ci95, pairs, best } = processRatioInterval(numerator, denominator);
  close(ratio, Math.SQRT2, 12);
  // The best pair's ratio: exp(max l) = exp(ln 2) = 2.
  close(best, 2, 12);
  close(studentTQuantile(0.975, 1), 12.7062);
  close(ci95[0], Math.exp(Math.log(2) / 2 - 12.7062047 * (Math.log(2) / 2)));
  close(ci95[1], Math.exp(Math.log(2) / 2 + 12.7062047 * (Math.log(2) / 2)), 2);
  close(ci95[0], 0.0173, 5);
  close(ci95[1], 115.61, 1);
  assert.equal(pairs, 2);
  // Every pair the same: the interval is the point.
  const same = processRatioInterval({ ...numerator, samplesMs: [6, 6, 6, 6] }, denominator);
  assert.deepEqual([same.ratio, same.ci95], [2, [2, 2]]);
});

test('processRatioInterval refuses what it cannot pair, naming the problem', () => {
  const a = { samplesMs: [1, 2, 3, 4], sampleRounds: [0, 0, 1, 1], sampleProcesses: [0, 0, 1, 1] };
  const oneProcess = { ...a, sampleProcesses: [0, 0, 0, 0] };
  assert.equal(sameProcessCells(a, a), true);
  assert.equal(sameProcessCells(oneProcess, oneProcess), false, 'one process has no pairs to vary');
  assert.equal(sameProcessCells(a, { ...a, sampleProcesses: [1, 1, 0, 0] }), false, 'process i beside process i');
  assert.throws(() => processRatioInterval(oneProcess, oneProcess), /processPairLogRatios: the two cases were not measured in the same processes and rounds/);
  assert.throws(() => processRatioInterval({ ...a, samplesMs: [0, 2, 3, 4] }, a), (e: unknown) => e instanceof StatisticsInputError && /sample of 0 ms or less/.test(e.message));
  assert.throws(() => processRatioInterval({ ...a, sampleProcesses: [0, 0, 1] }, a), /numerator\.sampleProcesses has 3 entries for 4 samples/);
});

/**
 * A forked graded case: the solution graded against itself, 5 pairs of processes, 2 rounds a process (round r in
 * process r mod 5), 3 samples a round, 2 % noise, and learner process `slow` (if any) 2.7 times slower.
 */
function forkedInputs(slow: number | null, seed = 1, learnerFactor = 1, slowFactor = 2.7): AnalysisInput[] {
  let state = seed;
  const noise = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return 1 + 0.04 * (state / 2147483648 - 0.5);
  };
  const make = (variant: string, params: Record<string, string>, slowProcess: number | null): AnalysisInput => {
    const samplesMs: number[] = [];
    const sampleRounds: number[] = [];
    const sampleProcesses: number[] = [];
    for (let r = 0; r < 10; r++) {
      for (let j = 0; j < 3; j++) {
        samplesMs.push(10 * (variant === 'learner' && params['impl'] === undefined ? learnerFactor : 1) * (r % 5 === slowProcess ? slowFactor : 1) * noise());
        sampleRounds.push(r);
        sampleProcesses.push(r % 5);
      }
    }
    return { variant, params, samplesMs, sampleRounds, sampleProcesses, workPerSample: { amount: 1, unit: 'op' }, observations: {} };
  };
  return [make('loop', {}, null), make('learner', {}, slow), make('learner', { impl: 'solution' }, null)];
}

const GRADING = { cases: [{ variant: 'learner', params: {} }], target: 0.9, targetText: 'at least 0.9 of the solution' };
const gradeOf = (inputs: AnalysisInput[]) =>
  analyzeRun(inputs, { baseline: 'loop', headline: { variant: 'learner', params: {} }, seed: 7, resamples: 2000, availableParallelism: 2, grading: GRADING }).grade!.entries[0]!;

test('a forked grade where one of five learner processes read 2.7x slow: the interval over pairs widens and keeps the truth', () => {
  const quiet = gradeOf(forkedInputs(null));
  const slow = gradeOf(forkedInputs(3));
  assert.equal(slow.pairing, 'processes');
  const logWidth = (e: typeof slow) => Math.log(e.ci95![1] / e.ci95![0]);
  // The same code on both sides: the true ratio is 1. One slow process of five moves the ratio by about 0.99 / 5 in
  // ln, and widens the interval by t(0.975, 4) times that on each side.
  assert.ok(slow.ci95![0] <= 1 && 1 <= slow.ci95![1], `1 in ${JSON.stringify(slow.ci95)}`);
  assert.ok(slow.ci95![0] <= slow.ratio! && slow.ratio! <= slow.ci95![1]);
  assert.ok(logWidth(slow) > 10 * logWidth(quiet), `widths ${logWidth(slow)} vs ${logWidth(quiet)}`);
  assert.ok(logWidth(slow) > 0.8, `width ${logWidth(slow)}: t(0.975, 4) * 2 * 0.99 / 5 = 1.1`);
  // The benefit of the doubt: an interval reaching the target is a pass, marked uncertain when it straddles it.
  assert.deepEqual([slow.passed, slow.uncertain], [true, true]);
  assert.deepEqual([quiet.passed, quiet.uncertain, quiet.pairing], [true, false, 'processes']);
});

test('a learner below the target cannot pass by slowing one of its own processes on purpose (no pair reached the target)', () => {
  // A learner at 1 / 1.5 = 0.67 and 1 / 2 = 0.5 of the solution, target 0.9: honestly it fails. Slowing its process 3
  // by 3x to 7x (code that draws, when it starts, whether to sleep in its calls) lowered that pair's log ratio by
  // ln 3 to ln 7; the t interval's top rose by about 0.36 of that at F = 5 and reached 0.92 to 1.39: a pass, uncertain,
  // before noPairReached (review, session 20). Its best pair stays at the honest 0.67 or 0.5.
  let reached = 0;
  for (const learnerFactor of [1.5, 2]) {
    const honest = gradeOf(forkedInputs(null, 1, learnerFactor));
    assert.equal(honest.passed, false);
    for (const slowFactor of [3, 5, 7]) {
      const slowed = gradeOf(forkedInputs(3, 1, learnerFactor, slowFactor));
      assert.equal(slowed.pairing, 'processes');
      assert.equal(slowed.passed, false, `learner at 1/${learnerFactor}, one process ${slowFactor}x slower: ${JSON.stringify(slowed)}`);
      if (slowed.ci95![1] >= 0.9 && slowed.ci95![1] / slowed.ci95![0] <= 10) {
        reached++;
        assert.match(slowed.reason ?? '', /^no pair of processes reached the target: your best process ran at 0\.[56]\d of the solution's beside it, below 0\.90/);
      }
    }
  }
  assert.ok(reached >= 3, `${reached} of 6 slowed intervals reached the target: the case this test is for`);
  // The solution against itself with one process 2.7x slow still passes (its other pairs reach the target).
  assert.equal(gradeOf(forkedInputs(3)).passed, true);
});

test('without sampleProcesses (or with one process) a grade is resampled by round as before, its ratio median / median', () => {
  const stripped = forkedInputs(3).map(({ sampleProcesses: _p, ...rest }) => rest);
  const entry = gradeOf(stripped);
  assert.equal(entry.pairing, 'rounds');
  const [, learner, solution] = stripped;
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  assert.equal(entry.ratio, median(solution!.samplesMs) / median(learner!.samplesMs));
  const oneProcess = forkedInputs(3).map((i) => ({ ...i, sampleProcesses: i.samplesMs.map(() => 0) }));
  assert.deepEqual(gradeOf(oneProcess), entry);
});

test('validate recomputes a forked grade: a hand-edited ratio or interval fails, the recomputed file is valid', () => {
  // The committed graded fixture (version 4, 3 rounds of 2 samples), its cases given processes: round r in process r mod 3.
  const text = readFileSync(new URL('../../harness/test/fixtures/results-graded-v4.json', import.meta.url), 'utf8');
  const original = parseResultsJson(text, 'results-graded-v4.json');
  const forked: Results = { ...original, cases: original.cases.map((c) => ({ ...c, sampleProcesses: c.sampleRounds.map((r) => r % 3) })) };
  // The grade recorded before (rounds) does not recompute once the samples say which process took them.
  assert.ok(checkResults(forked).some((p) => p.startsWith('grade.entries[0].pairing is "rounds" but the samples give "processes"')), JSON.stringify(checkResults(forked)));
  const regraded: Results = { ...forked, grade: recompute(forked).grade };
  assert.equal(regraded.grade!.entries[0]!.pairing, 'processes');
  assert.deepEqual(checkResults(regraded), []);
  const round = parseResultsJson(JSON.stringify(regraded), 'forked.json');
  assert.deepEqual(checkResults(round), []);
  const edit = (change: (e: NonNullable<Results['grade']>['entries'][number]) => void) => {
    const copy = structuredClone(regraded);
    change(copy.grade!.entries[0]!);
    return checkResults(copy);
  };
  assert.ok(edit((e) => (e.ratio = e.ratio! * 1.01)).some((p) => p.startsWith('grade.entries[0].ratio is')));
  assert.ok(edit((e) => (e.ci95 = [e.ci95![0], e.ci95![1] * 1.5])).some((p) => p.startsWith('grade.entries[0].ci95[1] is')));
  // Rounds regrouped into other processes, every number recomputed from them: the file is not what the harness writes
  // (round r in process r mod F), so it is not valid (review, session 20: valid before, whichever grouping graded best).
  const regrouped = structuredClone(regraded);
  for (const c of regrouped.cases) if (c.sampleProcesses) c.sampleProcesses = c.sampleRounds.map((r) => (r < 2 ? 0 : 1));
  const again = recompute(regrouped);
  Object.assign(regrouped, { cases: again.cases, speedups: again.speedups, amdahl: again.amdahl, headline: again.headline, grade: again.grade });
  const problems = checkResults(regrouped);
  assert.ok(
    problems.some((p) => /^cases\[\d+\] \(.+\)\.sampleProcesses are not the harness's forks: sample 2 \(round 1\) is in process 0, where round r of 2 processes is in process r mod 2/.test(p)),
    JSON.stringify(problems),
  );
  // sampleProcesses are raw data: edited, the grade no longer recomputes.
  const moved = structuredClone(regraded);
  moved.cases[1]!.sampleProcesses = moved.cases[1]!.sampleRounds.map(() => 0);
  assert.ok(checkResults(moved).some((p) => p.startsWith('grade.entries[0]')), JSON.stringify(checkResults(moved)));
});
