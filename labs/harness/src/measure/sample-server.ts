/**
 * The runner's half of the measure stage: it answers the supervisor's requests (run-protocol.ts JudgeRequest), one at
 * a time, in the order asked, and takes no decision of its own. The supervisor (judge-sampler.ts) chooses which case
 * runs when, which fresh input it gets and when, times every sample with its own clock, and checks every output in its
 * own process (judge-outputs.ts); this side only makes the sample's inputs ('prepare', outside the timed window: one
 * per call, each its own; then the case's beforeSample, if it has one), runs them back to back and sends what each call returned ('sample'; a large typed array by
 * the values at the positions the judge asks, then, when the judge asks, block by block, 'show').
 *
 * Input: the cases that passed the check, set up. Output: RunnerMessages ('prepared', 'sampled', 'output', 'shown',
 * 'ok', 'measured').
 */
import { copyInput } from './copy-input.ts';
import { collectGarbage } from './heap.ts';
import { errorText } from '../errors.ts';
import type { CaseInstance } from '../lab-definition.ts';
import type { JudgeRequest, RunnerMessage, SampleOutput } from './run-protocol.ts';

/**
 * An output larger than this, in bytes, is not sent each sample: a typed array over it stays in the runner and the
 * judge asks for its values at positions it draws ('show'). 4 MiB: native-kernel's n = 512 product (2 MiB) is sent
 * whole, its n = 1024 product (8 MiB) and the triad's arrays (4x the last-level cache) are checked at positions.
 */
export const OUTPUT_BYTES_BOUND = 4 * 2 ** 20;

/** One case the runner serves samples of. */
export interface ServedCase<Input, Output> {
  key: string;
  instance: CaseInstance<Input, Output>;
  /** The input of the sample numbered `sample` (the case's count so far, warm-up included) with fresh input `fresh`. */
  inputAt(sample: number, fresh: number): Input;
  /**
   * Whether each call runs on an input of its own (LabInputs.measureAt): then the calls of a sample of several get
   * each a deep copy (copy-input.ts) of what inputAt returned (which may refill the arrays it returned before). Otherwise
   * every call runs the measured input, as every sample does.
   */
  freshInputs: boolean;
  /** The 'measured' message of the case, once its samples are taken (its observations collected here). */
  measured(observations: Extract<RunnerMessage, { type: 'measured' }>['observations']): Extract<RunnerMessage, { type: 'measured' }>;
}

export interface SampleServerChannel {
  /** Sends one message; what it returns settles once the message has left (rejects when it cannot be serialized). */
  send(message: RunnerMessage): void | Promise<void>;
  /** Subscribes to the supervisor's requests; returns the unsubscribe. */
  listen(onRequest: (request: unknown) => void): () => void;
}

/** How a sample's output crosses to the judge: whole, or (a typed array over OUTPUT_BYTES_BOUND) by positions. */
export function outputOf(output: unknown): SampleOutput {
  if (ArrayBuffer.isView(output) && output.byteLength > OUTPUT_BYTES_BOUND && 'length' in output) return { kind: 'large', length: Number(output.length) };
  return { kind: 'whole', value: output };
}

/** The values of a typed array at `positions`, NaN where a position is not one of its elements. */
export function valuesAt(output: ArrayLike<number> | null, positions: readonly unknown[]): Float64Array {
  const values = new Float64Array(Array.isArray(positions) ? positions.length : 0).fill(Number.NaN);
  if (output === null) return values;
  for (let k = 0; k < values.length; k++) {
    const p = positions[k];
    if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p < output.length) values[k] = Number(output[p]);
  }
  return values;
}

/**
 * The `count` values of a typed array from element `from` (a block the judge fetches to check the output whole,
 * whole-output.ts), NaN past its end; at most OUTPUT_BYTES_BOUND bytes of them, and none for a block that is not one.
 * Each value as valuesAt gives it (Number()): a BigInt64Array's too, which Float64Array.set would refuse.
 */
export function valuesIn(output: ArrayLike<number> | null, block: unknown): Float64Array {
  const { from, count } = (block ?? {}) as { from?: unknown; count?: unknown };
  if (!Number.isInteger(from) || !Number.isInteger(count) || (from as number) < 0 || (count as number) < 0) return new Float64Array(0);
  const start = from as number;
  const values = new Float64Array(Math.min(count as number, OUTPUT_BYTES_BOUND / 8)).fill(Number.NaN);
  if (output === null || start >= output.length) return values;
  const end = Math.min(output.length, start + values.length);
  if (ArrayBuffer.isView(output) && 'subarray' in output && !(output instanceof BigInt64Array || output instanceof BigUint64Array)) values.set((output as unknown as Float64Array).subarray(start, end));
  else for (let i = start; i < end; i++) values[i - start] = Number(output[i]);
  return values;
}

