/**
 * The judge's clock corrections and what its notes say about them, for judge-sampler.ts: the bound on the round trip
 * a sample may take off (upperTrip), the time a sample records (recordedCallMs), the work after each answer charged
 * (chargeAfterAnswer), and the run's notes on calls per sample, the round trip, the charges and the runner's clock
 * (clockNotes).
 * Input: the calibration's round trips, each sample's judge and runner times, and per case the samples taken with
 * what came after each answer. Output: the recorded times per call (ms), the charges, the notes.
 */
import { formatFixed, formatShare, median as coreMedian, quantile, sorted } from '@parallel-course/core';
import type { SamplingPlan } from '../lab-definition.ts';
import type { JudgedCase, JudgedSamples } from './judged-case.ts';
import { type CallsPerSample, MAX_CALLS_PER_SAMPLE, MAX_ROUND_TRIP_SHARE, MAX_SAMPLE_BYTES, PAIR_SAMPLE_TRIPS, PAIR_SLOWDOWN } from './sample-limits.ts';

/** A sample's runner time may differ from the judge's by the round trip plus this share of the sample, plus 1 ms. */
export const CLOCK_TOLERANCE = 0.1;

/** The core's median, NaN for no values (a case with no samples left). */
function median(values: number[]): number {
  return values.length === 0 ? Number.NaN : coreMedian(values);
}

/** The most the round trip may take off a sample (ms), however wide a calibration reads: a cap on what it can hide. */
export const MAX_TRIP_BOUND_MS = 0.5;

/**
 * The 90th percentile of a calibration's round trips (the core's R-7 `quantile`), capped at MAX_TRIP_BOUND_MS and
 * never negative: the bound recordedCallMs uses; 0 for no round trips. At the calibration's 51 round trips it is
 * exactly the 46th smallest ((51 - 1) x 0.9 = 45, no interpolation), the order statistic the judge took before.
 */
export function upperTrip(trips: readonly number[]): number {
  const p90 = trips.length === 0 ? 0 : quantile(sorted(trips), 0.9);
  return Math.min(MAX_TRIP_BOUND_MS, Math.max(0, p90));
}

/**
 * The time a sample records: the lab process's own time of the call, held between the judge's time less the round
 * trip's bound and the judge's time. The judge's time alone carries the round trip (about 0.03-0.1 ms), which would
 * shrink every speedup between sub-millisecond samples toward 1 (a 0.07 ms BLAS call read 0.17 ms); the lab process's
 * time alone could be forged. Held between the two, an honest lab process records its own time, and a forged one
 * takes off at most the bound (the round trip's 90th percentile, at most MAX_TRIP_BOUND_MS).
 */
export function recordedCallMs(judgeMs: number, runnerMs: number, tripBoundMs: number): number {
  if (!Number.isFinite(runnerMs)) return judgeMs;
  return Math.min(judgeMs, Math.max(runnerMs, judgeMs - tripBoundMs));
}

/**
 * What comes after a sample's answer (its output crossing, a 'show') may take this many times the same step of a
 * trusted case, plus CHARGE_SLACK_MS, before the rest is charged: it shares the CPUs with a multi-threaded call's
 * threads winding down, and a busy machine delays either.
 */
export const CHARGE_SLACK_FACTOR = 2;
export const CHARGE_SLACK_MS = 1;

/**
 * Each sample of a case whose code is not trusted is the judge's time of its call plus what came after its answer
 * (the output's crossing, and the 'show' of a large one) beyond the same step of a trusted case on the same inputs
 * (the lab's baseline, or the solution's copy in a graded run: an output of the same shape) and the slack, as the
 * judge timed both: work left for after the answer (a lazy output the runner's serialization reads) is charged to the
 * sample it belongs to. The solution's copy of a graded case (trusted, but one side of a pair) is charged by the same
 * rule against the same reference as the learner's case: the two sides of a graded pair are judged alike, so a busy
 * machine's slow crossings, which any honest code gets, move both (charging the learner's side alone moved the solution
 * graded against itself below 1). Any other trusted case's sample (the baseline), or one with no trusted case on its
 * inputs, is its call. Times are per call (`afterMs` too; `calls` per sample, 1 when absent): the slack of a sample of
 * several calls is shared by them.
 */
export function chargeAfterAnswer(
  cases: JudgedCase[],
  taken: Map<string, { callMs: number[]; afterMs: number[]; sampleRounds: number[]; calls?: number }>,
): { samples: JudgedSamples['samples']; charged: Map<string, number> } {
  const trustedAfter = new Map<string, number[]>();
  for (const c of cases) if (c.trusted && taken.has(c.key)) trustedAfter.set(c.inputKey, [...(trustedAfter.get(c.inputKey) ?? []), ...taken.get(c.key)!.afterMs]);
  const samples: JudgedSamples['samples'] = new Map();
  const charged = new Map<string, number>();
  for (const c of cases) {
    const t = taken.get(c.key);
    if (!t) continue;
    const calls = t.calls ?? 1;
    const peer = trustedAfter.get(c.inputKey);
    const base = (c.trusted && c.pair === undefined) || !peer ? null : median(peer);
    const extra = t.afterMs.map((after) => (base === null ? 0 : Math.max(0, after - (CHARGE_SLACK_FACTOR * base + CHARGE_SLACK_MS / calls))));
    if (base !== null) charged.set(c.key, median(extra));
    samples.set(c.key, { samplesMs: t.callMs.map((call, i) => call + (extra[i] as number)), sampleRounds: t.sampleRounds, callsPerSample: calls });
  }
  return { samples, charged };
}

