/**
 * Student's t distribution: its cumulative distribution function and quantiles, for any real degrees of freedom > 0
 * (Welch's interval has fractional ones). Pure arithmetic, no tables.
 *
 * Method: for t > 0, P(T <= t) = 1 - I_x(df / 2, 1 / 2) / 2 with x = df / (df + t^2), where I is the regularised
 * incomplete beta function, evaluated by its continued fraction (modified Lentz); the quantile inverts the cdf by
 * Newton's method from the normal quantile, inside a bracket that falls back to halving where a step would leave it.
 * Sources: M. Abramowitz and I. A. Stegun, "Handbook of Mathematical Functions", 1964, 26.7.1 and 26.5.8 (the t cdf
 * through the incomplete beta) and 6.1.41 (the Stirling series of ln Gamma); W. H. Press et al., "Numerical Recipes",
 * 3rd ed., 2007, §6.4 (the continued fraction and Lentz's method).
 * Reference values (hand-computable): df = 1 is the Cauchy distribution, quantile(0.975) = tan(0.475 pi) = 12.7062;
 * df = 2 has quantile(p) = (2p - 1) / sqrt(2 p (1 - p)), 4.30265 at p = 0.975.
 */
import { StatisticsInputError } from './errors.ts';

/**
 * ln Gamma(x) for x > 0: the Stirling series from x + 8 on, shifted down by the recurrence Gamma(x + 1) = x Gamma(x).
 * Relative error below 1e-14 for the arguments used here (df / 2 and 1 / 2).
 */
export function logGamma(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) {
    throw new StatisticsInputError(`logGamma: x must be a finite number > 0, got ${String(x)}`);
  }
  let shift = 0;
  let y = x;
  while (y < 8) {
    shift += Math.log(y);
    y += 1;
  }
  const inv = 1 / y;
  const inv2 = inv * inv;
  // Abramowitz and Stegun 6.1.41: 1/(12 y) - 1/(360 y^3) + 1/(1260 y^5) - 1/(1680 y^7) + 1/(1188 y^9).
  const series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188))));
  return (y - 0.5) * Math.log(y) - y + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

/** The continued fraction of I_x(a, b) (Numerical Recipes' betacf), converging fast for x < (a + 1) / (a + b + 2). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b), for a, b > 0 and x in [0, 1]. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) {
    throw new StatisticsInputError(`regularizedBeta: need a > 0, b > 0 and x in [0, 1], got a = ${a}, b = ${b}, x = ${x}`);
  }
  if (x === 0 || x === 1) return x;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

function assertDf(fn: string, df: number): void {
  if (typeof df !== 'number' || !(df > 0)) {
    throw new StatisticsInputError(`${fn}: df (degrees of freedom) must be a number > 0, got ${String(df)}`);
  }
}

/** P(T <= t) for Student's t with `df` degrees of freedom (df may be fractional, or Infinity for the normal). */
export function studentTCdf(t: number, df: number): number {
  assertDf('studentTCdf', df);
  if (Number.isNaN(t)) throw new StatisticsInputError('studentTCdf: t is NaN');
  if (t === 0) return 0.5;
  if (!Number.isFinite(df)) return normalCdf(t);
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** The standard normal cdf, from the t cdf's limit is too slow to reach: erfc by its continued fraction. */
function normalCdf(z: number): number {
  // P(Z <= z) = I_{1/(1+z^2/n)} ... has no finite form; use the complementary error function (A&S 7.1.26 is too
  // coarse), computed as the regularised incomplete gamma Q(1/2, z^2/2) by its continued fraction (Press et al. §6.2).
  const x = (z * z) / 2;
  let q: number;
  if (x < 1.5) {
    // Series of P(1/2, x): sum x^n / (1/2 (1/2 + 1) ... (1/2 + n)).
    let term = 2;
    let sum = 2;
    for (let n = 1; n < 500; n++) {
      term *= x / (0.5 + n);
      sum += term;
      if (term < sum * 1e-16) break;
    }
    const p = sum * Math.exp(-x + 0.5 * Math.log(x) - logGamma(0.5));
    q = 1 - p;
  } else {
    const tiny = 1e-300;
    let b = x + 0.5;
    let c = 1 / tiny;
    let d = 1 / b;
    let h = d;
    for (let i = 1; i < 500; i++) {
      const an = -i * (i - 0.5);
      b += 2;
      d = an * d + b;
      if (Math.abs(d) < tiny) d = tiny;
      c = b + an / c;
      if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d;
      const step = d * c;
      h *= step;
      if (Math.abs(step - 1) < 1e-15) break;
    }
    q = Math.exp(-x + 0.5 * Math.log(x) - logGamma(0.5)) * h;
  }
  return z > 0 ? 1 - q / 2 : q / 2;
}

/**
 * The quantile t_p of Student's t with `df` degrees of freedom: P(T <= t_p) = p. Reference: df = 1, p = 0.975 ->
 * 12.7062 (tan(0.475 pi)); df = 2 -> 4.30265; df = 4 -> 2.77645; df = Infinity -> 1.95996 (the normal's).
 * @throws StatisticsInputError when p is not in (0, 1) or df is not > 0.
 */
export function studentTQuantile(p: number, df: number): number {
  assertDf('studentTQuantile', df);
  if (typeof p !== 'number' || !(p > 0 && p < 1)) {
    throw new StatisticsInputError(`studentTQuantile: p must be a probability strictly between 0 and 1, got ${String(p)}`);
  }
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  if (!Number.isFinite(df)) return normalQuantile(p);
  // Newton's method on the cdf from the normal quantile, kept inside a bracket [low, high] that halves whenever a
  // step would leave it (the Cauchy-like tails of small df make plain Newton overshoot). A few steps each call: the
  // between-run simulation calls this some 100 000 times.
  const logDensityScale = logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  let low = 0;
  let high = Infinity;
  let t = normalQuantile(p);
  for (let i = 0; i < 200; i++) {
    const f = studentTCdf(t, df) - p;
    if (f === 0) return t;
    if (f < 0) low = t;
    else high = t;
    const density = Math.exp(logDensityScale - ((df + 1) / 2) * Math.log1p((t * t) / df));
    let next = t - f / density;
    if (!(next > low && next < high)) next = Number.isFinite(high) ? 0.5 * (low + high) : 2 * t + 1;
    if (Math.abs(next - t) <= 1e-14 * Math.abs(t)) return next;
    t = next;
  }
  return t;
}

/**
 * The standard normal quantile, by Newton's method on normalCdf from Tukey's lambda approximation
 * z ~ 4.91 (p^0.14 - (1 - p)^0.14) (about 1e-3 off), for p in (0, 1). Reference: 0.975 -> 1.959964.
 */
function normalQuantile(p: number): number {
  let z = 4.91 * (p ** 0.14 - (1 - p) ** 0.14);
  for (let i = 0; i < 50; i++) {
    const density = Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
    const step = (normalCdf(z) - p) / density;
    z -= step;
    if (Math.abs(step) <= 1e-15 * Math.max(1, Math.abs(z))) break;
  }
  return z;
}
