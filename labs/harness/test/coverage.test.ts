/**
 * Coverage by simulation: do the harness's 95 % intervals contain the truth about 95 % of the time at the sample
 * counts the labs take (8 to 20 samples per case, rounds of 1 to 4 samples)?
 *
 * Synthetic data with a known answer: in round k of K, the baseline takes 60 * THETA * d_k * exp(SIGMA * Z) ms and the
 * variant 60 * d_k * exp(SIGMA * Z) ms (Z standard normal, independent per sample), so the true speedup is THETA.
 * (a) no drift: d_k = 1; (b) drift between rounds: d_k = 1 or 1.55 with probability 1/2 each, common to both cases
 * of the round, as when the course machine's vCPU switched between about 62 and 97 ms for the same work.
 *
 * Monte Carlo error: with T trials the standard error of a coverage p is sqrt(p (1 - p) / T): 0.0069 for p = 0.95 and
 * T = 1000, 0.0089 for T = 600. The paired method runs 600 trials in each of the 26 configurations (a method at the
 * nominal 0.95 would fall below the 0.93 bar with probability about 1 % per configuration, 2.2 standard errors; the
 * paired method sits at 0.95 to 1.00, see the table); the independent method 300 trials under drift only (its width
 * is what is compared); the single median 1000 trials. The generator is seeded, so the table is the same on every run
 * and machine. The bootstrap uses 1000 resamples per interval instead of the harness's 10 000 to keep the test under
 * 20 s on two slow CPUs; the resample count adds noise to each interval's ends but barely moves the coverage
 * (Davison and Hinkley 1997, §5.2.3; 2.5 % of 1000 leaves 25 resamples beyond each end).
 *
 * What it shows (quotable: the test prints the table):
 * - the paired two-stage bootstrap over rounds (statistics/rounds.ts) covers at least 0.93 in every configuration,
 *   with and without drift;
 * - under drift the independent resampling it replaces gives intervals about twice as wide (and up to ten times as
 *   wide with quieter samples), since it mixes fast rounds of one case with slow rounds of the other. Its coverage
 *   does not fall: with drift common to both cases it errs on the wide side (about 0.99). Where it falls short is a
 *   single median: the percentile interval of a median of 8 to 20 samples under-covers even without drift, which is
 *   why a case's median now gets the order-statistic interval (statistics/order-statistic.ts).
 * A single median under drift has no interval here: the samples of a round are not independent there, and neither
 * method is built for it (the `noisy` flag marks such a case; speedups are paired precisely because of it).
 */
// npm test starts this file early: its simulations compute for about 15 s; started late, the run would end waiting for it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootstrapMedianCi, bootstrapRatioCi, createRng, orderStatisticMedianCi, roundBootstrapRatioCi } from '@parallel-course/core';

const PAIRED_TRIALS = 600;
const INDEPENDENT_TRIALS = 300;
const MEDIAN_TRIALS = 1000;
const RESAMPLES = 1000;
const THETA = 1.7;
const SIGMA = 0.1;
const SLOW = 1.55;
const BAR = 0.93;
/** Samples per case and samples per round: the labs' quick and full samplings fall in this range. */
const CONFIGS = [8, 12, 16, 20].flatMap((n) => [1, 2, 3, 4].filter((m) => n % m === 0).map((perRound) => ({ n, perRound })));

