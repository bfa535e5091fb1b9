/**
 * What a report must say beside its scaling numbers, so that none is printed bare (issue 43): an efficiency above 1
 * and a negative Karp-Flatt value with their usual causes, a worker sweep too short for an Amdahl fit, and the fit's
 * maximum speedup as an extrapolation. Pure: sentences from a run's speedups and fits, for every reporter (report.md,
 * report.html, the learner's report, the viewer).
 */
import type { AmdahlFit, SpeedupEntry } from '../results-schema.ts';
// Two significant digits in these notes: they name a size and a direction, not a measurement to quote.
import { formatBracketInterval, formatPercent, formatSignificant } from '../format.ts';
import { AMDAHL_MIN_FREE_POINTS, amdahlFreePoints } from './scaling.ts';

/** The run as the notes read it: its speedups, its fits and the CPUs it could use (P). */
export interface ScalingNotesInput {
  speedups: readonly SpeedupEntry[];
  amdahl: readonly AmdahlFit[];
  /** P: the CPUs the run could use (results.cpus.available). */
  availableParallelism: number;
}

/** Where an efficiency above 1 (a superlinear speedup) usually comes from, in the order to suspect them. */
export const SUPERLINEAR_CAUSES =
  'a slow one-worker baseline (the one-worker form does work or waits the parallel form does not), cache effects ' +
  "(each worker's share of the data fits in a cache the whole did not), or noise";

const label = (s: SpeedupEntry) => {
  const params = Object.entries(s.params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
  return params ? `${s.variant} (${params})` : s.variant;
};

/**
 * The notes, one sentence each:
 * - every entry with efficiency > 1: named, with its interval, whether the interval reaches 1 (noise) and the usual
 *   causes (SUPERLINEAR_CAUSES); and its negative Karp-Flatt value is the same thing seen from the other side;
 * - every worker sweep (variant and its other params) with fewer than AMDAHL_MIN_FREE_POINTS worker counts above 1
 *   up to P: no Amdahl fit, and why;
 * - every fit: its maximum speedup 1 / f is extrapolated, not measured, beyond the largest worker count it saw.
 * Reference: efficiency 1.1 [0.95, 1.2] at 2 workers with Karp-Flatt -0.088 gives one sentence naming 110 %, the
 * interval reaching 1, -0.088 and the causes.
 */
export function scalingNotes(run: ScalingNotesInput): string[] {
  const notes: string[] = [];
  for (const s of run.speedups) {
    const e = s.efficiency;
    if (e === undefined || s.oversubscribed) continue;
    if (e > 1) {
      const ci = s.efficiencyCi95;
      const noise = ci && ci[0] <= 1 ? `its interval ${formatBracketInterval(ci, 2)} reaches 1, so noise alone may explain it` : ci ? `its interval ${formatBracketInterval(ci, 2)} lies above 1` : 'it has no interval';
      const kf = s.karpFlatt !== undefined && s.karpFlatt < 0 ? `, and its Karp-Flatt serial fraction ${formatSignificant(s.karpFlatt, 2)} is negative, the same superlinear speedup seen from the other side` : '';
      notes.push(
        `${label(s)}: efficiency ${formatPercent(e)}, above 1 (more than ${s.workers ?? '?'} times one worker's speed from ${s.workers ?? '?'} workers)${kf}; ${noise}. ` +
          `Superlinear speedups are rarely real; the usual causes: ${SUPERLINEAR_CAUSES}. Check the one-worker time before quoting it.`,
      );
    } else if (s.karpFlatt !== undefined && s.karpFlatt < 0) {
      notes.push(`${label(s)}: Karp-Flatt serial fraction ${formatSignificant(s.karpFlatt, 2)} is negative (a speedup above the worker count); the usual causes: ${SUPERLINEAR_CAUSES}.`);
    }
  }
  // Worker sweeps up to P, by variant and the params other than the worker count (the param whose value equals the
  // entry's workers in every entry of the variant, e.g. `workers` or `threads`).
  const workerKeys = new Map<string, string[]>();
  for (const s of run.speedups) {
    if (s.workers === undefined) continue;
    const keys = Object.keys(s.params).filter((k) => s.params[k] === s.workers);
    const known = workerKeys.get(s.variant);
    workerKeys.set(s.variant, known === undefined ? keys : known.filter((k) => keys.includes(k)));
  }
  const sweeps = new Map<string, { variant: string; name: string; workers: number[] }>();
  for (const s of run.speedups) {
    if (s.workers === undefined || s.workers > run.availableParallelism) continue;
    const held = workerKeys.get(s.variant) ?? [];
    const others = Object.entries(s.params).filter(([k]) => !held.includes(k));
    const key = JSON.stringify([s.variant, others]);
    const name = others.length ? `${s.variant} (${others.map(([k, v]) => `${k}=${String(v)}`).join(', ')})` : s.variant;
    const entry = sweeps.get(key) ?? { variant: s.variant, name, workers: [] };
    entry.workers.push(s.workers);
    sweeps.set(key, entry);
  }
  for (const { name, workers } of sweeps.values()) {
    const free = amdahlFreePoints(workers.map((w) => ({ workers: w })));
    if (free === 0 || free >= AMDAHL_MIN_FREE_POINTS) continue;
    notes.push(
      `${name}: no Amdahl fit. Up to P = ${run.availableParallelism} the sweep has ${free} worker count above 1, and a one-parameter fit needs at least ${AMDAHL_MIN_FREE_POINTS}: ` +
        'through one point it would have no error and predict nothing, and its "maximum speedup" would be an extrapolation from one measurement. Read the Karp-Flatt value at that point instead.',
    );
  }
  for (const fit of run.amdahl) {
    if (fit.maxSpeedup === null) continue;
    const most = Math.max(1, ...[...sweeps.values()].filter((w) => w.variant === fit.variant).flatMap((w) => w.workers));
    notes.push(
      `${fit.variant}: the Amdahl fit's maximum speedup, 1 / f = ${formatSignificant(fit.maxSpeedup, 2)}x, is extrapolated, not measured: the sweep measured up to ${most} workers.`,
    );
  }
  return notes;
}
