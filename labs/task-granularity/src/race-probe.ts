/**
 * The tally's property, beyond its totals: its update of the shared histogram is indivisible. On 2 CPUs the check's
 * own runs can miss a race that a learner's "fix" only narrowed (count locally, then `counts[bin] += local[bin]` per
 * task: a window of nanoseconds per bin that two threads seldom hit at once). Here the learner's task function runs
 * on this thread, many times on one small slice, while another thread (race-adversary.ts) adds to the same counters
 * atomically and without pause: every update that is not atomic then has another thread's write inside its window.
 * The probe runs in the lab process, beside the learner's code, so its counts are self-reported evidence; the verdict
 * (`judgeRaceEvidence`, the tally case's judgeProperty) is the judge's, in its own process.
 */
import { Worker } from 'node:worker_threads';
import { readEvidence } from '@parallel-course/harness';
import { BINS, type TallyTask } from './monte-carlo.ts';

/** The learner's piscina task (exercises/task-granularity/tally-worker.ts's default export). */
export type TallyTaskFunction = (task: TallyTask) => unknown;

/** Points per call: small, so the merge into the shared counters is a large share of each call. */
const PROBE_SLICE = 64;
/**
 * Calls made while the other thread added (it made progress between the call's start and end), after which the
 * probe stops; on a loaded machine the two threads may take turns on one CPU instead, so it also stops at PROBE_MS.
 */
const PROBE_OVERLAPPING_CALLS = 20_000;
const PROBE_MS = 2_000;

export interface RaceProbeResult {
  calls: number;
  /** Calls during which the other thread made progress: only those can lose an update. */
  overlapping: number;
  /** The learner's points plus the other thread's adds: what the counters must hold. */
  expected: number;
  /** What they hold. */
  counted: number;
  /** The other thread's adds (0: it never ran while the probe did, and the probe proves nothing). */
  adversaryAdds: number;
}

const ADVERSARY = new URL('./race-adversary.ts', import.meta.url);

export async function probeRace(tally: TallyTaskFunction, seed: number): Promise<RaceProbeResult> {
  const counts = new Int32Array(new SharedArrayBuffer(BINS * Int32Array.BYTES_PER_ELEMENT));
  const control = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(ADVERSARY, { workerData: { counts, control } });
  const adds = new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the race probe's other thread exited with code ${code}`)));
  });
  try {
    // Wait (up to 10 s) until the other thread adds, so the learner's calls run while it does.
    while (Atomics.load(control, 0) === 0) {
      if (Atomics.wait(control, 0, 0, 10_000) === 'timed-out') throw new Error("the race probe's other thread did not start within 10 s");
    }
    const started = performance.now();
    let calls = 0;
    let overlapping = 0;
    while (overlapping < PROBE_OVERLAPPING_CALLS && (calls & 255 || performance.now() - started < PROBE_MS)) {
      const before = Atomics.load(control, 2);
      tally({ seed, start: 0, end: PROBE_SLICE, counts });
      if (Atomics.load(control, 2) !== before) overlapping++;
      calls++;
    }
    Atomics.store(control, 1, 1);
    const adversaryAdds = await adds;
    // Every point lands in exactly one bin, so the learner's calls add calls x PROBE_SLICE in all.
    return { calls, overlapping, expected: calls * PROBE_SLICE + adversaryAdds, counted: counts.reduce((a, b) => a + b, 0), adversaryAdds };
  } finally {
    Atomics.store(control, 1, 1);
    await worker.terminate();
  }
}

/** Null when no update was lost (or added), else the failure's message: what was seen, why, and the fix. */
export function judgeRace(result: RaceProbeResult): string | null {
  if (result.counted === result.expected) return null;
  const lost = result.expected - result.counted;
  const what = lost > 0 ? `lost ${lost} of ${result.expected} updates` : `counted ${-lost} more than the ${result.expected} updates made`;
  return (
    `the shared histogram races: its exact totals passed the check's runs, but with another thread adding to the same counters ` +
    `at the same time, ${what} (${result.calls} calls of ${PROBE_SLICE} points). A read, then a write (counts[bin] += n, ` +
    `or Atomics.load then Atomics.store) lets another thread's update fall between the two; on 2 CPUs the threads seldom ` +
    `overlap there, so the race hides in short runs and shows on a bigger machine. Make each update of a shared counter one ` +
    `indivisible operation (Atomics.add). Episode 06, "A race on shared memory".`
  );
}

/**
 * The tally case's judgeProperty, in the judge's process: the probe's counts as they arrived (self-reported: made in
 * the lab process) read field by field (a malformed one throws, naming it), then judged.
 */
export function judgeRaceEvidence(evidence: unknown): string | null {
  const result = readEvidence(evidence, { calls: 'count', overlapping: 'count', expected: 'count', counted: 'count', adversaryAdds: 'count' }, "the race probe's counts");
  // What the probe's own arithmetic makes true: counts that break it were not made by the probe.
  if (result.overlapping > result.calls || result.expected !== result.calls * PROBE_SLICE + result.adversaryAdds) {
    return (
      `the race probe's counts do not add up (${result.calls} calls of ${PROBE_SLICE} points, ${result.overlapping} overlapping, ` +
      `${result.adversaryAdds} adds by the other thread, ${result.expected} expected): lab or learner code changed them`
    );
  }
  return judgeRace(result);
}