/** Standard normal draws from a seeded uniform generator (Box-Muller; Box and Muller, Ann. Math. Stat. 29, 1958). */
function normal(uniform: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

interface Trial {
  baseline: number[];
  variant: number[];
  rounds: number[];
}

function makeTrial(n: number, perRound: number, drift: boolean, uniform: () => number, z: () => number): Trial {
  const baseline: number[] = [];
  const variant: number[] = [];
  const rounds: number[] = [];
  for (let k = 0; k < n / perRound; k++) {
    const d = drift && uniform() < 0.5 ? SLOW : 1;
    for (let j = 0; j < perRound; j++) {
      baseline.push(60 * THETA * d * Math.exp(SIGMA * z()));
      variant.push(60 * d * Math.exp(SIGMA * z()));
      rounds.push(k);
    }
  }
  return { baseline, variant, rounds };
}

interface Tally {
  covered: number;
  logWidth: number;
}

function record(tally: Tally, [low, high]: [number, number], truth: number): void {
  if (low <= truth && truth <= high) tally.covered++;
  tally.logWidth += Math.log(high / low);
}

function row(cells: (string | number)[]): string {
  return cells.map((c, i) => String(c).padStart(i === 0 ? 14 : 10)).join('');
}

test(`paired ratio intervals cover >= ${BAR} with and without drift (${PAIRED_TRIALS} trials, ${RESAMPLES} resamples)`, (t) => {
  const lines = [row(['method', 'drift', 'n', 'per round', 'trials', 'coverage', 'width'])];
  const failures: string[] = [];
  const tooNarrowGain: string[] = [];
  for (const drift of [false, true]) {
    for (const { n, perRound } of CONFIGS) {
      const uniform = createRng(1_000 * n + 10 * perRound + (drift ? 1 : 0));
      const z = normal(uniform);
      const paired: Tally = { covered: 0, logWidth: 0 };
      const independent: Tally = { covered: 0, logWidth: 0 };
      for (let trial = 0; trial < PAIRED_TRIALS; trial++) {
        const { baseline, variant, rounds } = makeTrial(n, perRound, drift, uniform, z);
        record(paired, roundBootstrapRatioCi(baseline, rounds, variant, rounds, createRng(trial + 1), RESAMPLES), THETA);
        if (drift && trial < INDEPENDENT_TRIALS) {
          record(independent, bootstrapRatioCi(baseline, variant, createRng(trial + 1), RESAMPLES), THETA);
        }
      }
      const label = drift ? 'drift' : 'none';
      const tallies = drift ? ([['paired rounds', paired, PAIRED_TRIALS], ['independent', independent, INDEPENDENT_TRIALS]] as const) : ([['paired rounds', paired, PAIRED_TRIALS]] as const);
      for (const [method, tally, trials] of tallies) {
        lines.push(row([method, label, n, perRound, trials, (tally.covered / trials).toFixed(3), (tally.logWidth / trials).toFixed(3)]));
      }
      if (paired.covered / PAIRED_TRIALS < BAR) failures.push(`${label} n=${n} perRound=${perRound}: ${paired.covered / PAIRED_TRIALS}`);
      // Under drift the independent interval is the wide one: at least 1.5 times the paired width (log scale), as means
      // over the same first trials.
      if (drift && independent.logWidth / INDEPENDENT_TRIALS < (1.5 * paired.logWidth) / PAIRED_TRIALS) tooNarrowGain.push(`n=${n} perRound=${perRound}`);
    }
  }
  const table = ['coverage of the 95% interval of a speedup (true ratio 1.7); width = mean ln(high / low)', ...lines].join('\n');
  t.diagnostic(table);
  assert.deepEqual(failures, [], `paired coverage below ${BAR}`);
  assert.deepEqual(tooNarrowGain, [], 'under drift the independent interval should be at least 1.5 times as wide');
});

test(`the order-statistic interval of a median covers >= ${BAR}; the percentile bootstrap falls short`, (t) => {
  const lines = [row(['method', 'drift', 'n', '', 'trials', 'coverage', 'width'])];
  const failures: string[] = [];
  let percentileShort = 0;
  for (const n of [8, 12, 16, 20]) {
    const uniform = createRng(77 * n);
    const z = normal(uniform);
    const order: Tally = { covered: 0, logWidth: 0 };
    const percentile: Tally = { covered: 0, logWidth: 0 };
    for (let trial = 0; trial < MEDIAN_TRIALS; trial++) {
      // The true median of 60 exp(SIGMA Z) is 60.
      const xs = Array.from({ length: n }, () => 60 * Math.exp(SIGMA * z()));
      record(order, orderStatisticMedianCi(xs), 60);
      record(percentile, bootstrapMedianCi(xs, createRng(trial + 1), RESAMPLES), 60);
    }
    const share = (tally: Tally) => [(tally.covered / MEDIAN_TRIALS).toFixed(3), (tally.logWidth / MEDIAN_TRIALS).toFixed(3)];
    lines.push(row(['order-statistic', 'none', n, '', MEDIAN_TRIALS, ...share(order)]));
    lines.push(row(['percentile', 'none', n, '', MEDIAN_TRIALS, ...share(percentile)]));
    if (order.covered / MEDIAN_TRIALS < BAR) failures.push(`n=${n}: ${order.covered / MEDIAN_TRIALS}`);
    if (percentile.covered / MEDIAN_TRIALS < BAR) percentileShort++;
  }
  const table = ['coverage of the 95% interval of one median (true median 60 ms)', ...lines].join('\n');
  t.diagnostic(table);
  assert.deepEqual(failures, [], `order-statistic coverage below ${BAR}`);
  assert.ok(percentileShort >= 1, 'the percentile bootstrap of a median should fall short at some n from 8 to 20');
});
