/**
 * Which case a case is compared with: its baseline case (for a speedup) and the same variant on one worker (for an
 * efficiency), and which param carries a variant's worker count. Pure functions over case records; the analysis,
 * the version 2 upgrade and the reporters ask here, so they all pair the same cases.
 */
import type { Params } from './results-schema.ts';

/**
 * The baseline case a variant case is compared with: a baseline case whose every param the variant case shares
 * (so `inline {}` serves every case, and `ts {size: 4096}` serves `native {size: 4096, threads: 2}`).
 * With several candidates the one sharing the most params wins.
 */
export function findBaseline<T extends { variant: string; params: Params }>(cases: T[], baseline: string, target: T): T | null {
  let best: T | null = null;
  let bestShared = -1;
  for (const candidate of cases) {
    if (candidate.variant !== baseline) continue;
    const keys = Object.keys(candidate.params);
    if (!keys.every((k) => target.params[k] === candidate.params[k])) continue;
    if (keys.length > bestShared) {
      best = candidate;
      bestShared = keys.length;
    }
  }
  return best;
}

/**
 * The same variant's case on one worker, whose params differ from `target`'s only in the worker-count param
 * (the key whose value is 1 there and `target.workers` here, e.g. `workers` or `threads`); the target itself when
 * it has one worker; null if there is none.
 */
export function findOneWorkerCase<T extends { variant: string; params: Params; workers?: number }>(cases: T[], target: T): T | null {
  if (target.workers === undefined) return null;
  if (target.workers === 1) return target; // the one-worker case itself: its efficiency is 1 by definition
  for (const candidate of cases) {
    if (candidate.variant !== target.variant || candidate.workers !== 1) continue;
    const keys = new Set([...Object.keys(candidate.params), ...Object.keys(target.params)]);
    const differing = [...keys].filter((k) => candidate.params[k] !== target.params[k]);
    if (differing.length === 1 && candidate.params[differing[0]!] === 1 && target.params[differing[0]!] === target.workers) return candidate;
  }
  return null;
}

/**
 * The param that carries a variant's worker count: the first key (in the order of the first such case's params) whose
 * value equals `workers` in every case of `variant` that declares workers, e.g. `workers` for the event-loop pool and
 * `threads` for native-threads; null when no param does (a chunk sweep at a fixed 2 workers). Reporters use it too,
 * to group a variant's worker sweep by its other params.
 */
export function workerParam(cases: readonly { variant: string; params: Params; workers?: number }[], variant: string): string | null {
  const mine = cases.filter((c) => c.variant === variant && c.workers !== undefined);
  const first = mine[0];
  if (first === undefined) return null;
  return Object.keys(first.params).find((key) => mine.every((c) => c.params[key] === c.workers)) ?? null;
}
