/**
 * The one number formatter of the course, with one rule for significant digits: a value is rounded to `digits`
 * significant digits (3 unless a caller asks otherwise) and printed without exponent notation, trailing zeros kept
 * (so the digits shown say how precise it is). The rounding happens before the magnitude is read, so 9.996 prints as
 * "10.0" everywhere: the terminal, the HTML and Markdown reports, the lesson pages and the results viewer.
 *
 * The few other rules live here too, each for a stated kind of figure: fixed decimals (formatFixed) for figures read
 * digit for digit against a target or each other, whole or one-decimal seconds for limits and waits (formatSeconds),
 * exponent notation for tolerances (formatScientific), thousands separators for counts (formatCount), binary and
 * decimal sizes (formatBytes, formatDownloadSize) and plan durations (formatDuration). No other file turns a number
 * into text with toFixed, toPrecision, toExponential or toLocaleString (labs/core/test/one-home.test.ts).
 */
import type { SpeedupEntry } from './results-schema.ts';

/** Rounds to `digits` significant digits, plain notation, trailing zeros kept: 40.9955 -> "41.0", 0.0021 -> "0.00210". */
export function formatSignificant(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return '0';
  const rounded = Number(value.toPrecision(digits)); // rounding may carry into a new digit (9.996 -> 10.0)
  const magnitude = Math.floor(Math.log10(Math.abs(rounded)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return rounded.toFixed(Math.min(decimals, 20));
}

/** The unit a time of `ms` milliseconds reads best in: ns below 1 µs, µs below 1 ms, s from 1000 ms. */
export function timeScale(ms: number): { unit: 'ns' | 'µs' | 'ms' | 's'; factor: number } {
  const abs = Math.abs(ms);
  if (abs !== 0 && abs < 0.001) return { unit: 'ns', factor: 1e6 };
  if (abs !== 0 && abs < 1) return { unit: 'µs', factor: 1e3 };
  if (abs >= 1000) return { unit: 's', factor: 1e-3 };
  return { unit: 'ms', factor: 1 };
}

/** timeScale of the value after rounding, so 999.7 µs reads "1.00 ms", not "1000 µs". */
function roundedTimeScale(ms: number, digits: number): { unit: 'ns' | 'µs' | 'ms' | 's'; factor: number } {
  const first = timeScale(ms);
  return timeScale(Number(formatSignificant(ms * first.factor, digits)) / first.factor);
}

/** A time given in ms, e.g. 41.3 -> "41.3 ms", 0.0021 -> "2.10 µs". */
export function formatTime(ms: number, digits = 3): string {
  const { unit, factor } = roundedTimeScale(ms, digits);
  return `${formatSignificant(ms * factor, digits)} ${unit}`;
}

/** A median with its interval in the median's unit, e.g. "41.0 ms [40.7, 41.5]". */
export function formatTimeWithInterval(medianMs: number, ci95: readonly [number, number], digits = 3): string {
  const { unit, factor } = roundedTimeScale(medianMs, digits);
  const f = (v: number) => formatSignificant(v * factor, digits);
  return `${f(medianMs)} ${unit} [${f(ci95[0])}, ${f(ci95[1])}]`;
}

/** A speedup ratio, e.g. 1.7728 -> "1.77x", 9.996 -> "10.0x". */
export function formatRatio(value: number, digits = 3): string {
  return `${formatSignificant(value, digits)}x`;
}

/** A speedup and its 95% interval, e.g. "1.77x [1.72, 1.84]". */
export function formatSpeedup(entry: Pick<SpeedupEntry, 'speedup' | 'ci95'>, digits = 3): string {
  return `${formatRatio(entry.speedup, digits)} [${formatSignificant(entry.ci95[0], digits)}, ${formatSignificant(entry.ci95[1], digits)}]`;
}

/** A 95% interval as "low–high" with an en dash, compact enough for narrow tables. */
export function formatInterval([low, high]: readonly [number, number], digits = 3): string {
  return `${formatSignificant(low, digits)}–${formatSignificant(high, digits)}`;
}

/** A fraction as a whole percentage, e.g. 0.8864 -> "89%". */
export function formatPercent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

/**
 * Work done per second at the median time: `amount / (medianMs / 1000)`, e.g. 40 requests in 41 ms -> "976 requests/s".
 * Large rates get k/M/G prefixes so the column stays narrow.
 */
export function formatThroughput(work: { amount: number; unit: string }, medianMs: number, digits = 3): string {
  if (medianMs <= 0) return `- ${work.unit}/s`;
  const perSecond = work.amount / (medianMs / 1000);
  const prefixes: Array<[number, string]> = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, prefix] of prefixes) {
    if (perSecond >= scale * 10) return `${formatSignificant(perSecond / scale, digits)} ${prefix} ${work.unit}/s`;
  }
  return `${formatSignificant(perSecond, digits)} ${work.unit}/s`;
}

