/**
 * How long a measured sample may take and how many calls it makes, for the judge (judge-sampler.ts): a sample's time
 * limit (sampleLimitMs, multiCallLimitMs, and BETWEEN_LIMIT_MS for a request between samples), and a case's calls per
 * sample (callsPerSample) with a graded pair's shared count (pairedCalls), under the caps on calls and memory.
 * Input: a case's check time, or its call time, the round trip and its bytes per call. Output: limits in ms, counts of
 * calls with what kept them short. Pure: it imports nothing.
 */

/**
 * A measured sample may take this many times as long as the same call took in the check (its first, cold call on
 * the measured input), and never less than MIN_SAMPLE_LIMIT_MS: generous for a warm call, short for a hang.
 */
export const SAMPLE_LIMIT_FACTOR = 20;
export const MIN_SAMPLE_LIMIT_MS = 10_000;

/** The limit for one sample of a case whose check call on the measured input took `checkMs`. */
export function sampleLimitMs(checkMs: number | null): number {
  return Math.max(MIN_SAMPLE_LIMIT_MS, Math.ceil(SAMPLE_LIMIT_FACTOR * (checkMs ?? MIN_SAMPLE_LIMIT_MS)));
}

/**
 * The limit of a sample of `calls` calls of a case whose one-call limit is `oneCallLimitMs` and whose check call took
 * `checkMs`: the one-call limit, plus SAMPLE_LIMIT_FACTOR x the check time for each further call (or a tenth of a
 * second each where the check time is unknown). Reference: a 0.05 ms check, 1,000 calls: 10 s + 999 x 1 ms = 11 s.
 */
export function multiCallLimitMs(oneCallLimitMs: number, checkMs: number | null, calls: number): number {
  const perCallMs = checkMs === null ? 100 : SAMPLE_LIMIT_FACTOR * checkMs;
  return Math.ceil(oneCallLimitMs + Math.max(0, calls - 1) * perCallMs);
}

/** The longest the runner may take to answer a request between samples (calibration, garbage collection), in ms. */
export const BETWEEN_LIMIT_MS = 30_000;
/** The round trip should stay under this share of the baseline's median sample (issue 42); a note says when not. */
export const MAX_ROUND_TRIP_SHARE = 0.01;
/** A sample is at least this many round trips long where the caps allow: the round trip is then under MAX_ROUND_TRIP_SHARE of it. */
export const MIN_SAMPLE_TRIPS = Math.round(1 / MAX_ROUND_TRIP_SHARE);
/**
 * The sample length calls per sample aim for, in round trips: MIN_SAMPLE_TRIPS and 10% headroom, since the probes,
 * taken right after the warm-up, may read a call slower than the rounds do (a quick native-kernel run had 4 of 34
 * cases' median samples at 87-99 round trips when it aimed at 100).
 */
export const TARGET_SAMPLE_TRIPS = MIN_SAMPLE_TRIPS + MIN_SAMPLE_TRIPS / 10;
/** The most calls one sample makes (a 1 µs call's sample is then 1 ms: the round trip's 10%, and a note says so). */
export const MAX_CALLS_PER_SAMPLE = 1000;
/**
 * The most memory one sample's own inputs and outputs may hold (a fresh input per call, each output until it is sent),
 * in bytes: in the runner, and again in the judge's copy. 64 MiB: native-kernel's n = 128 product (640 kB a call) gets
 * up to 104 calls.
 */
export const MAX_SAMPLE_BYTES = 64 * 2 ** 20;

/** Discarded samples that set a case's calls per sample, of the count its warm-up suggests (judgeSamples). */
export const PROBE_SAMPLES = 3;
/** A case whose warm-up suggests a sample at least this many round trips long keeps that count without probes. */
export const PROBE_BELOW_TRIPS = 3 * MIN_SAMPLE_TRIPS;

