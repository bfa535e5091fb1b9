/**
 * Unit tests of the verdict statistics (issue 43): Student's t, Welch's interval, the per-round log speedups and the
 * between-run comparison, and verdicts by the interval of a ratio or difference (MOVER). Every expected value is
 * computed by hand and quoted as "Reference: ...".
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StatisticsInputError,
  compareEstimates,
  compareSpeedupsBetweenRuns,
  logGamma,
  moverDifferenceCi,
  moverRatioCi,
  roundLogSpeedups,
  scalingNotes,
  studentTCdf,
  studentTQuantile,
  welchInterval,
} from '../src/statistics.ts';
import type { SpeedupEntry } from '../src/results-schema.ts';

function near(actual: number, expected: number, tolerance = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected} +- ${tolerance}, got ${actual}`);
}

describe("Student's t", () => {
  test('logGamma matches closed forms', () => {
    // Reference: Gamma(1/2) = sqrt(pi), Gamma(5) = 4! = 24, Gamma(1) = 1.
    near(logGamma(0.5), 0.5 * Math.log(Math.PI), 1e-12);
    near(logGamma(5), Math.log(24), 1e-12);
    near(logGamma(1), 0, 1e-12);
  });

  test('quantiles match the closed forms of df = 1 and df = 2 and the normal limit', () => {
    // Reference: df = 1 is Cauchy: t(0.975) = tan(0.475 pi) = 12.7062047...
    near(studentTQuantile(0.975, 1), Math.tan(0.475 * Math.PI), 1e-9);
    // Reference: df = 2: t(p) = (2p - 1) / sqrt(2 p (1 - p)) = 0.95 / sqrt(0.04875) = 4.3026527...
    near(studentTQuantile(0.975, 2), 0.95 / Math.sqrt(2 * 0.975 * 0.025), 1e-9);
    near(studentTQuantile(0.9, 2), 0.8 / Math.sqrt(2 * 0.9 * 0.1), 1e-9);
    // Reference: the normal's 97.5 % point, 1.959963985 (Abramowitz and Stegun table 26.5).
    near(studentTQuantile(0.975, Infinity), 1.959963985, 1e-8);
    // Reference: tables (Abramowitz and Stegun 26.10): df = 4 -> 2.776445, df = 10 -> 2.228139.
    near(studentTQuantile(0.975, 4), 2.776445, 1e-6);
    near(studentTQuantile(0.975, 10), 2.228139, 1e-6);
    // Symmetry.
    near(studentTQuantile(0.025, 3.5), -studentTQuantile(0.975, 3.5), 1e-12);
    assert.equal(studentTQuantile(0.5, 7), 0);
  });

  test('the cdf inverts the quantile, also at fractional df', () => {
    for (const df of [0.7, 1.5, 3.3, 12.4, 150]) near(studentTCdf(studentTQuantile(0.975, df), df), 0.975, 1e-12);
    // Reference: df = 1: P(T <= 1) = 1/2 + atan(1) / pi = 0.75.
    near(studentTCdf(1, 1), 0.75, 1e-12);
  });

  test('bad arguments are named', () => {
    assert.throws(() => studentTQuantile(1, 3), /p must be a probability strictly between 0 and 1, got 1/);
    assert.throws(() => studentTQuantile(0.9, 0), /df \(degrees of freedom\) must be a number > 0, got 0/);
  });
});

describe('welchInterval', () => {
  test('equal sizes and variances: df = nx + ny - 2', () => {
    // Reference: x = [0, 2], y = [3, 5]: difference 3, var 2 each, se = sqrt(2/2 + 2/2) = sqrt 2, df = 2,
    // interval 3 -+ 4.3026527 x 1.4142136 = [-3.0848698, 9.0848698].
    const w = welchInterval([0, 2], [3, 5]);
    near(w.difference, 3);
    near(w.standardError, Math.SQRT2);
    near(w.df, 2);
    near(w.ci95[0], 3 - 4.3026527297494 * Math.SQRT2, 1e-9);
    near(w.ci95[1], 3 + 4.3026527297494 * Math.SQRT2, 1e-9);
  });

  test('unequal variances: the Welch-Satterthwaite df', () => {
    // Reference: x = [1, 2, 3] (var 1, /3 = 1/3), y = [10, 14] (var 8, /2 = 4): se^2 = 13/3,
    // df = (13/3)^2 / ((1/3)^2 / 2 + 4^2 / 1) = 18.7778 / 16.0556 = 1.16955.
    const w = welchInterval([1, 2, 3], [10, 14]);
    near(w.difference, 10);
    near(w.standardError, Math.sqrt(13 / 3));
    near(w.df, (13 / 3) ** 2 / ((1 / 3) ** 2 / 2 + 16), 1e-12);
  });

  test('needs two values a side', () => {
    assert.throws(() => welchInterval([1], [2, 3]), /each set needs at least 2 values for a spread, got 1 and 2; measure more rounds/);
  });
});

describe('roundLogSpeedups and compareSpeedupsBetweenRuns', () => {
  test('one log speedup per round, from the medians of the logs', () => {
    // Reference: round 0: ln 4 - ln 2 = ln 2; round 1: (ln 9 + ln 1) / 2 - ln 3 = ln 3 - ln 3 = 0.
    const l = roundLogSpeedups({ samplesMs: [4, 4, 9, 1], sampleRounds: [0, 0, 1, 1] }, { samplesMs: [2, 2, 3, 3], sampleRounds: [0, 0, 1, 1] });
    near(l[0] as number, Math.LN2);
    near(l[1] as number, 0, 1e-15);
  });

  test('a machine twice as slow in one run cancels; the speedup change is measured', () => {
    // Earlier run: baseline 8, 8.8 ms; variant 4, 4 ms (rounds 0, 1): log speedups ln 2, ln 2.2.
    // This run, all times doubled (drift) and the variant 10 % faster still: variant 8/1.1, 8/1.1 ->
    // log speedups ln 2.2, ln 2.42. Difference of means = ln 1.1; se^2 = (var{ln 2, ln 2.2} + var{ln 2.2, ln 2.42}) / 2
    // with both variances (ln 1.1)^2 / 2: se = ln(1.1) / sqrt 2, df = 2, interval ln 1.1 -+ 4.30265 ln(1.1) / sqrt 2.
    const earlier = { baseline: { samplesMs: [8, 8.8], sampleRounds: [0, 1] }, variant: { samplesMs: [4, 4], sampleRounds: [0, 1] } };
    const current = { baseline: { samplesMs: [16, 17.6], sampleRounds: [0, 1] }, variant: { samplesMs: [8 / 1.1, 8 / 1.1], sampleRounds: [0, 1] } };
    const c = compareSpeedupsBetweenRuns(earlier, current);
    near(c.ratio, 1.1, 1e-12);
    near(c.df, 2, 1e-9);
    const half = 4.3026527297494 * (Math.log(1.1) / Math.SQRT2);
    near(c.ci95[0], Math.exp(Math.log(1.1) - half), 1e-9);
    near(c.ci95[1], Math.exp(Math.log(1.1) + half), 1e-9);
    near(c.earlierSpeedup, Math.sqrt(2 * 2.2), 1e-12);
    assert.equal(c.verdict, 'within-noise'); // two rounds a side cannot tell 10 % from this spread
    assert.deepEqual(c.rounds, { earlier: 2, current: 2 });
  });

  test('a clear change with a quiet spread is a verdict', () => {
    // Per-round speedups 2, 2.02, 1.98 before and 3, 3.03, 2.97 after: ratio about 1.5, se about 0.0095 (log).
    const run = (s: number[]) => ({
      baseline: { samplesMs: s.map((x) => 10 * x), sampleRounds: [0, 1, 2] },
      variant: { samplesMs: [10, 10, 10], sampleRounds: [0, 1, 2] },
    });
    const c = compareSpeedupsBetweenRuns(run([2, 2.02, 1.98]), run([3, 3.03, 2.97]));
    assert.equal(c.verdict, 'faster');
    assert.equal(compareSpeedupsBetweenRuns(run([3, 3.03, 2.97]), run([2, 2.02, 1.98])).verdict, 'slower');
  });

  test('refuses a run with fewer than 2 common rounds, and cases from different rounds', () => {
    const one = { baseline: { samplesMs: [8, 9], sampleRounds: [0, 0] }, variant: { samplesMs: [4, 4], sampleRounds: [0, 0] } };
    assert.throws(() => compareSpeedupsBetweenRuns(one, one), /at least 2 common rounds for a spread, got 1 and 1/);
    const apart = { baseline: { samplesMs: [8, 9], sampleRounds: [0, 1] }, variant: { samplesMs: [4, 4], sampleRounds: [2, 3] } };
    assert.throws(() => compareSpeedupsBetweenRuns(apart, apart), StatisticsInputError);
    assert.throws(
      () => roundLogSpeedups({ samplesMs: [0, 1], sampleRounds: [0, 1] }, { samplesMs: [1, 1], sampleRounds: [0, 1] }),
      /sample of 0 ms or less, which has no logarithm/,
    );
  });
});

describe('verdicts by the interval of a ratio or difference (MOVER)', () => {
  test('MOVER difference and ratio', () => {
    // Reference: a = 10 [8, 12], b = 7 [6, 9]: [3 - sqrt(2^2 + 2^2), 3 + sqrt(2^2 + 1^2)] = [0.171573, 5.236068].
    const d = moverDifferenceCi(10, [8, 12], 7, [6, 9]);
    near(d[0], 3 - Math.sqrt(8));
    near(d[1], 3 + Math.sqrt(5));
    // Reference: a = 2 [1.6, 2.5], b = 1.6 [1.4, 1.8]: ln 1.25 -+ ..., [0.971244, 1.621236].
    const r = moverRatioCi(2, [1.6, 2.5], 1.6, [1.4, 1.8]);
    near(r[0], Math.exp(Math.log(1.25) - Math.hypot(Math.log(2 / 1.6), Math.log(1.8 / 1.6))));
    near(r[1], Math.exp(Math.log(1.25) + Math.hypot(Math.log(2.5 / 2), Math.log(1.6 / 1.4))));
    near(r[0], 0.971244, 1e-6);
  });

  test('overlapping intervals can still differ: the ratio decides', () => {
    // a = 10 [9, 11], b = 8.4 [7.4, 9.4]: the intervals overlap (9 < 9.4), yet ln(10/8.4) = 0.1744 and the lower
    // half-width is hypot(ln(10/9), ln(9.4/8.4)) = hypot(0.1054, 0.1125) = 0.1541 < 0.1744: a is more.
    const c = compareEstimates({ value: 10, ci95: [9, 11] }, { value: 8.4, ci95: [7.4, 9.4] });
    assert.equal(c.scale, 'ratio');
    assert.equal(c.verdict, 'more');
    near(c.estimate as number, 10 / 8.4);
    assert.equal(compareEstimates({ value: 8.4, ci95: [7.4, 9.4] }, { value: 10, ci95: [9, 11] }).verdict, 'less');
    assert.equal(compareEstimates({ value: 10, ci95: [8, 12] }, { value: 9.5, ci95: [8, 11] }).verdict, 'level');
  });

  test('a planted pair without intervals gives no verdict, however far apart', () => {
    // 05-event-loop's pooled-ping p99s as they were rendered: 7.52 against 5.79 ms, no intervals.
    const c = compareEstimates({ value: 7.52, ci95: null }, { value: 5.79, ci95: null });
    assert.equal(c.verdict, 'unknown');
    assert.equal(c.ci95, null);
    assert.match(c.reason ?? '', /a and b have no 95% interval, so the difference cannot be told from noise: no direction is given/);
    // One side without: still none (08-gpu-batching: 1.17 [1.17, 1.4] against a bound of 1.16 with no interval).
    assert.equal(compareEstimates({ value: 1.2, ci95: [1.17, 1.4] }, { value: 1.16, ci95: null }).verdict, 'unknown');
  });

  test('a constant named by the text is exact', () => {
    // Reference: a speedup 1.3 [1.1, 1.5] against b = 1 (a constant): ratio interval [1.1, 1.5], more.
    const c = compareEstimates({ value: 1.3, ci95: [1.1, 1.5] }, { value: 1, ci95: null }, { bIsConstant: true });
    assert.deepEqual(c.ci95, [1.1, 1.5]);
    assert.equal(c.verdict, 'more');
  });

  test('values that can be 0 or negative are compared by their difference', () => {
    // Karp-Flatt values: -0.05 [-0.1, 0] against 0.1 [0.05, 0.15]: d = -0.15, upper end -0.15 + hypot(0.05, 0.05).
    const c = compareEstimates({ value: -0.05, ci95: [-0.1, 0] }, { value: 0.1, ci95: [0.05, 0.15] });
    assert.equal(c.scale, 'difference');
    near((c.ci95 as [number, number])[1], -0.15 + Math.hypot(0.05, 0.05));
    assert.equal(c.verdict, 'less');
  });

  test('an interval with swapped ends is refused; one that leaves out its value adds nothing on that side', () => {
    assert.throws(() => compareEstimates({ value: 5, ci95: [7, 6] }, { value: 1, ci95: [0.5, 2] }), /a\.ci95 must be finite numbers with low <= high, got \[7, 6\]/);
    // Reference: a = 5 [6, 7] (a percentile interval above its point), b = 1 [1, 1]: d = 4, lower end 4 - hypot(0, 0).
    assert.deepEqual(moverDifferenceCi(5, [6, 7], 1, [1, 1]), [4, 6]);
  });
});

describe('scalingNotes (fits only where the data carry them)', () => {
  const entry = (workers: number, efficiency: number, karpFlatt?: number): SpeedupEntry =>
    ({
      variant: 'pool',
      baseline: 'serial',
      baselineParams: {},
      params: { workers },
      speedup: efficiency * workers,
      ci95: [efficiency * workers * 0.9, efficiency * workers * 1.1],
      pairing: 'rounds',
      baselineMedianMs: 10,
      variantMedianMs: 10 / (efficiency * workers),
      workers,
      efficiency,
      efficiencyCi95: [efficiency * 0.9, efficiency * 1.1],
      ...(karpFlatt === undefined ? {} : { karpFlatt }),
      oversubscribed: false,
    }) as SpeedupEntry;

  test('a P = 2 sweep: no fit, and why; an efficiency above 1 with its causes', () => {
    // Reference: efficiency 1.1 [0.99, 1.21] at 2 workers, Karp-Flatt (1/2.2 - 1/2) / (1/2) = -0.0909.
    const notes = scalingNotes({ speedups: [entry(1, 1), entry(2, 1.1, 1 / 2.2 / 0.5 - 1)], amdahl: [], availableParallelism: 2 });
    assert.equal(notes.length, 2);
    assert.match(notes[0]!, /^pool \(workers=2\): efficiency 110%, above 1 .*Karp-Flatt serial fraction -0\.091 is negative.*its interval \[0\.99, 1\.2\] reaches 1, so noise alone may explain it\. Superlinear speedups are rarely real; the usual causes: a slow one-worker baseline/);
    assert.match(notes[1]!, /^pool: no Amdahl fit\. Up to P = 2 the sweep has 1 worker count above 1, and a one-parameter fit needs at least 2/);
  });

  test('two free points: no "no fit" note; a fit names its maximum as extrapolated', () => {
    const fit = { variant: 'pool', param: 'workers', params: {}, serialFraction: 0.1, maxSpeedup: 10, rmse: 0, points: 3 };
    const notes = scalingNotes({ speedups: [entry(1, 1), entry(2, 0.9), entry(4, 0.8)], amdahl: [fit], availableParallelism: 4 });
    assert.deepEqual(notes, ["pool: the Amdahl fit's maximum speedup, 1 / f = 10x, is extrapolated, not measured: the sweep measured up to 4 workers."]);
  });
});
