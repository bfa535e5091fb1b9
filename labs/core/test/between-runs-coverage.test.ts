/**
 * Coverage by simulation of the between-run verdict (statistics/between-runs.ts, issue 43): does the 95 % interval of
 * the ratio of a variant's speedups in two runs contain the true ratio 95 % of the time, within 2 percentage points,
 * when the machine drifts between the runs and between the rounds of a run?
 *
 * Synthetic pairs of runs with a known answer. In run j (earlier, current), round k, the baseline takes
 * 100 D_j d_k exp(SIGMA Z) ms and the variant 100 / THETA_j D_j d_k exp(TAU Z_k) exp(SIGMA Z) ms, so the true ratio of
 * the speedups is THETA_current / THETA_earlier = 2.0 / 1.7. The drift:
 * - between runs, D_j = exp(RUN_DRIFT_SIGMA Z): the whole machine faster or slower for one run, the size measured on
 *   the course's VM (EXPERIMENTS below);
 * - between rounds, d_k = 1 or 1.55 with probability 1/2, common to the round's two cases (a vCPU switching between
 *   about 62 and 97 ms for the same work, as measured before; test/coverage.test.ts in the harness uses the same);
 * - and drift that does not cancel: the variant alone slowed by exp(TAU Z_k) in round k (contention that hits a
 *   parallel variant more than a serial baseline), TAU = 0 or 0.05.
 * Configurations: 3 rounds (a quick run), 6 and 15 (full runs: task-granularity has 6, native-kernel 15) of 1, 2 or 4
 * samples each, at sample noise SIGMA = 0.05 with TAU = 0.05, and SIGMA = 0.15 with TAU = 0.
 *
 * Monte Carlo error: with T = 4000 pairs per configuration the standard error of a coverage near 0.95 is
 * sqrt(0.95 x 0.05 / 4000) = 0.0034, so the +-0.02 band is about 6 standard errors wide. Welch's interval errs on
 * the wide side at 3 rounds a run (2 to 4 degrees of freedom): about 0.964 for normal data with equal spreads in both
 * runs (20 000 simulated pairs while choosing), 0.944 when one run's spread is 4 times the other's; the table's rows for
 * 3 rounds sit there. The generator is seeded: the table is the same on every machine.
 * For contrast the table also shows the verdict `--compare` gave before (compareSamples: the bootstrap interval of the
 * variant's time ratio between the runs) on 200 pairs per configuration, against the same truth: drift between runs
 * moves it off.
 *
 * EXPERIMENTS (the drift measured, 2026-12-06, AMD EPYC, 2 vCPUs shared with seven other sessions' builds and tests):
 * `npm run lab -- task-granularity --impl solution --quick --seed 42` run 7 times, 07:06 to 08:12 UTC, 10 minutes
 * apart; 1-minute load average at the start 0.8, 13.5, 19.6, 32.1, 15.9, 15.8 and 6.8.
 * - The serial baseline of the headline (8 388 608 points): medians 46.4, 216.5, 224.8, 297.7, 217.9, 173.7 and
 *   204.9 ms: 6.4 times apart, sd of ln(median) 0.61 between runs (0.51 over the run's four baseline cases), where a
 *   quick run's own 95% interval of that median spans about +-0.5 in ln. RUN_DRIFT_SIGMA below is that 0.6.
 * - The speedups themselves moved too: sd of ln(speedup) between runs 0.61 over 18 speedups, most of it between the
 *   quiet first run and the loaded ones (a 2-worker pool cannot get 2 CPUs at load 15).
 * - Same code, every pair of runs, cases with a speedup: this method judged 69 of 378 "faster" or "slower" (18%), the
 *   time comparison it replaces 127 of 462 (27%); among the six runs at load 6.8 to 32 alone, 18 of 270 (6.7%) against
 *   41 of 330 (12%). The drift that is common to a run cancels; a change of the CPUs left free between runs does not,
 *   and no within-run interval can see it: the second test shows that limit, and --compare names a changed load.
 */
// npm test starts this file early: its simulation computes for a few seconds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareSamples, compareSpeedupsBetweenRuns, createRng } from '../src/statistics.ts';

/**
 * The sd of ln(baseline median) between repeated quick runs on the course's VM (see EXPERIMENTS): the run-to-run drift
 * of the whole machine, 0.61 measured.
 */
const RUN_DRIFT_SIGMA = 0.6;
const PAIRS = 4000;
const OLD_METHOD_PAIRS = 200;
const TARGET = 0.95;
const BAND = 0.02;
const THETA_EARLIER = 1.7;
const THETA_CURRENT = 2.0;
const TRUTH = THETA_CURRENT / THETA_EARLIER;
const SLOW_ROUND = 1.55;

