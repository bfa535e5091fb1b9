/**
 * Number and label formatting shared by every reporter, so the terminal, HTML and Markdown say the same thing
 * in the same words. Pure functions; no reporter-specific escaping here (each output format escapes its own way).
 */
import type { CaseResult, CorrectnessEntry, Params, SpeedupEntry } from '../results-schema.ts';
import { caseLabel as caseLabelOf } from '../lab-definition.ts';
import { NOISY_ROBUST_CV } from '../statistics.ts';

/** What the flags mean, printed under every table that shows them. */
export const OVERSUBSCRIBED_TEXT = 'oversubscribed: more workers than available CPUs';
/** The `noisy` rule in words, with the threshold the statistics stage applies (NOISY_ROBUST_CV). */
export const NOISY_TEXT = `noisy: robust spread (1.4826 × MAD / median) above ${Math.round(NOISY_ROBUST_CV * 100)}%; the samples vary a lot: trust the interval less and re-run`;

/** Rounds to `digits` significant digits without exponent notation for the ranges we print (1e-6 .. 1e9). */
export function formatSignificant(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return value.toFixed(Math.min(decimals, 12));
}

/** The unit a time of `ms` milliseconds reads best in: ns below 1 µs, µs below 1 ms, s from 1000 ms. */
export function timeScale(ms: number): { unit: 'ns' | 'µs' | 'ms' | 's'; factor: number } {
  const abs = Math.abs(ms);
  if (abs !== 0 && abs < 0.001) return { unit: 'ns', factor: 1e6 };
  if (abs !== 0 && abs < 1) return { unit: 'µs', factor: 1e3 };
  if (abs >= 1000) return { unit: 's', factor: 1e-3 };
  return { unit: 'ms', factor: 1 };
}

/** A time given in ms, e.g. 41.3 -> "41.3 ms", 0.0021 -> "2.10 µs". */
export function formatTime(ms: number): string {
  const { unit, factor } = timeScale(ms);
  return `${formatSignificant(ms * factor)} ${unit}`;
}

/** A median with its interval in the median's unit, e.g. "41.0 ms [40.7, 41.5]". */
export function formatTimeWithInterval(medianMs: number, ci95: readonly [number, number]): string {
  const { unit, factor } = timeScale(medianMs);
  const f = (v: number) => formatSignificant(v * factor);
  return `${f(medianMs)} ${unit} [${f(ci95[0])}, ${f(ci95[1])}]`;
}

/** A speedup ratio, e.g. 1.7728 -> "1.77x". */
export function formatRatio(value: number): string {
  return `${value.toFixed(2)}x`;
}

/** A speedup and its 95% interval, e.g. "1.77x [1.72, 1.84]". */
export function formatSpeedup(entry: Pick<SpeedupEntry, 'speedup' | 'ci95'>): string {
  return `${formatRatio(entry.speedup)} [${entry.ci95[0].toFixed(2)}, ${entry.ci95[1].toFixed(2)}]`;
}

/** A fraction as a percentage, e.g. 0.8864 -> "89%". */
export function formatPercent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

/**
 * Work done per second at the median time: `amount / (medianMs / 1000)`, e.g. 40 requests in 41 ms -> "976 requests/s".
 * Large rates get k/M/G prefixes so the column stays narrow.
 */
export function formatThroughput(work: CaseResult['workPerSample'], medianMs: number): string {
  if (medianMs <= 0) return `- ${work.unit}/s`;
  const perSecond = work.amount / (medianMs / 1000);
  const prefixes: Array<[number, string]> = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, prefix] of prefixes) {
    if (perSecond >= scale * 10) return `${formatSignificant(perSecond / scale)} ${prefix} ${work.unit}/s`;
  }
  return `${formatSignificant(perSecond)} ${work.unit}/s`;
}

/** How a case is named everywhere: "pool (workers=2)", or just "inline" (lab-definition.ts's caseLabel). */
export function caseLabel(entry: { variant: string; params: Params }): string {
  return caseLabelOf(entry.variant, entry.params);
}

/** True when two parameter records hold the same keys with the same values (key order does not matter). */
export function sameParams(a: Params, b: Params): boolean {
  const keysA = Object.keys(a);
  return keysA.length === Object.keys(b).length && keysA.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/** One word for a correctness entry: "pass", "FAIL" or "not implemented". */
export function correctnessStatus(entry: CorrectnessEntry): 'pass' | 'FAIL' | 'not implemented' {
  if (entry.passed) return 'pass';
  return entry.notImplemented ? 'not implemented' : 'FAIL';
}

/** Why a correctness entry failed, in one line: the reason, then the first mismatch when there is one. */
export function correctnessDetail(entry: CorrectnessEntry): string {
  if (entry.passed) return '';
  const parts: string[] = [];
  if (entry.reason !== null) parts.push(entry.reason);
  if (entry.firstMismatch !== null) {
    const m = entry.firstMismatch;
    parts.push(`first mismatch at ${m.index}: expected ${m.expected}, got ${m.actual}`);
  }
  if (entry.maxAbsError !== null) parts.push(`max abs error ${formatSignificant(entry.maxAbsError)}`);
  if (entry.maxRelError !== null) parts.push(`max rel error ${formatSignificant(entry.maxRelError)}`);
  return parts.join('; ');
}

/** The machine in one line: CPU model, CPUs this process may use, Node version, platform. */
export function machineOneLiner(env: {
  cpuModel: string;
  cpuCount: number;
  availableParallelism: number;
  node: string;
  platform: string;
  arch: string;
}): string {
  const cpus =
    env.cpuCount === env.availableParallelism
      ? `${env.availableParallelism} CPUs available`
      : `${env.availableParallelism} of ${env.cpuCount} CPUs available`;
  return `${env.cpuModel.trim()} · ${cpus} · node ${env.node} · ${env.platform}-${env.arch}`;
}

/** The headline in one line, e.g. "pool (workers=2): 1.77x [1.72, 1.84] vs inline (speedup, 95% interval)". */
export function headlineSentence(entry: SpeedupEntry): string {
  return `${caseLabel(entry)}: ${formatSpeedup(entry)} vs ${entry.baseline} (speedup, 95% interval)`;
}
