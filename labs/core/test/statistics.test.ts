/**
 * Unit tests of the statistics stage. Every expected value is computed by hand (or, for the PRNG, by an independent
 * port) and quoted beside its assertion as "Reference: ...".
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AMDAHL_MIN_FREE_POINTS,
  StatisticsInputError,
  amdahlFit,
  amdahlFreePoints,
  amdahlSpeedup,
  bootstrapMedianCi,
  bootstrapRatioCi,
  compareSamples,
  createRng,
  cv,
  efficiency,
  gustafsonSpeedup,
  iqr,
  karpFlatt,
  mad,
  mean,
  median,
  medianCiRanks,
  NOISY_ROBUST_CV,
  orderStatisticMedianCi,
  outliers,
  quantile,
  robustCv,
  roundBootstrapRatioCi,
  sameRoundSet,
  sd,
  sorted,
  speedup,
  summarize,
} from '../src/statistics.ts';
import { percentileInterval, rankSamples, selectInPlace, tallyMedian } from '../src/statistics/bootstrap.ts';

/** Equal within an absolute tolerance (floating-point results of hand-computed fractions). */
function near(actual: number, expected: number, tolerance = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected} +- ${tolerance}, got ${actual}`);
}

/** A stub generator that returns the given values in order, then fails: pins the bootstrap's draw order. */
function scripted(values: number[]): () => number {
  let i = 0;
  return () => {
    const value = values[i++];
    if (value === undefined) throw new Error(`scripted rng: drew more than the ${values.length} values it was given`);
    return value;
  };
}

/** Skewed, timing-like samples (ms): a floor of 10 plus an exponential tail of mean 1, from a seeded generator. */
function timings(n: number, seed: number, scale = 1): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => scale * (10 - Math.log(1 - rng())));
}

describe('createRng (mulberry32)', () => {
  test('matches an independent port of mulberry32', () => {
    // Reference: first three outputs for seed 42 and seed 0, from a Python port using explicit mod-2^32 arithmetic.
    const rng = createRng(42);
    assert.deepEqual([rng(), rng(), rng()], [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
    const zero = createRng(0);
    assert.deepEqual([zero(), zero(), zero()], [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197]);
  });

  test('is reproducible for a seed, differs between seeds, and reduces the seed modulo 2^32', () => {
    const draw = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 5 }, rng);
    };
    assert.deepEqual(draw(7), draw(7));
    assert.notDeepEqual(draw(7), draw(8));
    // Reference: (2^32 + 42) | 0 = 42.
    assert.deepEqual(draw(2 ** 32 + 42), draw(42));
  });

  test('stays in [0, 1) with a mean near 1/2', () => {
    const rng = createRng(1);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      const u = rng();
      assert.ok(u >= 0 && u < 1, `draw ${i} = ${u} is outside [0, 1)`);
      sum += u;
    }
    // Reference: the mean of 10 000 uniforms has sd 0.2887 / 100 = 0.0029; 0.01 is 3.5 sd.
    near(sum / 10_000, 0.5, 0.01);
  });

  test('rejects a seed that is not an integer', () => {
    assert.throws(() => createRng(1.5), /createRng: seed must be an integer, got 1.5/);
    assert.throws(() => createRng(Number.NaN), StatisticsInputError);
  });
});

describe('descriptive statistics', () => {
  test('sorted returns an ascending numeric copy', () => {
    const input = [10, 9, 100];
    // Reference: numeric order [9, 10, 100] (the default string sort would give [10, 100, 9]).
    assert.deepEqual(sorted(input), [9, 10, 100]);
    assert.deepEqual(input, [10, 9, 100], 'the input is not modified');
    // Reference: sorting nothing gives nothing (unlike the statistics, which need a sample).
    assert.deepEqual(sorted([]), []);
    assert.throws(() => sorted([2, Number.NaN]), /sorted: xs\[1\] is NaN; every sample must be a finite number/);
  });

  test('quantile interpolates between order statistics (R-7)', () => {
    const xs = [10, 20, 30, 40];
    // Reference: q = 0 is the minimum, q = 1 the maximum.
    assert.equal(quantile(xs, 0), 10);
    assert.equal(quantile(xs, 1), 40);
    // Reference: q = 0.5, h = 3 * 0.5 = 1.5, 20 + 0.5 * (30 - 20) = 25.
    assert.equal(quantile(xs, 0.5), 25);
    // Reference: q = 0.25, h = 0.75, 10 + 0.75 * 10 = 17.5.
    assert.equal(quantile(xs, 0.25), 17.5);
    // Reference: q = 0.9, h = 2.7, 30 + 0.7 * 10 = 37.
    near(quantile(xs, 0.9), 37);
    // Reference: 51 samples 1..51, q = 0.9, h = 50 * 0.9 = 45 exactly: the 46th smallest, 46, with no interpolation
    // (the judge's round-trip bound over its 51 calibration trips, labs/harness/src/measure/judge-clock.ts upperTrip).
    assert.equal(quantile(Array.from({ length: 51 }, (_, i) => i + 1), 0.9), 46);
    // Reference: one sample is every quantile.
    assert.equal(quantile([5], 0.3), 5);
  });

  test('quantile rejects unsorted input, q outside [0, 1] and empty input', () => {
    assert.throws(() => quantile([3, 1, 2], 0.5), /quantile: sortedXs must be in ascending order, but sortedXs\[0\] = 3 > sortedXs\[1\] = 1; pass sorted\(xs\)/);
    assert.throws(() => quantile([1, 2], 1.5), /quantile: q must be between 0 and 1 \(0.5 is the median\), got 1.5/);
    assert.throws(() => quantile([1, 2], Number.NaN), /got NaN/);
    assert.throws(() => quantile([], 0.5), /quantile: sortedXs is empty; pass at least one sample/);
  });

  test('median, mean', () => {
    // Reference: median([1,3,2,4]) = (2 + 3) / 2 = 2.5; median([5,1,3]) = 3.
    assert.equal(median([1, 3, 2, 4]), 2.5);
    assert.equal(median([5, 1, 3]), 3);
    // Reference: mean([1,2,3]) = 6 / 3 = 2; mean([1,2,3,4]) = 10 / 4 = 2.5.
    assert.equal(mean([1, 2, 3]), 2);
    assert.equal(mean([1, 2, 3, 4]), 2.5);
  });

  test('sd is the sample standard deviation (n - 1), 0 for one sample', () => {
    // Reference: mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, 32 / 7 = 4.571428..., sqrt = 2.1380899353.
    near(sd([2, 4, 4, 4, 5, 5, 7, 9]), 2.1380899353);
    // Reference: mean 2.5, squares 2.25+0.25+0.25+2.25 = 5, sqrt(5 / 3) = 1.2909944487.
    near(sd([1, 2, 3, 4]), 1.2909944487);
    assert.equal(sd([5]), 0);
  });

  test('mad is the unscaled median absolute deviation', () => {
    // Reference: median 2, |x - 2| = 1,1,0,0,2,4,7, sorted 0,0,1,1,2,4,7, median 1.
    assert.equal(mad([1, 1, 2, 2, 4, 6, 9]), 1);
    assert.equal(mad([3, 3, 3]), 0);
  });

  test('iqr uses R-7 quartiles', () => {
    // Reference: n = 8, Q1: h = 1.75, 2 + 0.75 = 2.75; Q3: h = 5.25, 6 + 0.25 = 6.25; IQR = 3.5.
    assert.equal(iqr([8, 7, 6, 5, 4, 3, 2, 1]), 3.5);
  });

  test('cv is sd / mean, 0 when the mean is 0', () => {
    // Reference: sd 2.1380899353 / mean 5 = 0.42761798706.
    near(cv([2, 4, 4, 4, 5, 5, 7, 9]), 0.42761798706);
    assert.equal(cv([3, 3, 3]), 0);
    // Reference: mean([-1, 1]) = 0, so cv is defined as 0 instead of Infinity.
    assert.equal(cv([-1, 1]), 0);
  });

  test('robustCv is 1.4826 mad / median, 0 when the median is 0', () => {
    // Reference: median 2, mad 1 (see above): 1.4826 * 1 / 2 = 0.7413.
    near(robustCv([1, 1, 2, 2, 4, 6, 9]), 0.7413);
    assert.equal(robustCv([0, 0, 1]), 0);
    // Reference: one slow sample among six: cv = sd / mean = 8.1492 / 13.3667 = 0.6097, but median 10.05,
    // |x - 10.05| sorted = 0.05, 0.05, 0.05, 0.15, 0.15, 19.95 -> mad 0.1 -> 0.14826 / 10.05 = 0.014752.
    const oneOutlier = [10, 10.2, 9.9, 10.1, 10, 30];
    near(cv(oneOutlier), 0.6097, 1e-4);
    near(robustCv(oneOutlier), 0.14826 / 10.05, 1e-12);
  });

  test('every function rejects empty and non-finite samples by name', () => {
    for (const [name, fn] of Object.entries({ median, mean, sd, mad, iqr, cv, robustCv, outliers })) {
      assert.throws(() => fn([]), new RegExp(`^StatisticsInputError: ${name}: xs is empty; pass at least one sample$`), name);
      assert.throws(() => fn([1, Number.POSITIVE_INFINITY]), /xs\[1\] is Infinity; every sample must be a finite number/, name);
    }
    const error = (() => {
      try {
        median([Number.NaN]);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.ok(error instanceof StatisticsInputError);
    assert.equal(error.code, 'STATISTICS_INVALID_INPUT');
  });
});

describe('outliers (Tukey fences, as Criterion.rs)', () => {
  // The middle seven samples 10..16 fix the quartiles of an 11-sample set whatever the two lowest (<= 10) and the two
  // highest (>= 16) are. Reference: Q1: h = 2.5, 10 + 0.5 = 10.5; Q3: h = 7.5, 15 + 0.5 = 15.5; IQR = 5;
  // mild fences 10.5 - 7.5 = 3 and 15.5 + 7.5 = 23; severe fences 10.5 - 15 = -4.5 and 15.5 + 15 = 30.5.
  const middle = [10, 11, 12, 13, 14, 15, 16];

  test('classifies severe and mild samples on both sides', () => {
    // Reference: -50, -40 < -4.5 (low severe); 24 in (23, 30.5] (high mild); 40 > 30.5 (high severe).
    assert.deepEqual(outliers([-50, -40, ...middle, 24, 40]), { lowSevere: 2, lowMild: 0, highMild: 1, highSevere: 1 });
    // Reference: -10 < -4.5 (low severe); 0 in [-4.5, 3) (low mild); 30 high mild; 60 high severe.
    assert.deepEqual(outliers([60, -10, ...middle, 0, 30]), { lowSevere: 1, lowMild: 1, highMild: 1, highSevere: 1 });
  });

  test('a sample exactly on a fence is not beyond it', () => {
    // Reference: 2 < 3 (low mild); 3 and 23 are on the mild fences (not outliers); 24 > 23 (high mild).
    assert.deepEqual(outliers([2, 3, ...middle, 23, 24]), { lowSevere: 0, lowMild: 1, highMild: 1, highSevere: 0 });
    // Reference: 30.5 is on the severe fence, so high mild, not severe.
    assert.deepEqual(outliers([10, 10, ...middle, 16, 30.5]), { lowSevere: 0, lowMild: 0, highMild: 1, highSevere: 0 });
  });

  test('counts nothing in a tight set', () => {
    assert.deepEqual(outliers([1, 2, 3, 4, 5]), { lowSevere: 0, lowMild: 0, highMild: 0, highSevere: 0 });
  });
});

describe('bootstrap intervals', () => {
  test('bootstrapMedianCi follows the documented draw order and percentile rule', () => {
    // Reference: xs = [10, 20], 2 resamples, draws 0.1, 0.7 | 0.6, 0.9 -> indices 0, 1 | 1, 1 -> medians 15 | 20;
    // R-7 quantiles of [15, 20]: 15 + 0.025 * 5 = 15.125 and 15 + 0.975 * 5 = 19.875.
    const [low, high] = bootstrapMedianCi([10, 20], scripted([0.1, 0.7, 0.6, 0.9]), 2);
    near(low, 15.125);
    near(high, 19.875);
  });

  test('bootstrapRatioCi draws all baseline indices, then all variant indices, per resample', () => {
    // Reference: baseline [10, 20], variant [5, 10]. Resample 1: baseline indices 0, 1 (median 15), variant 1, 1
    // (median 10), ratio 1.5. Resample 2: baseline 1, 1 (20), variant 0, 0 (5), ratio 4.
    // R-7 quantiles of [1.5, 4]: 1.5 + 0.025 * 2.5 = 1.5625 and 1.5 + 0.975 * 2.5 = 3.9375.
    const [low, high] = bootstrapRatioCi([10, 20], [5, 10], scripted([0.1, 0.7, 0.6, 0.9, 0.6, 0.9, 0.1, 0.2]), 2);
    near(low, 1.5625);
    near(high, 3.9375);
  });

  test("a resample's median from its tally of ranks equals the sorted median of its draws, bit for bit", () => {
    // Property: for samples of every length 1..60, with many duplicates (values 0..9) or none, and resamples of any
    // size drawn from them, tallyMedian gives exactly median(draws), the R-7 quantile at 0.5 of the sorted draws.
    const rng = createRng(99);
    for (let n = 1; n <= 60; n++) {
      for (const distinct of [10, 1e9]) {
        const xs = Array.from({ length: n }, () => Math.floor(rng() * distinct) + rng() * (distinct > 10 ? 1 : 0));
        const ranked = rankSamples(xs);
        for (const size of [1, 2, n, n + 1, 2 * n + 3]) {
          const draws = Array.from({ length: size }, () => Math.floor(rng() * n));
          for (const i of draws) ranked.counts[ranked.rankOf[i]!]! += 1;
          assert.equal(tallyMedian(ranked, size), median(draws.map((i) => xs[i]!)), `n = ${n}, size = ${size}, xs = ${xs}`);
          assert.ok(ranked.counts.every((c) => c === 0), 'the tally is cleared for the next resample');
        }
      }
    }
    // Reference: draws [3, 1, 2, 2] give (2 + 2) / 2 = 2; [5, 4, 3, 2, 1, 0] give (2 + 3) / 2 = 2.5; [0, 0, 7] give 0.
    const tally = (xs: number[]): number => {
      const ranked = rankSamples(xs);
      xs.forEach((_, i) => (ranked.counts[ranked.rankOf[i]!]! += 1));
      return tallyMedian(ranked, xs.length);
    };
    assert.equal(tally([3, 1, 2, 2]), 2);
    assert.equal(tally([5, 4, 3, 2, 1, 0]), 2.5);
    assert.equal(tally([0, 0, 7]), 0);
  });

  test('the percentile interval by selection is the sorted one to the bit, ties and all', () => {
    const gen = createRng(3);
    for (const n of [1, 2, 3, 4, 5, 7, 40, 41, 399, 10_000]) {
      for (let trial = 0; trial < 6; trial++) {
        // Even trials: a handful of distinct values (resampled medians of few samples), odd: nearly all distinct.
        const stats = Float64Array.from({ length: n }, () => (trial % 2 === 0 ? Math.floor(gen() * 3) / 2 : gen() * 100));
        const s = Float64Array.from(stats).sort();
        const expected = [quantile(Array.from(s), 0.025), quantile(Array.from(s), 0.975)];
        assert.deepEqual(percentileInterval(Float64Array.from(stats)), expected, `n = ${n}, trial ${trial}`);
        const k = Math.floor(gen() * n);
        const selected = Float64Array.from(stats);
        selectInPlace(selected, k);
        assert.equal(selected[k], s[k], `selectInPlace n = ${n}, k = ${k}`);
        assert.ok(selected.subarray(0, k).every((v) => v <= s[k]!) && selected.subarray(k + 1).every((v) => v >= s[k]!));
      }
    }
  });

  test('the bootstraps give, to the bit, the intervals of the documented procedure: copy the draws, sort, take R-7 medians', () => {
    // The oracle is the contract in the modules' comments, written the plain way (no tally): any slip in the ranks,
    // the tally or the walk to the middle changes some interval below.
    const percentile = (stats: number[]): [number, number] => {
      const s = sorted(stats);
      return [quantile(s, 0.025), quantile(s, 0.975)];
    };
    const draw = (xs: readonly number[], rng: () => number): number[] => xs.map(() => xs[Math.floor(rng() * xs.length)]!);
    const oracleMedianCi = (xs: number[], rng: () => number, resamples: number) =>
      percentile(Array.from({ length: resamples }, () => median(draw(xs, rng))));
    const oracleRatioCi = (a: number[], b: number[], rng: () => number, resamples: number) =>
      percentile(Array.from({ length: resamples }, () => median(draw(a, rng)) / median(draw(b, rng))));
    const oracleRoundCi = (a: number[], ar: number[], b: number[], br: number[], rng: () => number, resamples: number) => {
      const rounds = [...new Set(ar)].sort((x, y) => x - y);
      const inRound = (xs: number[], rs: number[], r: number) => xs.filter((_, i) => rs[i] === r);
      return percentile(
        Array.from({ length: resamples }, () => {
          const top: number[] = [];
          const bottom: number[] = [];
          for (let slot = 0; slot < rounds.length; slot++) {
            const r = rounds[Math.floor(rng() * rounds.length)]!;
            top.push(...draw(inRound(a, ar, r), rng));
            bottom.push(...draw(inRound(b, br, r), rng));
          }
          return median(top) / median(bottom);
        }),
      );
    };
    const gen = createRng(7);
    for (let trial = 0; trial < 40; trial++) {
      // Few distinct values (many ties in every resample) in half the trials; odd and even counts; uneven rounds.
      const values = (n: number) => Array.from({ length: n }, () => (trial % 2 === 0 ? 1 + Math.floor(gen() * 4) : 1 + gen() * 9));
      const n = 1 + Math.floor(gen() * 23);
      const a = values(n);
      const b = values(1 + Math.floor(gen() * 23));
      assert.deepEqual(bootstrapMedianCi(a, createRng(trial), 200), oracleMedianCi(a, createRng(trial), 200), `median, trial ${trial}`);
      assert.deepEqual(bootstrapRatioCi(a, b, createRng(trial), 200), oracleRatioCi(a, b, createRng(trial), 200), `ratio, trial ${trial}`);
      const rounds = 1 + Math.floor(gen() * 5);
      const roundsOf = (m: number) => Array.from({ length: m }, (_, i) => (i < rounds ? i : Math.floor(gen() * rounds)));
      const c = values(n + rounds);
      const d = values(n + rounds + 1);
      const cr = roundsOf(c.length);
      const dr = roundsOf(d.length);
      assert.deepEqual(
        roundBootstrapRatioCi(c, cr, d, dr, createRng(trial), 200),
        oracleRoundCi(c, cr, d, dr, createRng(trial), 200),
        `paired by round, trial ${trial}`,
      );
    }
  });

  test('is deterministic for a seed', () => {
    const xs = timings(50, 3);
    assert.deepEqual(bootstrapMedianCi(xs, createRng(11), 500), bootstrapMedianCi(xs, createRng(11), 500));
    assert.deepEqual(
      bootstrapRatioCi(xs, timings(40, 4), createRng(11), 500),
      bootstrapRatioCi(xs, timings(40, 4), createRng(11), 500),
    );
  });

  test('contains the sample median and narrows as n grows', () => {
    const small = timings(20, 5);
    const large = timings(2000, 6);
    const [smallLow, smallHigh] = bootstrapMedianCi(small, createRng(1), 1000);
    const [largeLow, largeHigh] = bootstrapMedianCi(large, createRng(1), 1000);
    assert.ok(smallLow <= median(small) && median(small) <= smallHigh, `[${smallLow}, ${smallHigh}] misses ${median(small)}`);
    assert.ok(largeLow <= median(large) && median(large) <= largeHigh, `[${largeLow}, ${largeHigh}] misses ${median(large)}`);
    // Reference: the width shrinks like 1 / sqrt(n), so 100 times the samples gives about a tenth; we ask for a third.
    assert.ok(largeHigh - largeLow < (smallHigh - smallLow) / 3, `widths ${largeHigh - largeLow} vs ${smallHigh - smallLow}`);
  });

  test('a constant sample has a zero-width interval', () => {
    assert.deepEqual(bootstrapMedianCi([5, 5, 5], createRng(1), 100), [5, 5]);
  });

  test('the ratio interval of two identical sets contains 1', () => {
    const xs = timings(100, 9);
    const [low, high] = bootstrapRatioCi(xs, [...xs], createRng(2), 1000);
    assert.ok(low < 1 && 1 < high, `[${low}, ${high}] should contain 1`);
  });

  test('the ratio interval of a set against half of itself is around 2', () => {
    const xs = timings(100, 9);
    const [low, high] = bootstrapRatioCi(xs, xs.map((x) => x / 2), createRng(2), 1000);
    assert.ok(low < 2 && 2 < high && high - low < 0.5, `[${low}, ${high}] should be a narrow interval around 2`);
  });

  test('rejects bad arguments with clear messages', () => {
    assert.throws(() => bootstrapMedianCi([], createRng(1), 10), /bootstrapMedianCi: xs is empty/);
    assert.throws(() => bootstrapMedianCi([1], createRng(1), 0), /bootstrapMedianCi: resamples must be a positive integer, got 0/);
    assert.throws(() => bootstrapMedianCi([1], createRng(1), 2.5), /resamples must be a positive integer, got 2.5/);
    assert.throws(() => bootstrapMedianCi([1, 2], () => 1, 1), /bootstrapMedianCi: rng returned 1, outside \[0, 1\)/);
    assert.throws(() => bootstrapRatioCi([1], [Number.NaN], createRng(1), 1), /bootstrapRatioCi: variant\[0\] is NaN/);
    assert.throws(() => bootstrapRatioCi([1], [0, 0], createRng(1), 10), /a resample of variant has median 0/);
  });
});

describe('order-statistic interval of a median', () => {
  test('medianCiRanks: the largest d with P(B <= d - 1) <= 0.025, B ~ Binomial(n, 1/2)', () => {
    // Reference: n = 8: P(B <= 0) = 1/256 = 0.0039, P(B <= 1) = 9/256 = 0.035 > 0.025 -> d = 1, [X(1), X(8)],
    // coverage 1 - 2/256 = 0.9921875.
    const eight = medianCiRanks(8);
    assert.deepEqual([eight.lower, eight.upper], [1, 8]);
    near(eight.coverage, 0.9921875, 1e-12);
    // Reference: n = 12: P(B <= 2) = (1 + 12 + 66)/4096 = 79/4096 = 0.0193, P(B <= 3) = 299/4096 = 0.073 -> d = 3,
    // [X(3), X(10)], coverage 1 - 2 * 79/4096 = 0.9614258.
    const twelve = medianCiRanks(12);
    assert.deepEqual([twelve.lower, twelve.upper], [3, 10]);
    near(twelve.coverage, 1 - (2 * 79) / 4096, 1e-12);
    // Reference: n = 20: P(B <= 5) = (1 + 20 + 190 + 1140 + 4845 + 15504)/2^20 = 21700/1048576 = 0.0207,
    // P(B <= 6) = 60460/1048576 = 0.058 -> d = 6, [X(6), X(15)], coverage 1 - 2 * 21700/1048576 = 0.9586.
    const twenty = medianCiRanks(20);
    assert.deepEqual([twenty.lower, twenty.upper], [6, 15]);
    near(twenty.coverage, 1 - (2 * 21700) / 1048576, 1e-12);
    // Reference: below 6 samples not even [min, max] reaches 95 %: n = 5 gives 1 - 2/32 = 0.9375; n = 1 gives 0.
    assert.deepEqual(medianCiRanks(5), { lower: 1, upper: 5, coverage: 0.9375 });
    assert.deepEqual(medianCiRanks(1), { lower: 1, upper: 1, coverage: 0 });
    // Property: from n = 6 on the coverage is at least 0.95 and tends to it (normal approximation: d ~ n/2 - 0.98 sqrt(n)).
    for (let n = 6; n <= 400; n++) assert.ok(medianCiRanks(n).coverage >= 0.95, `n = ${n}`);
    near(medianCiRanks(100_000).coverage, 0.95, 0.001);
    assert.throws(() => medianCiRanks(0), /medianCiRanks: n must be a positive integer \(the number of samples\), got 0/);
  });

  test('orderStatisticMedianCi takes X(d) and X(n + 1 - d) of the sorted samples', () => {
    // Reference: n = 12, d = 3: the 3rd and 10th smallest of 1..12 (shuffled) are 3 and 10.
    assert.deepEqual(orderStatisticMedianCi([7, 12, 1, 5, 3, 9, 2, 11, 4, 10, 6, 8]), [3, 10]);
    // Reference: n = 8, d = 1: min and max.
    assert.deepEqual(orderStatisticMedianCi([5, 1, 4, 2, 8, 3, 7, 6]), [1, 8]);
    assert.deepEqual(orderStatisticMedianCi([5, 5, 5]), [5, 5]);
    assert.throws(() => orderStatisticMedianCi([]), /orderStatisticMedianCi: xs is empty/);
  });
});

describe('roundBootstrapRatioCi (paired by round)', () => {
  // Rounds given out of order, to pin the grouping: baseline round 0 = [20, 40] (indices 1, 3), round 1 = [10, 30];
  // variant round 0 = [5, 7], round 1 = [6, 8].
  const baseline = [10, 20, 30, 40];
  const baselineRounds = [1, 0, 1, 0];
  const variant = [5, 6, 7, 8];
  const variantRounds = [0, 1, 0, 1];

  test('follows the documented draw order: a round, its baseline samples, its variant samples, per slot', () => {
    // Reference: K = 2 rounds, 2 resamples.
    // Resample 1: slot 0: 0.7 -> round floor(1.4) = 1; baseline 0.1, 0.6 -> 10, 30; variant 0.9, 0.2 -> 8, 6.
    //   slot 1: 0.3 -> round 0; baseline 0.5, 0.4 -> 40, 20; variant 0.0, 0.99 -> 5, 7.
    //   median(10, 30, 40, 20) = 25, median(8, 6, 5, 7) = 6.5, ratio 3.846153846.
    // Resample 2: slot 0: 0.2 -> round 0; baseline 0.9, 0.8 -> 40, 40; variant 0.1, 0.1 -> 5, 5.
    //   slot 1: 0.1 -> round 0; baseline 0.3, 0.7 -> 20, 40; variant 0.6, 0.2 -> 7, 5. median 40 / median 5 = 8.
    // R-7 quantiles of [3.846153846, 8]: 3.846153846 + 0.025 * 4.153846154 = 3.95, + 0.975 * 4.153846154 = 7.896153846.
    const draws = [0.7, 0.1, 0.6, 0.9, 0.2, 0.3, 0.5, 0.4, 0.0, 0.99, 0.2, 0.9, 0.8, 0.1, 0.1, 0.1, 0.3, 0.7, 0.6, 0.2];
    const [low, high] = roundBootstrapRatioCi(baseline, baselineRounds, variant, variantRounds, scripted(draws), 2);
    near(low, 3.95);
    near(high, 7.896153846153846);
  });

  test('drift common to a round cancels: a vCPU at two speeds gives a point interval at the true ratio', () => {
    // Each round is 1 or 1.55 times slower for both cases; within a round the times are constant, the variant twice as
    // fast. Reference: every resample draws the same rounds for both, so median(10 d) / median(5 d) = 2 exactly
    // (all values are exact binary fractions). The independent bootstrap mixes fast and slow rounds: wide.
    const speeds = [1, 1.55, 1.55, 1, 1.55, 1];
    const rounds = speeds.flatMap((_, r) => [r, r]);
    const slow = speeds.flatMap((d) => [10 * d, 10 * d]);
    const fast = speeds.flatMap((d) => [5 * d, 5 * d]);
    assert.deepEqual(roundBootstrapRatioCi(slow, rounds, fast, rounds, createRng(3), 2000), [2, 2]);
    const [low, high] = bootstrapRatioCi(slow, fast, createRng(3), 2000);
    assert.ok(low < 1.5 && high > 2.5, `independent: [${low}, ${high}]`);
  });

  test('is deterministic for a seed and contains the estimate on skewed data', () => {
    const x = timings(24, 31, 2);
    const y = timings(24, 32, 1);
    const rounds = x.map((_, i) => Math.floor(i / 3));
    const once = roundBootstrapRatioCi(x, rounds, y, rounds, createRng(5), 1000);
    assert.deepEqual(roundBootstrapRatioCi(x, rounds, y, rounds, createRng(5), 1000), once);
    const estimate = median(x) / median(y);
    assert.ok(once[0] <= estimate && estimate <= once[1], `[${once}] misses ${estimate}`);
  });

  test('sameRoundSet compares the sets of rounds, not the counts or the order', () => {
    assert.equal(sameRoundSet([0, 0, 1, 2], [2, 1, 0]), true);
    assert.equal(sameRoundSet([0, 1], [0, 1, 2]), false);
    assert.equal(sameRoundSet([], []), true);
  });

  test('rejects rounds that do not fit the samples, and cases from different rounds', () => {
    assert.throws(
      () => roundBootstrapRatioCi([1, 2], [0], [1, 2], [0, 1], createRng(1), 10),
      /roundBootstrapRatioCi: baselineRounds has 1 entries for 2 samples; pass one round index per sample, in the order taken/,
    );
    assert.throws(() => roundBootstrapRatioCi([1, 2], [0, -1], [1, 2], [0, 1], createRng(1), 10), /baselineRounds\[1\] is -1; a round index is an integer >= 0/);
    assert.throws(() => roundBootstrapRatioCi([1, 2], [0, 1], [1, 2], [0, 1.5], createRng(1), 10), /variantRounds\[1\] is 1.5/);
    assert.throws(
      () => roundBootstrapRatioCi([1, 2], [0, 1], [1, 2], [1, 2], createRng(1), 10),
      /not measured in the same rounds, so they cannot be paired; use bootstrapRatioCi/,
    );
    assert.throws(() => roundBootstrapRatioCi([1, 2], [0, 1], [0, 0], [0, 1], createRng(1), 10), /a resample of variant has median 0/);
    assert.throws(() => roundBootstrapRatioCi([1, 2], [0, 1], [1, 2], [0, 1], () => 1, 10), /roundBootstrapRatioCi: rng returned 1, outside \[0, 1\)/);
    assert.throws(() => roundBootstrapRatioCi([1], [0], [1], [0], createRng(1), 0), /resamples must be a positive integer, got 0/);
  });
});

describe('summarize', () => {
  test('matches hand-computed statistics', () => {
    const xs = [1, 2, 3, 4, 100];
    const summary = summarize(xs);
    // Reference: median 3; mean 110 / 5 = 22; squared deviations 441+400+361+324+6084 = 7610, sd = sqrt(7610 / 4)
    // = 43.6176570; |x - 3| = 2,1,0,1,97 -> mad 1; Q1 = 2, Q3 = 4 -> iqr 2; cv = 43.6176570 / 22 = 1.9826208;
    // robustCv = 1.4826 * 1 / 3 = 0.4942 > 0.1 -> noisy; fences: 4 + 6 = 10 < 100 -> one high severe outlier;
    // n = 5 < 6: the order-statistic interval is [min, max] = [1, 100] (coverage 1 - 2/32 = 0.9375).
    assert.equal(summary.n, 5);
    assert.equal(summary.median, 3);
    assert.deepEqual(summary.ci95, [1, 100]);
    assert.equal(summary.mean, 22);
    near(summary.sd, 43.617657, 1e-6);
    assert.equal(summary.mad, 1);
    assert.equal(summary.iqr, 2);
    assert.equal(summary.min, 1);
    assert.equal(summary.max, 100);
    near(summary.cv, 1.9826208, 1e-6);
    near(summary.robustCv, 0.4942, 1e-12);
    assert.equal(summary.noisy, true);
    assert.deepEqual(summary.outliers, { lowSevere: 0, lowMild: 0, highMild: 0, highSevere: 1 });
  });

  test('its median interval is the order-statistic interval', () => {
    const xs = timings(12, 8);
    assert.deepEqual(summarize(xs).ci95, orderStatisticMedianCi(xs));
  });

  test('its result fits the SampleSummary schema of results.json', async () => {
    // Imported here rather than at the top so that a problem loading the schema module fails this test alone.
    const { sampleSummarySchema } = await import('../src/results-schema.ts');
    const summary = summarize(timings(30, 1));
    const parsed = sampleSummarySchema.safeParse(summary);
    assert.equal(parsed.success, true, parsed.error?.message);
  });

  test('flags noise by the robust spread, so one outlier does not, two clusters do', () => {
    assert.equal(NOISY_ROBUST_CV, 0.1);
    // Reference (see robustCv): one slow sample: cv 0.61 but robustCv 0.0148 -> not noisy.
    assert.equal(summarize([10, 10.2, 9.9, 10.1, 10, 30]).noisy, false);
    // Reference: a vCPU switching speed, 62 and 97 ms: median (62 + 97) / 2 = 79.5, |x - 79.5| all 17.5 (and 16.5,
    // 18.5) -> mad 17.5, robustCv = 1.4826 * 17.5 / 79.5 = 0.326 -> noisy.
    const clusters = [62, 61, 63, 62, 97, 96, 98, 97];
    near(summarize(clusters).robustCv, (1.4826 * 17.5) / 79.5, 1e-12);
    assert.equal(summarize(clusters).noisy, true);
    // Reference: [10, 10, 10, 11]: mad 0 -> robustCv 0, never noisy. [10, 10, 12, 11]: median 10.5, mad 0.5,
    // robustCv = 0.7413 / 10.5 = 0.0706: not noisy at 10 %, noisy at a 5 % threshold.
    assert.equal(summarize([10, 10, 10, 11]).noisy, false);
    assert.equal(summarize([10, 10, 12, 11]).noisy, false);
    assert.equal(summarize([10, 10, 12, 11], { noisyRobustCv: 0.05 }).noisy, true);
  });

  test('rejects an empty array, a non-finite sample and bad options', () => {
    assert.throws(() => summarize([]), /^StatisticsInputError: summarize: xs is empty; pass at least one sample$/);
    assert.throws(() => summarize([1, Number.NaN]), /summarize: xs\[1\] is NaN; every sample must be a finite number/);
    assert.throws(() => summarize([1], { noisyRobustCv: -1 }), /summarize: options.noisyRobustCv must be a finite number >= 0 \(0.1 = 10 %\), got -1/);
  });
});

describe('compareSamples', () => {
  test('follows the bootstrap ratio and its documented verdict', () => {
    // Reference: as in the bootstrapRatioCi test, ci95 = [1.5625, 3.9375]; ratio = 15 / 7.5 = 2; 1.5625 > 1.02.
    const result = compareSamples([10, 20], [5, 10], scripted([0.1, 0.7, 0.6, 0.9, 0.6, 0.9, 0.1, 0.2]), 2);
    assert.equal(result.ratio, 2);
    near(result.ci95[0], 1.5625);
    near(result.ci95[1], 3.9375);
    assert.equal(result.threshold, 0);
    assert.equal(result.verdict, 'faster');
  });

  test('says faster, slower or within noise', () => {
    const slow = timings(60, 21, 2);
    const fast = timings(60, 22, 1);
    assert.equal(compareSamples(slow, fast, createRng(1), 1000).verdict, 'faster');
    assert.equal(compareSamples(fast, slow, createRng(1), 1000).verdict, 'slower');
    assert.equal(compareSamples(fast, [...fast], createRng(1), 1000).verdict, 'within-noise');
  });

  test('a 1 % change with a tight interval is faster by the interval alone (the default), noise under a 2 % band', () => {
    // Tight samples (100 ms + up to 0.1 ms) so that the interval of the ratio is about [1.009, 1.011].
    const rng = createRng(4);
    const after = Array.from({ length: 50 }, () => 100 + 0.1 * rng());
    const before = after.map((x) => x * 1.01);
    const noise = compareSamples(before, after, createRng(1), 1000, { threshold: 0.02 });
    assert.equal(noise.verdict, 'within-noise');
    assert.ok(noise.ci95[0] > 1.005 && noise.ci95[1] < 1.015, `ci95 ${noise.ci95}`);
    assert.equal(compareSamples(before, after, createRng(1), 1000).verdict, 'faster');
    assert.equal(compareSamples(before, after, createRng(1), 1000, { threshold: 0.005 }).verdict, 'faster');
    assert.equal(compareSamples(after, before, createRng(1), 1000, { threshold: 0.005 }).verdict, 'slower');
  });

  test('rejects a bad threshold and a zero median', () => {
    assert.throws(() => compareSamples([1], [1], createRng(1), 10, { threshold: 1 }), /compareSamples: options.threshold must be a number in \[0, 1\)/);
    assert.throws(() => compareSamples([1, 1, 1], [0, 0, 1], createRng(1), 10), /median 0/);
  });
});

describe('scaling laws', () => {
  test('speedup and efficiency', () => {
    // Reference: 10 ms / 4 ms = 2.5; 2.5 / 4 workers = 0.625.
    assert.equal(speedup(10, 4), 2.5);
    assert.equal(efficiency(2.5, 4), 0.625);
    assert.throws(() => speedup(10, 0), /speedup: variantMedian must be a finite number > 0, got 0; a median of 0 ms means the samples are below the timer resolution/);
    assert.throws(() => efficiency(2, 0), /efficiency: workers must be a finite number >= 1, got 0/);
  });

  test('Karp-Flatt', () => {
    // Reference: perfect speedup S = p: (1/4 - 1/4) / (3/4) = 0.
    assert.equal(karpFlatt(4, 4), 0);
    // Reference: S = 1.6 at p = 2: (0.625 - 0.5) / 0.5 = 0.25.
    near(karpFlatt(1.6, 2) ?? Number.NaN, 0.25, 1e-12);
    // Reference: superlinear S = 3 at p = 2: (1/3 - 1/2) / (1/2) = -1/3.
    near(karpFlatt(3, 2) ?? Number.NaN, -1 / 3, 1e-12);
    // Reference: undefined (0 / 0) at p = 1.
    assert.equal(karpFlatt(1, 1), null);
    assert.equal(karpFlatt(0.9, 0.5), null);
    assert.throws(() => karpFlatt(0, 2), /karpFlatt: speedup must be a finite number > 0, got 0/);
    assert.throws(() => karpFlatt(1, Number.NaN), /karpFlatt: workers must be a finite number/);
  });

  test('Amdahl and Gustafson', () => {
    // Reference: 1 / (0.1 + 0.9 / 4) = 1 / 0.325 = 3.0769230769.
    near(amdahlSpeedup(0.1, 4), 3.0769230769);
    assert.equal(amdahlSpeedup(0, 8), 8);
    assert.equal(amdahlSpeedup(1, 8), 1);
    assert.equal(amdahlSpeedup(0.5, 1), 1);
    // Reference: 4 - 0.1 * 3 = 3.7.
    near(gustafsonSpeedup(0.1, 4), 3.7, 1e-12);
    assert.equal(gustafsonSpeedup(0, 8), 8);
    assert.equal(gustafsonSpeedup(1, 8), 1);
    assert.throws(() => amdahlSpeedup(1.5, 2), /amdahlSpeedup: serialFraction must be between 0 and 1 .*got 1.5/);
    assert.throws(() => gustafsonSpeedup(0.1, 0), /gustafsonSpeedup: workers must be a finite number >= 1, got 0/);
  });

  test('amdahlFit recovers f = 0.1 from exact Amdahl points', () => {
    // Reference: S(p) = 1 / (0.1 + 0.9 / p): S(2) = 1 / 0.55 = 20/11, S(4) = 1 / 0.325 = 40/13, S(8) = 1 / 0.2125 = 80/17.
    const fit = amdahlFit([
      { workers: 1, speedup: 1 },
      { workers: 2, speedup: 20 / 11 },
      { workers: 4, speedup: 40 / 13 },
      { workers: 8, speedup: 80 / 17 },
    ]);
    assert.ok(fit);
    near(fit.serialFraction, 0.1, 1e-12);
    near(fit.maxSpeedup ?? Number.NaN, 10, 1e-9);
    near(fit.rmse, 0, 1e-12);
    assert.equal(fit.points, 4);
  });

  test('amdahlFit on inexact points matches the hand-computed regression', () => {
    // Reference: x = 1 - 1/p, y = 1/S - 1/p: (0.5, 0.125) and (0.75, 0.15); f = (0.0625 + 0.1125) / (0.25 + 0.5625)
    // = 0.175 / 0.8125 = 14/65 = 0.2153846154. Fitted S(2) = 2 / (1 + f) = 130/79, S(4) = 4 / (1 + 3f) = 260/107;
    // errors 0.0455696 and -0.0700935; rmse = sqrt((0.0455696^2 + 0.0700935^2) / 2) = 0.0591171851.
    const fit = amdahlFit([
      { workers: 2, speedup: 1.6 },
      { workers: 4, speedup: 2.5 },
    ]);
    assert.ok(fit);
    near(fit.serialFraction, 14 / 65, 1e-12);
    near(fit.maxSpeedup ?? Number.NaN, 65 / 14, 1e-9);
    near(fit.rmse, 0.0591171851, 1e-9);
    assert.equal(fit.points, 2);
  });

  test('amdahlFit clamps superlinear points to f = 0', () => {
    // Reference: S > p gives y < 0, f < 0, clamped to 0; fitted S = p, so rmse = sqrt(((2 - 2.5)^2 + (4 - 6)^2) / 2)
    // = sqrt(2.125) = 1.4577379737.
    const fit = amdahlFit([
      { workers: 2, speedup: 2.5 },
      { workers: 4, speedup: 6 },
    ]);
    assert.deepEqual(fit && { serialFraction: fit.serialFraction, maxSpeedup: fit.maxSpeedup }, { serialFraction: 0, maxSpeedup: null });
    near(fit?.rmse ?? Number.NaN, 1.4577379737);
  });

  test('amdahlFit clamps a slowdown to f = 1', () => {
    // Reference: S = 0.5 at p = 2 and 0.4 at p = 4: y = 1.5 and 2.25, x = 0.5 and 0.75; f = (0.75 + 1.6875) /
    // (0.25 + 0.5625) = 3, clamped to 1; maxSpeedup 1 / 1 = 1.
    const fit = amdahlFit([{ workers: 2, speedup: 0.5 }, { workers: 4, speedup: 0.4 }]);
    assert.equal(fit?.serialFraction, 1);
    assert.equal(fit?.maxSpeedup, 1);
    // Reference: fitted S = 1 everywhere, errors 0.5 and 0.6: rmse sqrt((0.25 + 0.36) / 2).
    near(fit?.rmse ?? Number.NaN, Math.sqrt(0.305));
  });

  test('amdahlFit returns null without a point with more than one worker', () => {
    assert.equal(amdahlFit([]), null);
    assert.equal(amdahlFit([{ workers: 1, speedup: 1 }]), null);
  });

  test('amdahlFit gives no fit from one free point (a P = 2 sweep: workers 1 and 2), nor from one worker count twice', () => {
    // The issue-43 case: at P = 2, f would equal the Karp-Flatt value of the one point, with rmse 0, and 1 / f a
    // "max speedup" extrapolated from a single measurement.
    assert.equal(AMDAHL_MIN_FREE_POINTS, 2);
    assert.equal(amdahlFit([{ workers: 1, speedup: 1 }, { workers: 2, speedup: 1.747 }]), null);
    assert.equal(amdahlFit([{ workers: 2, speedup: 1.7 }, { workers: 2, speedup: 1.8 }]), null);
    assert.equal(amdahlFreePoints([{ workers: 1 }, { workers: 2 }, { workers: 2 }, { workers: 4 }]), 2);
    assert.ok(amdahlFit([{ workers: 1, speedup: 1 }, { workers: 2, speedup: 1.7 }, { workers: 3, speedup: 2.2 }]));
  });

  test('amdahlFit names the bad point', () => {
    assert.throws(
      () => amdahlFit([{ workers: 2, speedup: 1.5 }, { workers: 4, speedup: 0 }]),
      /amdahlFit: points\[1\]\.speedup must be a finite number > 0, got 0/,
    );
    assert.throws(() => amdahlFit([{ workers: 0, speedup: 1 }]), /amdahlFit: points\[0\]\.workers must be a finite number >= 1, got 0/);
  });
});
