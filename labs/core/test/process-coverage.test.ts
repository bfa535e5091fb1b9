/**
 * Coverage by simulation of the grade's interval over pairs of processes (statistics/processes.ts): does the 95 %
 * interval of median(solution) / median(learner) contain the true ratio about 95 % of the time when each side runs in
 * F fresh processes whose speed differs from process to process?
 *
 * Two-level synthetic data with a known answer: in round r (of F * K, round r in process pair r mod F) the solution
 * takes 60 * THETA * d_r * a_p * exp(c Z) ms and the learner 60 * d_r * b_p * exp(c Z), so the true ratio is THETA:
 * a per-process effect on each side of its own (a_p, b_p = exp(s Z'), mean log 0, independent per process and side),
 * within-process noise c, drift between rounds common to both sides (d_r = 1 or 1.55 with probability 1/2, as
 * coverage.test's). s = 0, 0.03, 0.06 (session 19 measured 0.057 for the log ratio of a pair, about 0.04 a side),
 * c = 0.02, 0.1, 0.3, F = 3, 5, 8; each trial draws K (rounds a process, 1 to 4) and m (samples a round, 2 to 4).
 * Plus one learner process 2.7 times slow for its whole life (seen once in four quiet runs), and two-valued samples:
 * each sample, either side, 1.5 times slow with probability 0.3 (task-granularity's graded pool, session 20: one
 * round's two samples 35.6 then 50.6 ms), not lognormal noise.
 *
 * Monte Carlo error: 1500 trials a configuration, one standard error 0.0056 at 0.95, so the 0.93 bar is 3.5 standard
 * errors below the nominal level (about 2 in 10 000 a configuration by chance). Seeded: the same table on every run.
 * The bootstraps' rows (the methods not chosen, at the configuration where they fall short) use 300 trials and 500
 * resamples; processes.ts's header has the whole selection table.
 */
// npm test starts this file early: its simulation computes for about 3 s (more on a busy machine).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRng, processRatioInterval, roundBootstrapRatioCi, type ProcessTaggedCase } from '@parallel-course/core';
import { percentileInterval, rankSamples, tallyDraws, tallyMedian } from '../src/statistics/bootstrap.ts';

const TRIALS = 1500;
const THETA = 1.3;
const SLOW_ROUND = 1.55;
const SLOW_PROCESS = 2.7;
const BAR = 0.93;

