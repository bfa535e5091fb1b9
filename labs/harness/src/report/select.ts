/**
 * Read-only views over Results that several reporters need. Nothing here computes a statistic: it only finds
 * what the statistics stage already wrote.
 */
import type { CaseResult, Params, Results, SpeedupEntry } from '../results-schema.ts';
import { sameParams } from './format.ts';

/** The parameter that holds a case's worker count; the same name the lab definition uses. */
export const WORKERS_PARAM = 'workers';

/** The worker count of a case or speedup, or null when its parameters have none. */
export function workersOf(params: Params): number | null {
  const value = params[WORKERS_PARAM];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Names of the variants that speedups are measured against (usually one), in order of first appearance. */
export function baselineVariants(results: Results): string[] {
  const names = results.speedups.map((s) => s.baseline);
  if (results.headline !== null) names.push(results.headline.baseline);
  return [...new Set(names)];
}

/** The measured case for a variant and parameter set, if it was measured. */
export function findCase(results: Results, variant: string, params: Params): CaseResult | undefined {
  return results.cases.find((c) => c.variant === variant && sameParams(c.params, params));
}

/** Speedups whose case has a worker count, grouped by variant in order of first appearance, sorted by workers. */
export function speedupsByWorkers(results: Results): Map<string, Array<SpeedupEntry & { workers: number }>> {
  const groups = new Map<string, Array<SpeedupEntry & { workers: number }>>();
  for (const entry of results.speedups) {
    const workers = workersOf(entry.params);
    if (workers === null) continue;
    const group = groups.get(entry.variant) ?? [];
    group.push({ ...entry, workers });
    groups.set(entry.variant, group);
  }
  for (const group of groups.values()) group.sort((a, b) => a.workers - b.workers);
  return groups;
}

/** Speedups of cases without a worker count (a size sweep, a single-threaded variant). */
export function speedupsWithoutWorkers(results: Results): SpeedupEntry[] {
  return results.speedups.filter((entry) => workersOf(entry.params) === null);
}

/** Correctness entries that did not pass, so reports can put them first. */
export function failedCorrectness(results: Results): Results['correctness'] {
  return results.correctness.filter((entry) => !entry.passed);
}
