/**
 * A sample's outputs checked in the judge's process, for the sampling stages (judge-sampler.ts takeSample): each call's
 * output whole, or at positions drawn once its answer is in (a 'show' the runner answers, timed), and where drawn too,
 * fetched block by block and checked whole once every call's positions are read (whole-output.ts); the first wrong,
 * thrown or unreadable output fails the case with its sample and call named. largeOutputNote says what the large ones
 * cost.
 * Input: the case, the judge's inputs of the sample's calls, what the runner sent for each. Output: the time the 'show'
 * requests took (ms), or null with the case failed; the run's tally of large outputs.
 */
import { formatBytes, formatSeconds } from '@parallel-course/core';
import { errorText } from '../errors.ts';
import type { Comparison } from '../lab-definition.ts';
import { sampleMismatchText } from './check.ts';
import type { JudgeChannel, Watch } from './judge-channel.ts';
import type { JudgedCase, JudgedSamples } from './judged-case.ts';
import type { JudgedInput, OutputJudge } from './judge-outputs.ts';
import { OUTPUT_BYTES_BOUND } from './sample-server.ts';
import { drawWholeCheck, fetchWhole, WHOLE_CHECK_BYTES, type OutputBlock } from './whole-output.ts';

/** Outputs over the bound checked at positions, those of them also checked whole, the bytes fetched, the times in ms. */
export interface LargeOutputs {
  outputs: number;
  whole: number;
  bytes: number;
  fetchMs: number;
  checkMs: number;
}

/** What a sampling run's checks read and fill: its output judge, its channels, its failed cases, its large outputs. */
export interface SampleChecking {
  outputs: OutputJudge;
  /** The channel of the process that runs a case; of a case in several (JudgedCase forks), process `fork`'s. */
  of(caseKey: string, fork?: number): JudgeChannel;
  failed: JudgedSamples['failed'];
  large: LargeOutputs;
}

/** Why an output differs from the expected one, for the case's failed entry. */
function mismatchText(comparison: Comparison, stage: 'warm-up' | 'measure', index: number, call = ''): string {
  return sampleMismatchText(stage === 'warm-up' ? 'warm-up' : 'measured', index, comparison, call);
}

/** A call's output checked: its comparison, the time its positions' 'show' took, and its whole check when drawn. */
type CallChecked = { comparison: Comparison; showMs: number; whole?: () => Promise<Comparison> } | { threw: string };

/**
 * Checks one call's output in this process: whole, or at positions drawn now that the answer is in; where drawn too
 * (whole-output.ts drawWholeCheck), `whole` fetches it block by block and checks it whole, to be run once every call's
 * positions are read (the fetch takes seconds). The positions' 'show' is timed (showMs, charged beyond a trusted
 * case's); the whole fetch is not (the judge's choice, not the sample's work).
 */
async function checkCallOutput(run: SampleChecking, c: JudgedCase, sample: JudgedInput, output: unknown, call: number, watch: Watch, channel: JudgeChannel): Promise<CallChecked> {
  const sent = output as { kind?: unknown; value?: unknown; length?: unknown; error?: unknown } | null;
  if (sent?.kind === 'threw') return { threw: String(sent.error).slice(0, 2000) };
  if (sent?.kind === 'whole') return { comparison: run.outputs.check(c.key, sample, sent.value), showMs: 0 };
  if (sent?.kind !== 'large' || typeof sent.length !== 'number') return { threw: 'its output arrived in no form the protocol has' };
  const positions = run.outputs.positions(c.key, sample, sent.length);
  if (!Array.isArray(positions)) return { comparison: positions, showMs: 0 };
  const show = async (ask: { positions: number[]; block?: OutputBlock }) => {
    const shown = await channel.ask({ type: 'show', caseKey: c.key, call, ...ask }, watch);
    const values = shown.answers[0]?.type === 'shown' ? shown.answers[0].values : null;
    return { values: ArrayBuffer.isView(values) || Array.isArray(values) ? (values as ArrayLike<number>) : [], ms: (shown.receivedAt[0] as number) - shown.sentAt };
  };
  const atPositions = await show({ positions });
  const comparison = run.outputs.checkAt(c.key, sample, positions, atPositions.values);
  run.large.outputs++;
  if (!comparison.equal || !drawWholeCheck(sent.length)) return { comparison, showMs: atPositions.ms };
  const length = sent.length;
  const whole = async (): Promise<Comparison> => {
    const t0 = performance.now();
    const copy = await fetchWhole(length, async (block) => (await show({ positions: [], block })).values);
    const t1 = performance.now();
    const wholeComparison = run.outputs.check(c.key, sample, copy);
    run.large.whole++;
    run.large.bytes += copy.byteLength;
    run.large.fetchMs += t1 - t0;
    run.large.checkMs += performance.now() - t1;
    return wholeComparison;
  };
  return { comparison, showMs: atPositions.ms, whole };
}