/** What the judge's clock adds, for the run's notes: calls per sample, the round trip, work after the answer charged, the runner's clock disagreeing. */
export function clockNotes(
  cases: JudgedCase[],
  taken: Map<string, { judgeMs: number[]; callMs: number[] }>,
  chosen: Map<string, CallsPerSample>,
  charged: Map<string, number>,
  roundTripMs: number,
  disagreements: Map<string, number>,
  plan: SamplingPlan,
): string[] {
  const notes: string[] = [];
  const several: string[] = [];
  const short: string[] = [];
  const costly: string[] = [];
  const off: string[] = [];
  const fewer: string[] = [];
  const why = { cap: `the cap of ${MAX_CALLS_PER_SAMPLE} calls`, memory: `the ${MAX_SAMPLE_BYTES / 2 ** 20} MiB its inputs may hold`, lab: 'the lab: one call a sample' } as const;
  for (const c of cases) {
    const t = taken.get(c.key);
    if (!t || t.callMs.length === 0) continue;
    const choice = chosen.get(c.key) ?? { calls: 1, shortBy: null };
    if (choice.calls > 1) several.push(`${c.label} ${choice.calls}`);
    const pairCalls = Math.max(0, ...cases.filter((m) => c.pair !== undefined && m.pair === c.pair && m.key !== c.key).map((m) => chosen.get(m.key)?.calls ?? 0));
    if (pairCalls > choice.calls) fewer.push(`${c.label} ${choice.calls} (its pair ${pairCalls})`);
    const sampleMs = median(t.judgeMs);
    if (roundTripMs > MAX_ROUND_TRIP_SHARE * sampleMs) {
      const reason = choice.shortBy ? `kept short by ${why[choice.shortBy]}` : 'its probes read its calls slower than its samples did: a busy machine';
      short.push(`${c.label} (${choice.calls} call${choice.calls > 1 ? 's' : ''}, ${formatShare(roundTripMs, sampleMs, 1)}: ${reason})`);
    }
    const extra = charged.get(c.key) ?? 0;
    if (extra > MAX_ROUND_TRIP_SHARE * median(t.callMs)) costly.push(`${c.label} +${formatFixed(extra, 3)} ms`);
    const n = disagreements.get(c.key) ?? 0;
    if (n > 0) off.push(`${c.label} ${n} of ${t.callMs.length + plan.warmupSamples}`);
  }
  if (several.length > 0) {
    notes.push(
      `Samples of several calls back to back, each on an input of its own, timed as one by the harness and recorded per call (the sample's time / its calls), ` +
        `so the harness's round trip (${formatFixed(roundTripMs, 3)} ms) stays under ${100 * MAX_ROUND_TRIP_SHARE}% of a sample; calls per sample: ${several.join(', ')}.`,
    );
  }
  if (fewer.length > 0) {
    notes.push(
      `A graded case and the solution's copy run the same calls per sample (equal work) while that keeps each sample within ${PAIR_SLOWDOWN}x its pair's or ${PAIR_SAMPLE_TRIPS} round trips (${formatFixed(PAIR_SAMPLE_TRIPS * roundTripMs, 1)} ms); ` +
        `a case over ${PAIR_SLOWDOWN}x slower than its pair ran fewer calls per sample than its pair, as many as fit (the grade compares times per call): ${fewer.join(', ')}.`,
    );
  }
  if (short.length > 0) {
    notes.push(
      `The harness's round trip per sample (${formatFixed(roundTripMs, 3)} ms, timed from the harness's process) is over ${100 * MAX_ROUND_TRIP_SHARE}% of the median sample of: ${short.join('; ')}. ` +
        `A sample a cap kept short records the lab process's own time of it, held within the round trip's 90th percentile of the harness's; the others, the harness's time, round trip included.`,
    );
  }
  if (costly.length > 0) {
    notes.push(
      `Outputs that took longer to arrive after the answer than ${CHARGE_SLACK_FACTOR} x a trusted case's on the same inputs plus ${CHARGE_SLACK_MS} ms, the rest charged to their samples ` +
        `(work after the answer, or a busy machine; median per call): ${costly.join(', ')}.`,
    );
  }
  if (off.length > 0) {
    notes.push(
      `The lab process's own time of a sample differed from the harness's (the one recorded) by more than the round trip plus ${100 * CLOCK_TOLERANCE}% plus 1 ms in: ${off.join(', ')} ` +
        `(a busy machine, or a clock tampered with in the lab process).`,
    );
  }
  return notes;
}