/** Standard normal draws from a seeded uniform generator (Box-Muller, as coverage.test's). */
function normal(uniform: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

interface Config {
  s: number;
  c: number;
  forks: number;
  /** Rounds a process and samples a round; drawn per trial (1-4, 2-4) when absent. */
  k?: number;
  m?: number;
  /** One learner process this many times slow. */
  slowProcess?: number;
  /** Each sample this many times slow with this probability, on either side (two-valued samples). */
  spike?: { p: number; factor: number };
}

function makeTrial(config: Config, uniform: () => number, z: () => number): { solution: ProcessTaggedCase & { samplesMs: number[] }; learner: ProcessTaggedCase & { samplesMs: number[] } } {
  const k = config.k ?? 1 + Math.floor(uniform() * 4);
  const m = config.m ?? 2 + Math.floor(uniform() * 3);
  const a = Array.from({ length: config.forks }, () => Math.exp(config.s * z()));
  const b = Array.from({ length: config.forks }, () => Math.exp(config.s * z()));
  if (config.slowProcess !== undefined) b[0] = (b[0] as number) * config.slowProcess;
  const side = () => ({ samplesMs: [] as number[], sampleRounds: [] as number[], sampleProcesses: [] as number[] });
  const solution = side();
  const learner = side();
  for (let r = 0; r < config.forks * k; r++) {
    const p = r % config.forks;
    const d = uniform() < 0.5 ? SLOW_ROUND : 1;
    for (let j = 0; j < m; j++) {
      for (const [target, speed] of [[solution, 60 * THETA * (a[p] as number)], [learner, 60 * (b[p] as number)]] as const) {
        const spike = config.spike && uniform() < config.spike.p ? config.spike.factor : 1;
        target.samplesMs.push(speed * d * spike * Math.exp(config.c * z()));
        target.sampleRounds.push(r);
        target.sampleProcesses.push(p);
      }
    }
  }
  return { solution, learner };
}

/**
 * The three-stage percentile bootstrap (pairs of processes, then rounds within a drawn pair, then samples within a
 * drawn round; the ratio of the resample's medians): a candidate not chosen, here to show where it falls short.
 */
function threeStageInterval(solution: ProcessTaggedCase, learner: ProcessTaggedCase, forks: number, rng: () => number, resamples: number): [number, number] {
  const order = (c: ProcessTaggedCase) => c.samplesMs.map((_, i) => i).sort((i, j) => (c.sampleProcesses[i] as number) - (c.sampleProcesses[j] as number) || (c.sampleRounds[i] as number) - (c.sampleRounds[j] as number));
  const grouped = (c: ProcessTaggedCase) => {
    const idx = order(c);
    const cells: { process: number; start: number; count: number }[] = [];
    idx.forEach((i, at) => {
      const last = cells[cells.length - 1];
      if (last && last.process === c.sampleProcesses[i] && c.sampleRounds[idx[at - 1] as number] === c.sampleRounds[i]) last.count++;
      else cells.push({ process: c.sampleProcesses[i] as number, start: at, count: 1 });
    });
    return { ranked: rankSamples(idx.map((i) => c.samplesMs[i] as number)), cells };
  };
  const x = grouped(solution);
  const y = grouped(learner);
  const statistics = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let nx = 0;
    let ny = 0;
    for (let slot = 0; slot < forks; slot++) {
      const p = Math.floor(rng() * forks);
      const xs = x.cells.filter((cell) => cell.process === p);
      const ys = y.cells.filter((cell) => cell.process === p);
      for (let j = 0; j < xs.length; j++) {
        const q = Math.floor(rng() * xs.length);
        tallyDraws('threeStage', rng, x.ranked, xs[q]!.start, xs[q]!.count);
        nx += xs[q]!.count;
        tallyDraws('threeStage', rng, y.ranked, ys[q]!.start, ys[q]!.count);
        ny += ys[q]!.count;
      }
    }
    statistics[b] = tallyMedian(x.ranked, nx) / tallyMedian(y.ranked, ny);
  }
  return percentileInterval(statistics);
}

interface Tally {
  covered: number;
  logWidth: number;
  trials: number;
}

function tally(intervals: Iterable<[number, number]>): Tally {
  const t: Tally = { covered: 0, logWidth: 0, trials: 0 };
  for (const [low, high] of intervals) {
    if (low <= THETA && THETA <= high) t.covered++;
    t.logWidth += Math.log(high / low);
    t.trials++;
  }
  return t;
}

function* trials(config: Config, seed: number, count: number) {
  const uniform = createRng(seed);
  const z = normal(uniform);
  for (let i = 0; i < count; i++) yield makeTrial(config, uniform, z);
}

function row(cells: (string | number)[]): string {
  return cells.map((c, i) => String(c).padStart(i === 0 ? 22 : i === 4 ? 11 : 9)).join('');
}

const cell = (t: Tally) => [t.trials, (t.covered / t.trials).toFixed(3), (t.logWidth / t.trials).toFixed(3)];

