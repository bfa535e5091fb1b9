/**
 * The runner's half of the measure stage: it answers the supervisor's requests (run-protocol.ts JudgeRequest), one at
 * a time, in the order asked, and takes no decision of its own. The supervisor (judge-sampler.ts) chooses which case
 * runs when, which fresh input it gets and when, and times every sample with its own clock; this side only makes the
 * input ('prepare', outside the timed window), runs it and checks the output ('sample'), and reports.
 *
 * Input: the cases that passed the check, set up. Output: RunnerMessages ('prepared', 'sampled', 'ok', 'measured').
 */
import { collectGarbage } from './heap.ts';
import type { CaseInstance, Comparison } from './lab-definition.ts';
import type { JudgeRequest, RunnerMessage } from './run-protocol.ts';

/** One case the runner serves samples of. */
export interface ServedCase<Input, Output> {
  key: string;
  instance: CaseInstance<Input, Output>;
  /** The input of the sample numbered `sample` (the case's count so far, warm-up included) with fresh input `fresh`. */
  inputAt(sample: number, fresh: number): Input;
  /** Compares one sample's output with the expected output for the input it ran on. */
  check(output: Output, input: Input): Comparison;
  /** The 'measured' message of the case, once its samples are taken (its observations collected here). */
  measured(observations: Extract<RunnerMessage, { type: 'measured' }>['observations']): Extract<RunnerMessage, { type: 'measured' }>;
}

export interface SampleServerChannel {
  send(message: RunnerMessage): void;
  /** Subscribes to the supervisor's requests; returns the unsubscribe. */
  listen(onRequest: (request: unknown) => void): () => void;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why an output differs from the expected one, for the supervisor's message. */
function mismatchText(comparison: Comparison): string {
  const where = comparison.firstMismatch;
  return (
    'wrong output' +
    (where ? ` at [${where.index}]: expected ${where.expected}, got ${where.actual}` : '') +
    ' (it passed the check: a race, state kept between calls, or an answer kept from an earlier input?)'
  );
}

/**
 * Serves requests until 'finish' (then every case's 'measured' is sent) or until the channel closes. Requests are
 * handled strictly one after another; a request that is not one of JudgeRequest's is ignored (the supervisor, which
 * waits for each answer, then ends the run at its limit).
 */
export function serveSamples<Input, Output>(cases: ServedCase<Input, Output>[], channel: SampleServerChannel): Promise<void> {
  const byKey = new Map(cases.map((c) => [c.key, c]));
  const prepared = new Map<string, Input>();
  const taken = new Map<string, number>();
  return new Promise((resolve, reject) => {
    let queue = Promise.resolve();
    let finished = false;
    const handle = async (request: JudgeRequest): Promise<void> => {
      switch (request.type) {
        case 'prepare': {
          const served = byKey.get(request.caseKey);
          let error: string | null = served ? null : `no case ${request.caseKey} is set up`;
          if (served) {
            const sample = taken.get(served.key) ?? 0;
            taken.set(served.key, sample + 1);
            try {
              prepared.set(served.key, served.inputAt(sample, request.fresh));
            } catch (e) {
              error = `making the input of sample #${sample} threw: ${errorText(e)}`;
            }
          }
          channel.send({ type: 'prepared', seq: request.seq, error });
          return;
        }
        case 'sample': {
          if (request.caseKey === null) {
            // The calibration's empty task: the same path, with nothing to run or check.
            const t0 = performance.now();
            channel.send({ type: 'sampled', seq: request.seq, runnerMs: performance.now() - t0 });
            channel.send({ type: 'verdict', seq: request.seq, equal: true, reason: null, checkMs: 0 });
            return;
          }
          const served = byKey.get(request.caseKey);
          const input = served ? prepared.get(served.key) : undefined;
          if (!served || !prepared.has(served.key)) {
            channel.send({ type: 'sampled', seq: request.seq, runnerMs: 0 });
            channel.send({ type: 'verdict', seq: request.seq, equal: false, reason: `no input was prepared for ${request.caseKey}`, checkMs: 0 });
            return;
          }
          prepared.delete(served.key);
          // The runner's own times, for the supervisor's comparison only (its clock is sealed, seal.ts).
          const t0 = performance.now();
          let output: Output | undefined;
          let threw: string | null = null;
          try {
            output = await served.instance.run(input as Input);
          } catch (e) {
            threw = `threw: ${errorText(e)}`;
          }
          // The answer leaves the moment the call has returned; the check follows at once and the supervisor times it
          // too: work left for after the answer on this thread (a lazy output the check reads) makes the check longer,
          // and the supervisor charges that to the sample (judge-sampler.ts). A worker racing the check can gain at
          // most the check's own time.
          const t1 = performance.now();
          channel.send({ type: 'sampled', seq: request.seq, runnerMs: t1 - t0 });
          let equal = false;
          let reason = threw;
          if (threw === null) {
            try {
              const comparison = served.check(output as Output, input as Input);
              equal = comparison.equal;
              reason = equal ? null : mismatchText(comparison);
            } catch (e) {
              reason = `threw: ${errorText(e)}`;
            }
          }
          channel.send({ type: 'verdict', seq: request.seq, equal, reason, checkMs: performance.now() - t1 });
          // Outside the timed window: what the case does between samples (it may release what the sample held).
          if (equal) await served.instance.afterSample?.();
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