/** formatSignificant, or "n/a" for a value that is missing or not finite (a lab analysis's optional figures). */
export function formatOrNA(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : formatSignificant(value, digits);
}

/**
 * A ratio's 95% interval in brackets, e.g. [1.72, 1.84]: the one way a ratio's interval is printed beside its value
 * (a speedup, a grade's ratio to the solution, one run against an earlier one), in the terminal, Markdown and the site.
 */
export function formatBracketInterval([low, high]: readonly [number, number], digits = 3): string {
  return `[${formatSignificant(low, digits)}, ${formatSignificant(high, digits)}]`;
}

/** A part of a whole as a percentage with `decimals` decimals, e.g. (1, 8) -> "12.5%"; "-" when the whole is 0. */
export function formatShare(part: number, whole: number, decimals = 1): string {
  return whole > 0 ? `${formatFixed((100 * part) / whole, decimals)}%` : '-';
}

/**
 * A number with exactly `decimals` decimals, e.g. (0.8, 2) -> "0.80", (1234.56, 0) -> "1235": for figures read against a
 * fixed target or against each other digit for digit (a grade's ratio to the solution against its 0.80, a lab's
 * efficiencies and busy fractions, a column of times in ms whose points line up); every other figure takes
 * formatSignificant's one rule. A negative value that rounds to zero prints without its sign ("0.00", not "-0.00");
 * a missing or non-finite value prints "n/a", as formatOrNA does.
 */
export function formatFixed(value: number | null | undefined, decimals: number): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  const text = value.toFixed(decimals);
  return Number(text) === 0 ? text.replace(/^-/, '') : text;
}

/** An interval in brackets with `decimals` decimals, e.g. "[0.81, 0.95]": formatFixed's twin of formatBracketInterval. */
export function formatFixedInterval([low, high]: readonly [number, number], decimals: number): string {
  return `[${formatFixed(low, decimals)}, ${formatFixed(high, decimals)}]`;
}

/**
 * A value in scientific notation with `digits` significant digits, e.g. 1.2345e-12 -> "1.23e-12", 0 -> "0.00e+0":
 * tolerances and errors, which span many orders of magnitude and are read by their exponent.
 */
export function formatScientific(value: number, digits = 3): string {
  return value.toExponential(digits - 1);
}

/** A whole count with thousands separators, whatever the machine's locale: 1000000 -> "1,000,000". */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A memory limit in GiB with one decimal, whatever its size ("4.3 GiB", "12.0 GiB"): the sandbox's limits and notes. */
export function formatGiB(bytes: number): string {
  return `${formatFixed(bytes / 2 ** 30, 1)} GiB`;
}

/**
 * A size in bytes, binary units (memory, files): "1.5 GiB", "300 MiB", "12 KiB", "512 B"; one decimal below 10 of
 * the unit, whole numbers above. The site's download sizes (decimal kB and MB, formatDownloadSize) are the one other rule.
 */
export function formatBytes(bytes: number): string {
  const units: [number, string][] = [[1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];
  for (const [size, unit] of units) {
    if (bytes >= size) {
      const v = bytes / size;
      return `${v < 10 ? formatFixed(v, 1) : Math.round(v)} ${unit}`;
    }
  }
  return `${Math.round(bytes)} B`;
}

/**
 * A download's size in decimal units, as browsers and servers state them: "2.4 MB" from 1 MB (one decimal), whole kB
 * below, and at least "1 kB" (a file of a few bytes is not "0 kB"). The in-page labs' model and WebAssembly downloads.
 */
export function formatDownloadSize(bytes: number): string {
  return bytes >= 1e6 ? `${formatFixed(bytes / 1e6, 1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}

/**
 * Load averages as the kernel states them (two decimals, /proc/loadavg), e.g. "0.32 / 0.41 / 0.50" for the 1-, 5- and
 * 15-minute ones, "0.80" for one: the environment table, the reference runs' list, the threats and --compare's
 * caveat, and the benchmarks' machine line.
 */
export function formatLoadAverage(loads: readonly number[]): string {
  return loads.map((l) => formatFixed(l, 2)).join(' / ');
}

/** "42 s", "2 min 10 s", "1 h 5 min": a planned duration, rounded to what a plan can claim. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

/**
 * A limit or a wall-clock wait in seconds, as a person sets or reads it: whole seconds without decimals ("5 s"), else
 * one decimal ("0.5 s", "12.3 s"). For timeouts and progress lines; a measured time takes formatTime.
 */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${formatFixed(s, Number.isInteger(s) ? 0 : 1)} s`;
}

/** A time given in µs, in the unit that reads best ("52.7 µs", "1.05 ms", "480 ns"), or "n/a" when missing. */
export function formatMicroseconds(us: number | null): string {
  return us === null ? 'n/a' : formatTime(us / 1000);
}
