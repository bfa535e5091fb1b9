/**
 * The phrases every reporter shares (flags, correctness, the machine, the headline), so the terminal, HTML and
 * Markdown, the harness's status and watch lines and the site say the same thing in the same words. Numbers, units
 * and case labels come from the core's one formatter (format.ts, case-identity.ts); each output format escapes its own way.
 */
import { caseLabel } from './case-identity.ts';
import { formatPercent, formatSignificant, formatSpeedup } from './format.ts';
import type { CorrectnessEntry, Results, SpeedupEntry } from './results-schema.ts';
import { NOISY_ROBUST_CV } from './statistics.ts';

/** What the flags mean, printed under every table that shows them. */
export const OVERSUBSCRIBED_TEXT = 'oversubscribed: more workers than available CPUs';
/** The `noisy` rule in words, with the threshold the statistics stage applies (NOISY_ROBUST_CV). */
export const NOISY_TEXT = `noisy: robust spread (1.4826 × MAD / median) above ${formatPercent(NOISY_ROBUST_CV)}; the samples vary a lot: trust the interval less and re-run`;

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
  // Once: the harness's check writes the first mismatch into its reason (check.ts), and the in-page labs say it in words.
  const m = entry.firstMismatch;
  if (m !== null && !(entry.reason?.includes(m.expected) && entry.reason.includes(m.actual))) {
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

/**
 * The run's machine in words: "AMD EPYC 7763 64-Core Processor, P = 2, Node v24.21.0, 2026-12-03" (the episodes'
 * `<Measured at="machine">`, the reference runs' list, the results viewer's run labels). A P forced above the CPUs the
 * job could use says so ("P = 8, forced on 2 CPUs"): its sweeps ran oversubscribed, and a page quoting them must not
 * pass for an 8-CPU machine. `{ date: false }` leaves the date off (a line that gives the time itself).
 */
export function machineText(results: Pick<Results, 'environment' | 'cpus' | 'startedAt'>, options: { date?: boolean } = {}): string {
  const { p, available, forced } = results.cpus;
  const cpus = forced && p > available ? `P = ${p}, forced on ${available} CPU${available === 1 ? '' : 's'}` : `P = ${p}`;
  const machine = `${results.environment.cpuModel.trim() || 'unknown CPU'}, ${cpus}, Node ${results.environment.node}`;
  return options.date === false ? machine : `${machine}, ${results.startedAt.slice(0, 10)}`;
}

/** The headline in one line, e.g. "pool (workers=2): 1.77x [1.72, 1.84] vs inline (speedup, 95% interval)". */
export function headlineSentence(entry: SpeedupEntry): string {
  return `${caseLabel(entry)}: ${formatSpeedup(entry)} vs ${entry.baseline} (speedup, 95% interval)`;
}