/**
 * Checks every call's output of one sample (`sent`, one per input, from the process of `channel`): null and the case
 * failed where one is wrong, or threw; else the time the 'show' requests of large outputs took, in ms.
 */
export async function checkSampleOutputs(run: SampleChecking, c: JudgedCase, inputs: JudgedInput[], sent: unknown[], stage: 'warm-up' | 'measure', index: number, watch: Watch, channel: JudgeChannel): Promise<number | null> {
  const calls = inputs.length;
  let showMs = 0;
  const wholeChecks: { where: string; whole: () => Promise<Comparison> }[] = [];
  /** The comparison (or what threw) of one check; false once it failed the case. */
  const passes = async (where: string, check: () => Promise<CallChecked>): Promise<CallChecked | false> => {
    let checked: CallChecked;
    try {
      checked = await check();
    } catch (error) {
      // The lab's check threw on what the runner sent (an output of the wrong type, say): a wrong output.
      const comparison = { equal: false, firstMismatch: null, maxAbsError: null, maxRelError: null };
      run.failed.set(c.key, { reason: `${mismatchText(comparison, stage, index, where)}: its check threw on it (${errorText(error)})`, stage, sample: index });
      return false;
    }
    if ('threw' in checked) {
      run.failed.set(c.key, { reason: `threw while it was measured (${stage}): ${checked.threw}`, stage, sample: index });
      return false;
    }
    if (!checked.comparison.equal) {
      run.failed.set(c.key, { reason: mismatchText(checked.comparison, stage, index, where), stage, sample: index });
      return false;
    }
    return checked;
  };
  for (const [j, input] of inputs.entries()) {
    const where = calls > 1 ? `, call #${j} of ${calls},` : '';
    const checked = await passes(where, () => checkCallOutput(run, c, input, sent[j], j, watch, channel));
    if (checked === false || 'threw' in checked) return null;
    showMs += checked.showMs;
    if (checked.whole) wholeChecks.push({ where, whole: checked.whole });
  }
  // Every call's positions read first, at once after the answer; then the whole checks drawn, seconds each.
  for (const { where, whole } of wholeChecks) if ((await passes(where, async () => ({ comparison: await whole(), showMs: 0 }))) === false) return null;
  return showMs;
}

/** The run's note on its outputs over the bound: how many were checked at positions, how many whole, at what cost. */
export function largeOutputNote(large: LargeOutputs): string {
  return (
    `Outputs over ${OUTPUT_BYTES_BOUND / 2 ** 20} MiB were checked at positions drawn after each answer (${large.outputs}), and whole in ${large.whole} of them ` +
    `(each with probability ${WHOLE_CHECK_BYTES / 2 ** 20} MiB / its size, at most 1, drawn after its answer): ${formatBytes(large.bytes)} fetched in ${formatSeconds(large.fetchMs)} and checked in ${formatSeconds(large.checkMs)}, outside the timed window.`
  );
}
