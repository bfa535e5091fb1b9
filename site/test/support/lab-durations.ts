/**
 * How long one run of each lab takes, for the time-budget test: seconds of wall time, full and --quick, on the
 * course's reference machine (2 shared vCPUs). Stated constants until the harness plans a run's duration itself
 * (labs/harness/src/plan.ts, when it lands, should replace this table). Each is the longest run recorded, rounded up:
 *
 * - event-loop: full runs took 63 to 133 s, quick runs 44 and 45 s (instructor guide, "What each lab needs").
 * - task-granularity: full runs of the current size (2^22 points per worker, 2 workers) took 34 to 45 s; its README
 *   allows up to 3 minutes on a busy machine, and a quick run is under a minute.
 * - native-kernel: full runs took 31 to 33 s before the memory-bandwidth sweep was added; planned at a minute, a
 *   quick run at half that.
 * - gpu-batching: full runs took 56 s and 2 min 50 s (a busy machine), quick runs about 30 s (episode 8).
 */
import type { LabDuration } from '../../src/lib/time-budget.ts';

export const LAB_DURATIONS: Readonly<Record<string, LabDuration>> = {
  'event-loop': { full: 135, quick: 45 },
  'task-granularity': { full: 60, quick: 60 },
  'native-kernel': { full: 60, quick: 30 },
  'gpu-batching': { full: 170, quick: 30 },
};