/** The values a 'show' asks for: its block when it names one, else its positions. */
export function shownValues(output: ArrayLike<number> | null, request: { positions: readonly unknown[]; block?: unknown }): Float64Array {
  return request.block === undefined ? valuesAt(output, request.positions) : valuesIn(output, request.block);
}

/**
 * Why a sample's outputs cannot be checked call by call: two calls returned the same object (or typed arrays at the
 * same place of one buffer), so the earlier call's output is gone; null when each call's output is its own.
 */
export function sharedOutput(outputs: readonly unknown[]): string | null {
  const objects = new Map<unknown, number>();
  const views = new Map<ArrayBufferLike, Map<number, number>>();
  for (const [j, output] of outputs.entries()) {
    if ((typeof output !== 'object' && typeof output !== 'function') || output === null) continue;
    let earlier = objects.get(output);
    if (earlier === undefined && ArrayBuffer.isView(output)) {
      const at = views.get(output.buffer) ?? new Map<number, number>();
      views.set(output.buffer, at);
      earlier = at.get(output.byteOffset);
      if (earlier === undefined) at.set(output.byteOffset, j);
    }
    if (earlier !== undefined) {
      return (
        `calls #${earlier} and #${j} of one sample returned the same output: a sample of several calls keeps every call's ` +
        `output until the harness checks it, so the lab must give each input an output of its own (made with the input, outside the timed region)`
      );
    }
    objects.set(output, j);
  }
  return null;
}

/** The most calls one sample may ask for (the judge asks at most sample-limits.ts MAX_CALLS_PER_SAMPLE). */
export const MAX_CALLS_SERVED = 10_000;

/**
 * Serves requests until 'finish' (then every case's 'measured' is sent) or until the channel closes. Requests are
 * handled strictly one after another; a request that is not one of JudgeRequest's is ignored (the supervisor, which
 * waits for each answer, then ends the run at its limit).
 */
