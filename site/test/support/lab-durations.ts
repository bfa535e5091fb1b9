/**
 * How long one run of each lab takes, for the time-budget test: seconds of wall time, full and --quick, on the
 * course's course machine (2 shared vCPUs, so P = 2). The harness's planner (labs/harness/src/plan/plan-lab.ts, at the
 * course machine's rates) decides where it is present and the lab declares its planning; otherwise the stated
 * constants below, each the longest run recorded or planned, rounded up:
 *
 * - event-loop: full runs took 63 to 133 s, quick runs 44 and 45 s (instructor guide, "What each lab needs").
 * - task-granularity: full runs of 2^22 points per worker on 2 workers took 34 to 45 s; quick runs under a minute.
 * - native-kernel: planned at 164 s full and 27 s quick once the bandwidth sweep and the tuned rungs joined it.
 * - gpu-batching: full runs took 56 s and 2 min 50 s (a busy machine), quick runs about 30 s (episode 8).
 * - task-graph: quick runs took about 30 s on a busy 2-vCPU machine (2026-12-06), most of it start-up and pools.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LabDuration } from '../../src/lib/time-budget.ts';

export const LAB_DURATIONS: Readonly<Record<string, LabDuration>> = {
  'event-loop': { full: 135, quick: 45 },
  'task-granularity': { full: 60, quick: 60 },
  'native-kernel': { full: 165, quick: 30 },
  'gpu-batching': { full: 170, quick: 30 },
  'task-graph': { full: 45, quick: 30 },
};

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PLANNER = new URL('../../../labs/harness/src/plan/plan-lab.ts', import.meta.url);

export interface LabDurations {
  durations: Record<string, LabDuration>;
  /** Where each lab's duration came from, for the test's diagnostics. */
  sources: Record<string, string>;
}

/** Each lab's durations: the planner's where it answers, the stated constants otherwise. */
export async function labDurations(): Promise<LabDurations> {
  const durations: Record<string, LabDuration> = { ...LAB_DURATIONS };
  const sources: Record<string, string> = Object.fromEntries(Object.keys(LAB_DURATIONS).map((lab) => [lab, 'stated constant']));
  if (!existsSync(PLANNER)) return { durations, sources };
  let planLab: (options: Record<string, unknown>) => Promise<{ fit: { plan: { totalMs: number } } } | null>;
  try {
    ({ planLab } = await import(PLANNER.href));
  } catch (error) {
    for (const lab of Object.keys(sources)) sources[lab] = `stated constant (the planner did not load: ${(error as Error).message.split('\n')[0]})`;
    return { durations, sources };
  }
  for (const lab of Object.keys(LAB_DURATIONS)) {
    try {
      const plans = await Promise.all(
        [false, true].map((quick) => planLab({ lab, impl: 'solution', quick, p: 2, seed: 1, rootDir: ROOT, rates: 'course' })),
      );
      const [full, quick] = plans;
      if (!full || !quick) {
        sources[lab] = 'stated constant (the lab declares no planning)';
        continue;
      }
      durations[lab] = { full: Math.ceil(full.fit.plan.totalMs / 1000), quick: Math.ceil(quick.fit.plan.totalMs / 1000) };
      sources[lab] = 'the harness planner at the reference rates, P = 2';
    } catch (error) {
      sources[lab] = `stated constant (the planner failed: ${(error as Error).message.split('\n')[0]})`;
    }
  }
  return { durations, sources };
}
