/**
 * Ratios no machine gives, flagged instead of reported as measurements (issue 25: a forged clock gave a 239x
 * headline on 2 CPUs and an efficiency of 11,968 %, and both rendered and graded as measured). A pure function of a
 * results file, with no node: imports, so validate, the reports, the class page and the site's viewer can share it.
 *
 * The bounds, each with its margin stated:
 * - parallel efficiency at most EFFICIENCY_MAX (1.5): W workers doing the work of more than 1.5 W. Superlinear
 *   speedups from caches exist (a working set that fits W caches but not one), but none of this course's labs
 *   teaches one, and none of their committed runs comes near 1.5;
 * - the scaling of a variant over its own 1-worker case at most min(W, CPUs available) x EFFICIENCY_MAX: more workers
 *   than CPUs (or devices) cannot add more than the CPUs do;
 * - a graded ratio at most GRADE_RATIO_MAX (10): ten times the solution's speed on the same machine in the
 *   same rounds. The solution is the course's worked answer, not the fastest possible one, so a learner may beat it,
 *   but not tenfold with the same hardware; such a ratio says the measurement was not of the work (a cache, a forged
 *   clock), so the grade does not pass and an instructor looks.
 */
import { formatFixed, formatSignificant } from './format.ts';

export const EFFICIENCY_MAX = 1.5;
export const GRADE_RATIO_MAX = 10;

export interface PlausibilityInput {
  cpus: { available: number };
  speedups: ReadonlyArray<{
    variant: string;
    params: Record<string, string | number | boolean>;
    speedup: number;
    workers?: number | undefined;
    efficiency?: number | undefined;
    efficiencyBasis?: 'one-worker' | 'baseline' | undefined;
  }>;
  grade: { entries: ReadonlyArray<{ variant: string; params: Record<string, string | number | boolean>; ratio: number | null }> } | null;
}

/** One implausible ratio, in one line. */
export interface PlausibilityFlag {
  variant: string;
  params: Record<string, string | number | boolean>;
  kind: 'efficiency' | 'scaling' | 'grade';
  value: number;
  bound: number;
  message: string;
}

function label(variant: string, params: Record<string, unknown>): string {
  const p = Object.entries(params).map(([k, v]) => `${k}=${String(v)}`).join(', ');
  return p ? `${variant} (${p})` : variant;
}

/** Why a graded ratio cannot be a measurement, or null when it can. */
export function implausibleGradeRatio(ratio: number | null): string | null {
  if (ratio === null || ratio <= GRADE_RATIO_MAX) return null;
  return `implausible: ${formatSignificant(ratio)} times the solution's speed, above the ${GRADE_RATIO_MAX}x any honest measurement on the same machine gives; not graded as a pass (a cached answer or a forged clock?)`;
}

/** Every ratio in the results beyond its bound; empty when all are plausible. */
export function plausibilityFlags(results: PlausibilityInput): PlausibilityFlag[] {
  const flags: PlausibilityFlag[] = [];
  const cpus = Math.max(1, results.cpus.available);
  for (const s of results.speedups) {
    const name = label(s.variant, s.params);
    if (s.efficiency !== undefined && s.efficiency > EFFICIENCY_MAX) {
      flags.push({
        variant: s.variant, params: s.params, kind: 'efficiency', value: s.efficiency, bound: EFFICIENCY_MAX,
        message: `${name}: efficiency ${formatFixed(s.efficiency * 100, 0)} % is above ${EFFICIENCY_MAX * 100} %: ${s.workers} worker(s) cannot do the work of ${formatFixed(s.efficiency * (s.workers ?? 1), 1)}; not a measurement of the work`,
      });
    }
    if (s.workers !== undefined && s.efficiency !== undefined && s.efficiencyBasis === 'one-worker') {
      const scaling = s.efficiency * s.workers;
      const bound = Math.min(s.workers, cpus) * EFFICIENCY_MAX;
      if (scaling > bound && s.workers > cpus) {
        flags.push({
          variant: s.variant, params: s.params, kind: 'scaling', value: scaling, bound,
          message: `${name}: ${formatFixed(scaling, 1)}x its 1-worker time with ${s.workers} workers on ${cpus} CPUs, above ${cpus} x ${EFFICIENCY_MAX}; more workers than CPUs cannot add more than the CPUs do`,
        });
      }
    }
  }
  for (const e of results.grade?.entries ?? []) {
    const why = implausibleGradeRatio(e.ratio);
    if (why !== null) flags.push({ variant: e.variant, params: e.params, kind: 'grade', value: e.ratio as number, bound: GRADE_RATIO_MAX, message: `${label(e.variant, e.params)}: ${why}` });
  }
  return flags;
}