/** Standard normal draws from a seeded uniform generator (Box-Muller; Box and Muller, Ann. Math. Stat. 29, 1958). */
function normal(uniform: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

interface Config {
  rounds: number;
  perRound: number;
  sigma: number;
  tau: number;
  /** Drift of the speedup itself for a whole run (sd in ln; 0 in the asserted rows): see the second test. */
  runSpeedupSigma?: number;
}

interface SimRun {
  baseline: { samplesMs: number[]; sampleRounds: number[] };
  variant: { samplesMs: number[]; sampleRounds: number[] };
}

function simulateRun(config: Config, theta: number, uniform: () => number, z: () => number): SimRun {
  const drift = Math.exp(RUN_DRIFT_SIGMA * z());
  // A change of the CPUs left free for this whole run: the variant alone, every round alike.
  const runSpeedup = Math.exp((config.runSpeedupSigma ?? 0) * z());
  const run: SimRun = { baseline: { samplesMs: [], sampleRounds: [] }, variant: { samplesMs: [], sampleRounds: [] } };
  for (let k = 0; k < config.rounds; k++) {
    const d = drift * (uniform() < 0.5 ? SLOW_ROUND : 1);
    const variantOnly = Math.exp(config.tau * z());
    for (let j = 0; j < config.perRound; j++) {
      run.baseline.samplesMs.push(100 * d * Math.exp(config.sigma * z()));
      run.baseline.sampleRounds.push(k);
      run.variant.samplesMs.push((100 / theta) * d * runSpeedup * variantOnly * Math.exp(config.sigma * z()));
      run.variant.sampleRounds.push(k);
    }
  }
  return run;
}

const CONFIGS: Config[] = [3, 6, 15].flatMap((rounds) =>
  [1, 2, 4].flatMap((perRound) => [{ sigma: 0.05, tau: 0.05 }, { sigma: 0.15, tau: 0 }].map((noise) => ({ rounds, perRound, ...noise }))),
);

function cell(value: string | number, width: number): string {
  return String(value).padStart(width);
}

test(`the between-run interval covers the true ratio at ${TARGET} +- ${BAND} with drift (${PAIRS} pairs per configuration)`, (t) => {
  const lines = [
    ['rounds', 'per round', 'sigma', 'tau', 'pairs', 'coverage', 'width', 'old method'].map((c, i) => cell(c, i === 7 ? 12 : 10)).join(''),
  ];
  const outside: string[] = [];
  let oldWorst = 1;
  for (const [index, config] of CONFIGS.entries()) {
    const uniform = createRng(4300 + index);
    const z = normal(uniform);
    let covered = 0;
    let logWidth = 0;
    let oldCovered = 0;
    for (let pair = 0; pair < PAIRS; pair++) {
      const earlier = simulateRun(config, THETA_EARLIER, uniform, z);
      const current = simulateRun(config, THETA_CURRENT, uniform, z);
      const { ci95 } = compareSpeedupsBetweenRuns(earlier, current);
      if (ci95[0] <= TRUTH && TRUTH <= ci95[1]) covered++;
      logWidth += Math.log(ci95[1] / ci95[0]);
      if (pair < OLD_METHOD_PAIRS && config.perRound * config.rounds >= 4) {
        const old = compareSamples(earlier.variant.samplesMs, current.variant.samplesMs, createRng(pair + 1), 500);
        if (old.ci95[0] <= TRUTH && TRUTH <= old.ci95[1]) oldCovered++;
      }
    }
    const coverage = covered / PAIRS;
    const oldText = config.perRound * config.rounds >= 4 ? (oldCovered / OLD_METHOD_PAIRS).toFixed(3) : '-';
    if (oldText !== '-') oldWorst = Math.min(oldWorst, oldCovered / OLD_METHOD_PAIRS);
    lines.push(
      [config.rounds, config.perRound, config.sigma, config.tau, PAIRS, coverage.toFixed(4), (logWidth / PAIRS).toFixed(3)]
        .map((c) => cell(c, 10))
        .join('') + cell(oldText, 12),
    );
    if (Math.abs(coverage - TARGET) > BAND) outside.push(`${JSON.stringify(config)}: ${coverage}`);
  }
  t.diagnostic(
    [
      `coverage of the 95% between-run interval of a speedup ratio (true ratio ${TRUTH.toFixed(4)}; run drift sd ${RUN_DRIFT_SIGMA} in ln, round drift 1 or ${SLOW_ROUND});`,
      'width = mean ln(high / low); old method = the bootstrap interval of the time ratio between the runs',
      ...lines,
    ].join('\n'),
  );
  assert.deepEqual(outside, [], `coverage outside ${TARGET} +- ${BAND}`);
  // The time ratio between runs is not the speedup ratio once the machine drifts: its coverage collapses somewhere.
  assert.ok(oldWorst < 0.8, `the old method should miss the truth under drift between runs; its worst coverage was ${oldWorst}`);
});

test('the limit: a drift of the speedup itself for a whole run is not covered (why --compare names a changed load)', (t) => {
  // Not a target: it documents what no within-run interval can see. With the run-level sd of the speedup at 0.1 and
  // 0.3 (ln), coverage falls well below 0.95; the measured same-code pairs at very different loads behaved so.
  const lines: string[] = [];
  let worst = 1;
  for (const [index, runSpeedupSigma] of [0.1, 0.3].entries()) {
    const config: Config = { rounds: 6, perRound: 2, sigma: 0.05, tau: 0.05, runSpeedupSigma };
    const uniform = createRng(4400 + index);
    const z = normal(uniform);
    let covered = 0;
    const pairs = 1000;
    for (let pair = 0; pair < pairs; pair++) {
      const { ci95 } = compareSpeedupsBetweenRuns(simulateRun(config, THETA_EARLIER, uniform, z), simulateRun(config, THETA_CURRENT, uniform, z));
      if (ci95[0] <= TRUTH && TRUTH <= ci95[1]) covered++;
    }
    worst = Math.min(worst, covered / pairs);
    lines.push(`run-level speedup drift sd ${runSpeedupSigma}: coverage ${(covered / pairs).toFixed(3)} (${pairs} pairs, 6 rounds of 2)`);
  }
  t.diagnostic(lines.join('\n'));
  assert.ok(worst < 0.9, `a run-level drift of the speedup should break the coverage; worst was ${worst}`);
});
