/**
 * The batched case's property, beyond its outputs: inferInBatches really batches. Its outputs are the same whether it
 * calls the model once per batch or once per sample, and whether it hands the model a view of the samples or a copy;
 * the lesson (episode 08) is the number of calls and the bytes moved. Here the learner's inferInBatches runs once more,
 * after the check's outputs passed, through a model that records each call, on an awkward count (two batches and one
 * sample), and every call is judged: at most batchSize samples, ceil(count / batchSize) calls, no copy of the input.
 * Pure except for the one pass; the judge (`judgeBatching`) is unit-tested on records written by hand.
 * The pass runs in the lab process, beside the learner's code (`recordBatching`, the case's propertyEvidence), so its
 * record of calls is self-reported evidence; the verdict (`judgeBatchingEvidence`, the case's judgeProperty) is the
 * judge's, in its own process, from the batch size it knows.
 */
import { readEvidenceList } from '@parallel-course/harness';
import type { Model } from './session.ts';

/** One call the learner made: its sample count, and whether its input was a view of the caller's samples. */
export interface RecordedCall {
  count: number;
  view: boolean;
}

function sizesText(calls: readonly RecordedCall[]): string {
  const sizes = [...new Set(calls.map((c) => c.count))].sort((a, b) => a - b);
  return `${sizes.join(', ')} sample${sizes.length === 1 && sizes[0] === 1 ? '' : 's'}`;
}

/** Null when the calls batch as they should, else the failure's message: what was seen, why it matters, the fix. */
export function judgeBatching(calls: readonly RecordedCall[], total: number, batchSize: number): string | null {
  const expected = Math.ceil(total / batchSize);
  const biggest = Math.max(0, ...calls.map((c) => c.count));
  if (biggest > batchSize) {
    return `inferInBatches passed ${biggest} samples to one model.infer call, over the batch size ${batchSize}: a batch is at most batchSize samples (the last may be shorter).`;
  }
  if (calls.length > expected) {
    return (
      `inferInBatches made ${calls.length} model.infer calls for ${total} samples in batches of ${batchSize}, where ${expected} would do ` +
      `(calls of ${sizesText(calls)}): every call pays the fixed cost ` +
      '(crossing into ONNX Runtime, scheduling, reading every weight), so the outputs are right and the batching is lost. ' +
      'Fill each call with batchSize samples. Episode 08, "Batching".'
    );
  }
  const copies = calls.filter((c) => !c.view).length;
  if (copies > 0) {
    return (
      `inferInBatches copied the samples of ${copies} of its ${calls.length} calls before model.infer (slice, or a new array): ` +
      "a batch's samples already lie one after another in `samples`, so a view (samples.subarray(start, end)) hands them over " +
      'without copying; the copy is work the lesson measures as overhead.'
    );
  }
  return null;
}

/** A model that passes every call to `model` and records it against the caller's `samples`. */
function recording(model: Model, samples: Float32Array, calls: RecordedCall[]): Model {
  return {
    ep: model.ep,
    features: model.features,
    outputs: model.outputs,
    infer(input: Float32Array, count: number) {
      calls.push({ count, view: input.buffer === samples.buffer });
      return model.infer(input, count);
    },
    get latenciesMs() {
      return model.latenciesMs;
    },
    get busyMs() {
      return model.busyMs;
    },
    set busyMs(value: number) {
      model.busyMs = value;
    },
    resetStats: () => model.resetStats(),
    release: () => model.release(),
  };
}

export type InferInBatches = (model: Model, samples: Float32Array, count: number, batchSize: number) => Promise<Float32Array>;

/** Samples in the property's pass: two whole batches and one sample over (an awkward count). */
export function probeTotal(batchSize: number): number {
  return 2 * batchSize + 1;
}

/**
 * The most calls the record keeps: one per sample of the pass, and as many again (a learner who calls more often
 * than once per sample is past the rule anyway, and the judge reads no longer list).
 */
function maxRecorded(batchSize: number): number {
  return 2 * probeTotal(batchSize);
}

/** Runs the learner's inferInBatches once, on probeTotal(batchSize) samples, through a recording model: its calls. */
export async function recordBatching(inferInBatches: InferInBatches, model: Model, batchSize: number): Promise<RecordedCall[]> {
  const total = probeTotal(batchSize);
  const samples = new Float32Array(total * model.features);
  for (let i = 0; i < samples.length; i++) samples[i] = ((i * 7919) % 1000) / 1000;
  const calls: RecordedCall[] = [];
  await inferInBatches(recording(model, samples, calls), samples, total, batchSize);
  return calls.slice(0, maxRecorded(batchSize));
}

/**
 * The batched case's judgeProperty, in the judge's process: the record of calls as it arrived (self-reported: made in
 * the lab process) read entry by entry (a malformed one throws, naming it), judged against the judge's own count and
 * batch size.
 */
export function judgeBatchingEvidence(evidence: unknown, batchSize: number): string | null {
  const calls = readEvidenceList(evidence, { count: 'count', view: 'flag' }, maxRecorded(batchSize), 'the record of model.infer calls');
  const total = probeTotal(batchSize);
  const problem = judgeBatching(calls, total, batchSize);
  if (problem !== null) return problem;
  // Batches that pass must cover every sample of the pass once: a record that does not skipped samples, or was changed.
  const covered = calls.reduce((sum, call) => sum + call.count, 0);
  if (covered !== total) {
    return `inferInBatches passed ${covered} samples to model.infer in all, where the pass had ${total}: every sample goes to the model once (or lab or learner code changed the record of its calls)`;
  }
  return null;
}

/** Runs the learner's inferInBatches once through a recording model and judges its calls (in one process: tests). */
export async function checkBatching(inferInBatches: InferInBatches, model: Model, batchSize: number): Promise<string | null> {
  return judgeBatchingEvidence(await recordBatching(inferInBatches, model, batchSize), batchSize);
}