test(`the t interval over pairs of processes covers >= ${BAR} on two-level data (${TRIALS} trials a configuration); the bootstraps fall short with 3 pairs`, (t) => {
  const lines = [row(['method', 's', 'c', 'F', 'K x m', 'trials', 'coverage', 'width'])];
  const failures: string[] = [];
  for (const s of [0, 0.03, 0.06]) {
    for (const c of [0.02, 0.1, 0.3]) {
      for (const forks of [3, 5, 8]) {
        const config = { s, c, forks };
        const result = tally([...trials(config, 1_000_000 * s + 1000 * c + forks, TRIALS)].map(({ solution, learner }) => processRatioInterval(solution, learner).ci95));
        lines.push(row(['t over pairs', s, c, forks, '1-4 x 2-4', ...cell(result)]));
        if (result.covered / result.trials < BAR) failures.push(`s=${s} c=${c} F=${forks}: ${result.covered / result.trials}`);
      }
    }
  }
  // One learner process 2.7 times slow: covered, and wider than without it.
  const narrower: string[] = [];
  for (const forks of [3, 5, 8]) {
    const config = { s: 0.03, c: 0.1, forks, k: 2, m: 3 };
    const seed = 7_000 + forks;
    const plain = tally([...trials(config, seed, TRIALS)].map(({ solution, learner }) => processRatioInterval(solution, learner).ci95));
    const slow = tally([...trials({ ...config, slowProcess: SLOW_PROCESS }, seed, TRIALS)].map(({ solution, learner }) => processRatioInterval(solution, learner).ci95));
    lines.push(row(['t over pairs', 0.03, 0.1, forks, '2 x 3', ...cell(plain)]));
    lines.push(row(['  one process 2.7x', 0.03, 0.1, forks, '2 x 3', ...cell(slow)]));
    if (slow.covered / slow.trials < BAR) failures.push(`one process 2.7x slow, F=${forks}: ${slow.covered / slow.trials}`);
    if (slow.logWidth <= 2 * plain.logWidth) narrower.push(`F=${forks}`);
  }
  // Two-valued samples: the t interval needs each pair's log ratio roughly normal, not each sample.
  for (const forks of [3, 5, 8]) {
    const config = { s: 0.03, c: 0.1, forks, spike: { p: 0.3, factor: 1.5 } };
    const result = tally([...trials(config, 8_000 + forks, TRIALS)].map(({ solution, learner }) => processRatioInterval(solution, learner).ci95));
    lines.push(row(['  samples 1.5x, p 0.3', 0.03, 0.1, forks, '1-4 x 2-4', ...cell(result)]));
    if (result.covered / result.trials < BAR) failures.push(`two-valued samples, F=${forks}: ${result.covered / result.trials}`);
  }
  // The candidates not chosen, where pairs are few and the process effect dominates: with one round a process the two
  // bootstraps are the same method; with two, the two-stage one counts the drift between a process's rounds as noise.
  const short: string[] = [];
  for (const [k, m] of [[1, 4], [2, 3]] as const) {
    const few = { s: 0.06, c: 0.02, forks: 3, k, m };
    const data = [...trials(few, 99 + k, 300)];
    const tOver = tally(data.map(({ solution, learner }) => processRatioInterval(solution, learner).ci95));
    const two = tally(data.map(({ solution, learner }, i) => roundBootstrapRatioCi(solution.samplesMs, solution.sampleProcesses, learner.samplesMs, learner.sampleProcesses, createRng(i + 1), 500)));
    const three = tally(data.map(({ solution, learner }, i) => threeStageInterval(solution, learner, few.forks, createRng(i + 1), 500)));
    lines.push(row(['t over pairs', few.s, few.c, few.forks, `${k} x ${m}`, ...cell(tOver)]));
    lines.push(row(['two-stage bootstrap', few.s, few.c, few.forks, `${k} x ${m}`, ...cell(two)]));
    lines.push(row(['three-stage bootstrap', few.s, few.c, few.forks, `${k} x ${m}`, ...cell(three)]));
    if (three.covered / three.trials >= BAR) short.push(`three-stage, ${k} x ${m}: ${three.covered / three.trials}`);
    if (k === 1 && two.covered / two.trials >= BAR) short.push(`two-stage, ${k} x ${m}: ${two.covered / two.trials}`);
  }
  t.diagnostic(['coverage of the 95% interval of the grade ratio over pairs of processes (true ratio 1.3); width = mean ln(high / low)', ...lines].join('\n'));
  assert.deepEqual(failures, [], `coverage below ${BAR}`);
  assert.deepEqual(narrower, [], 'one process 2.7x slow should at least double the interval (log width)');
  assert.deepEqual(short, [], 'the bootstraps were expected to fall short of the bar with 3 pairs');
});