export function serveSamples<Input, Output>(cases: ServedCase<Input, Output>[], channel: SampleServerChannel): Promise<void> {
  const byKey = new Map(cases.map((c) => [c.key, c]));
  /** Each case's prepared inputs, one per call of its next sample. */
  const prepared = new Map<string, Input[]>();
  const taken = new Map<string, number>();
  /** The last sample's outputs that were `large`, by call: what a 'show' reads. */
  let shown: (ArrayLike<number> | null)[] = [];
  /** The last sample's afterSample, run before the next request other than its 'show' (which reads its output). */
  let after: (() => Promise<void> | void) | null = null;
  return new Promise((resolve, reject) => {
    let queue = Promise.resolve();
    let finished = false;
    /** Sends a sample's outputs; one that cannot be serialized (a function in it, a getter that throws) is an error. */
    const sendOutputs = async (seq: number, outputs: SampleOutput[]): Promise<boolean> => {
      try {
        await channel.send({ type: 'output', seq, outputs });
        return true;
      } catch (e) {
        await channel.send({ type: 'output', seq, outputs: [{ kind: 'threw', error: `its output could not be sent to the harness: ${errorText(e)}` }] });
        return false;
      }
    };
    const handle = async (request: JudgeRequest): Promise<void> => {
      if (request.type !== 'show') {
        shown = [];
        const pending = after;
        after = null;
        // Outside the timed window: what the case does between samples (it may release what the sample held).
        await pending?.();
      }
      switch (request.type) {
        case 'prepare': {
          const served = byKey.get(request.caseKey);
          const fresh: unknown = request.fresh;
          let error: string | null = served ? null : `no case ${request.caseKey} is set up`;
          if (!Array.isArray(fresh) || fresh.length < 1 || fresh.length > MAX_CALLS_SERVED || !fresh.every((f) => typeof f === 'number')) {
            error = `a sample of ${Array.isArray(fresh) ? fresh.length : 'no'} calls was asked (1 to ${MAX_CALLS_SERVED})`;
          } else if (served) {
            const sample = taken.get(served.key) ?? 0;
            taken.set(served.key, sample + 1);
            prepared.delete(served.key);
            try {
              // Several calls: each on an input of its own, since inputAt may refill the arrays it returned before.
              const own = served.freshInputs && fresh.length > 1;
              prepared.set(
                served.key,
                fresh.map((f: number) => (own ? copyInput(served.inputAt(sample, f)) : served.inputAt(sample, f))),
              );
            } catch (e) {
              error = `making the input of sample #${sample} threw: ${errorText(e)}`;
            }
            // What the case does with the sample's input before the clock starts (device processes loading a fresh
            // pass), here under the same watch as the sample; a case that needs it keeps one call a sample.
            const inputs = prepared.get(served.key);
            if (error === null && inputs && served.instance.beforeSample) {
              if (inputs.length > 1) error = `a case with beforeSample runs one call a sample (its lab sets oneCallPerSample), not ${inputs.length}`;
              else {
                try {
                  await served.instance.beforeSample(inputs[0] as Input);
                } catch (e) {
                  error = `preparing sample #${sample} (beforeSample) threw: ${errorText(e)}`;
                }
              }
              if (error !== null) prepared.delete(served.key);
            }
          }
          channel.send({ type: 'prepared', seq: request.seq, error });
          return;
        }
        case 'sample': {
          if (request.caseKey === null) {
            // The calibration's empty task: the same path, with nothing to run.
            const t0 = performance.now();
            channel.send({ type: 'sampled', seq: request.seq, runnerMs: performance.now() - t0 });
            channel.send({ type: 'output', seq: request.seq, outputs: [{ kind: 'whole', value: null }] });
            return;
          }
          const served = byKey.get(request.caseKey);
          const inputs = served ? prepared.get(served.key) : undefined;
          if (!served || !inputs) {
            channel.send({ type: 'sampled', seq: request.seq, runnerMs: 0 });
            channel.send({ type: 'output', seq: request.seq, outputs: [{ kind: 'threw', error: `no input was prepared for ${request.caseKey}` }] });
            return;
          }
          prepared.delete(served.key);
          const copied = served.freshInputs && inputs.length > 1;
          // The sample's calls back to back, each on its own input; the runner's own time of them is for the
          // supervisor's comparison only (its clock is sealed, seal.ts).
          const results: Output[] = [];
          let threw: string | null = null;
          const t0 = performance.now();
          for (const input of inputs) {
            try {
              results.push(await served.instance.run(input));
            } catch (e) {
              threw = errorText(e);
              break;
            }
          }
          // The answer leaves the moment the last call has returned; the outputs follow at once and the supervisor
          // times their crossing too: work left for after the answer on this thread (a lazy output its serialization
          // reads) makes it longer, and the supervisor charges that to the sample (judge-clock.ts). The judge checks
          // every one.
          channel.send({ type: 'sampled', seq: request.seq, runnerMs: performance.now() - t0 });
          threw ??= sharedOutput(results);
          if (threw !== null) {
            channel.send({ type: 'output', seq: request.seq, outputs: [{ kind: 'threw', error: threw }] });
            return;
          }
          const crossings = results.map(outputOf);
          const sent = await sendOutputs(request.seq, crossings);
          if (sent) shown = crossings.map((c, j) => (c.kind === 'large' ? (results[j] as unknown as ArrayLike<number>) : null));
          const afterSample = served.instance.afterSample?.bind(served.instance);
          // A sample of several calls on copies of its input leaves them all as garbage (tens of MiB, on-heap rows
          // too): collected here, outside the timed window, not inside the next case's sample (native-kernel's
          // ts-naive read 5x slower at n = 256 while the rungs beside it made such samples).
          if (sent) after = copied ? () => Promise.resolve(afterSample?.()).then(() => void collectGarbage()) : (afterSample ?? null);
          return;
        }
        case 'show': {
          const call: unknown = request.call ?? 0;
          channel.send({ type: 'shown', seq: request.seq, values: shownValues(typeof call === 'number' ? (shown[call] ?? null) : null, request) });
          return;
        }
        case 'between': {
          if (request.collectGarbage) collectGarbage();
          for (const key of request.resetObservations) byKey.get(key)?.instance.resetObservations?.();
          channel.send({ type: 'ok', seq: request.seq });
          return;
        }
        case 'finish': {
          finished = true;
          for (const key of request.caseKeys) {
            const served = byKey.get(key);
            if (!served) continue;
            let observations = {};
            try {
              observations = (await served.instance.collectObservations?.()) ?? {};
            } catch (e) {
              channel.send({ type: 'case-failed', caseKey: key, reason: `threw while its observations were collected: ${errorText(e)}`, sample: null, stage: 'measure' });
              continue;
            }
            channel.send(served.measured(observations));
          }
          stop();
          resolve();
          return;
        }
      }
    };
    const stop = channel.listen((request) => {
      if (finished || typeof request !== 'object' || request === null || !('type' in request) || !('seq' in request)) return;
      queue = queue.then(() => handle(request as JudgeRequest)).catch((error: unknown) => {
        stop();
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
}