/**
 * A graded case and the solution's copy of it run the larger of their two calls per sample (equal work) while that
 * keeps each one's sample within PAIR_SLOWDOWN x its pair's, or within PAIR_SAMPLE_TRIPS round trips (44 ms at a 0.1 ms
 * round trip), whichever is longer; beyond both, a side runs as many calls as fit, never fewer than its own count
 * (pairedCalls). So a side runs fewer calls than its pair only where its calls read over 10x slower than its pair's: a
 * grade ratio under 0.1, far below every target (0.8, 0.9). Why equal work is not needed there: the grade compares
 * times per call, and each side's own count already keeps the round trip under 1% of its sample; what equal work adds
 * is the same sample shape on both sides (as many inputs made before the window, as much garbage within it), kept
 * wherever a ratio could be near a target. 10x and not less: under a load of 11 on 2 vCPUs the warm-up read the same
 * code over 4x slower in one process than in the other (native-kernel's blocked n = 512), which would have split a
 * pair that should share its count. Without any bound a learner 3000x slower than a 2 us solution ran the solution's
 * 1,000 calls, 6 s a sample (forgery.test's graded cases went from 1-2 s to 25-70 s in CI, and to 24-230 s on a
 * loaded 2-vCPU machine).
 */
export const PAIR_SLOWDOWN = 10;
export const PAIR_SAMPLE_TRIPS = 4 * TARGET_SAMPLE_TRIPS;

/** A case's calls per sample, and what kept it from reaching MIN_SAMPLE_TRIPS round trips, if anything. */
export interface CallsPerSample {
  calls: number;
  /** 'cap': MAX_CALLS_PER_SAMPLE, 'memory': MAX_SAMPLE_BYTES, 'lab': the lab's oneCallPerSample or an output checked by positions; null: none. */
  shortBy: 'cap' | 'memory' | 'lab' | null;
}

/**
 * The calls per sample of a case whose one call takes about `callMs` (the judge's time of a warm-up sample less the
 * round trip), each holding `bytesPerCall` of input and output (null: one call a sample, the lab says so): the
 * smallest count whose sample lasts TARGET_SAMPLE_TRIPS round trips, within MAX_CALLS_PER_SAMPLE and MAX_SAMPLE_BYTES.
 * Reference: a 0.05 ms call with a 0.1 ms round trip gets ceil(110 x 0.1 / 0.05) = 220 calls.
 */
export function callsPerSample(callMs: number, roundTripMs: number, bytesPerCall: number | null): CallsPerSample {
  const floorMs = roundTripMs / (TARGET_SAMPLE_TRIPS * MAX_CALLS_PER_SAMPLE);
  // (Less a hair: 110 x 0.1 / 0.05 is 220.00000000000003 in doubles.)
  const needed = Math.ceil((TARGET_SAMPLE_TRIPS * roundTripMs) / Math.max(callMs, floorMs, Number.MIN_VALUE) - 1e-9);
  if (!(needed > 1)) return { calls: 1, shortBy: null };
  if (bytesPerCall === null) return { calls: 1, shortBy: 'lab' };
  const byMemory = bytesPerCall > 0 ? Math.max(1, Math.floor(MAX_SAMPLE_BYTES / bytesPerCall)) : Number.POSITIVE_INFINITY;
  const calls = Math.min(needed, MAX_CALLS_PER_SAMPLE, byMemory);
  return { calls, shortBy: calls === needed ? null : calls === byMemory && byMemory < MAX_CALLS_PER_SAMPLE ? 'memory' : 'cap' };
}

/**
 * The calls per sample of one case of a graded pair whose own count is `own` (callsPerSample, its call about `callMs`)
 * and whose pair's count and call time are `mate`: the larger count (equal work), held to what keeps its sample within
 * PAIR_SLOWDOWN x its pair's or PAIR_SAMPLE_TRIPS round trips, never under its own count; a count its memory or its lab
 * holds stays. Reference: own 1 call of 25 ms, the pair's 220 of 0.05 ms (an 11 ms sample), a 0.1 ms round trip: the
 * longer of 10 x 11 ms and 440 x 0.1 ms is 110 ms, so floor(110 / 25) = 4 calls (where 220 made a sample 5.5 s).
 */
export function pairedCalls(own: CallsPerSample, callMs: number, mate: { calls: number; callMs: number }, roundTripMs: number): CallsPerSample {
  if (mate.calls <= own.calls || own.shortBy === 'memory' || own.shortBy === 'lab') return own;
  const longestMs = Math.max(PAIR_SAMPLE_TRIPS * roundTripMs, PAIR_SLOWDOWN * mate.calls * mate.callMs);
  // (Plus a hair, as callsPerSample's less one: 440 x 0.1 / 0.08 is 549.9999999999999 in doubles.)
  const fits = Math.floor(longestMs / Math.max(callMs, Number.MIN_VALUE) + 1e-9);
  const calls = Math.max(own.calls, Math.min(mate.calls, fits));
  return calls === own.calls ? own : { calls, shortBy: null };
}
