/**
 * The output checks of the measured samples, in the judge's process (issue 42: the clock, the inputs and the output
 * checks belong to a process learner code never runs in). The runner sends each sample's output (sample-server.ts);
 * the judge makes its own copy of the sample's input from the lab's definition (`inputs`, `measureAt`: lab code, never
 * the learner's) and checks the output there with the lab's `checkSample`, its `expectedAt` outputs or `comparator`
 * against `expected`. An output too large to send each sample (a typed array over OUTPUT_BYTES_BOUND) is checked at
 * positions the judge draws after the answer has arrived, against `expectedAtPositions`, and then, often, fetched and
 * checked whole (whole-output.ts; in the check stage too).
 * A sample of several calls (sample-limits.ts callsPerSample) gets an input of the judge's own per call (a structured
 * clone, as the runner makes: measureAt may refill the arrays it returned before), and each call's output is checked.
 * The positions are drawn and compared in output-positions.ts; the check stage's outputs are judged in check-judge.ts
 * and check-verdicts.ts.
 * Input: the lab's definition and context, the cases the judge measures, how many samples each gets. Output: an
 * OutputJudge (the fresh number of each call, the judge's input for it, the check of what the runner sent).
 */
import { randomInt } from 'node:crypto';
import { serialize } from 'node:v8';
import { paramsKey } from '@parallel-course/core';
import { copyInput } from './copy-input.ts';
import { compareAt, drawPositions, positionsPerSample, unequal } from './output-positions.ts';
import { OUTPUT_BYTES_BOUND } from './sample-server.ts';
import { FRESH_INPUT_INDICES, usesFreshInputs, type CaseDefinition, type Comparison, type LabContext, type LabDefinition } from '../lab-definition.ts';

/** Distinct fresh input numbers in 1 .. FRESH_INPUT_INDICES - 1, drawn when asked, from the CSPRNG. */
export function freshDraw(): () => number {
  const used = new Set<number>();
  return () => {
    if (used.size >= FRESH_INPUT_INDICES / 4) throw new Error(`more fresh inputs than a run may draw (${FRESH_INPUT_INDICES / 4})`);
    let index: number;
    do index = randomInt(1, FRESH_INPUT_INDICES);
    while (used.has(index));
    used.add(index);
    return index;
  };
}

/** What the judge knows of one sample: its fresh number (revealed in 'prepare') and its own copy of the input. */
export interface JudgedInput {
  fresh: number;
  input: unknown;
}

/** The judge's checks of the outputs of a run's samples, one case at a time. */
export interface OutputJudge {
  /**
   * The inputs of the next sample of `key`, one per call (`calls`, 1 when absent): each call's fresh number and the
   * judge's own input, each its own object (made before the runner is asked).
   */
  next(key: string, calls?: number): JudgedInput[];
  /**
   * Before `key` is asked for `inputs` more calls than its OutputCase.samples (the measured samples of several calls
   * each): a lab with `expectedAt` draws them and computes their expected outputs now, while the runners wait.
   */
  reserve?(key: string, inputs: number): Promise<void>;
  /**
   * The bytes one more call of a sample of `key` holds in memory for its input (a fresh input of its own; 0 when every
   * call runs the measured input), or null when its samples are one call each (the lab's oneCallPerSample).
   */
  inputBytes?(key: string): number | null;
  /** Checks an output sent whole. */
  check(key: string, sample: JudgedInput, output: unknown): Comparison;
  /**
   * An output sent as `large` (`length` elements): the positions to ask for, drawn now (after the answer), or a
   * failed comparison when the lab cannot check it by positions or the length is not the expected one.
   */
  positions(key: string, sample: JudgedInput, length: number): number[] | Comparison;
  /** Checks the values the runner showed at `positions`. */
  checkAt(key: string, sample: JudgedInput, positions: readonly number[], values: ArrayLike<number>): Comparison;
}

/** One case as the judge checks it: its definition's params and how many samples it will be asked for. */
export interface OutputCase {
  key: string;
  definition: Pick<CaseDefinition<unknown, unknown>, 'variant' | 'params'>;
  /** Samples the judge will ask of it (warm-up and rewarm included): the fresh inputs drawn up front for `expectedAt`. */
  samples: number;
  /** Samples it is checked on (the position check's S). */
  checked: number;
}

/**
 * The judge for `cases` of `lab`: each distinct input made once (lab.inputs, by the lab's inputParams); with
 * `expectedAt`, every fresh input of the run drawn now and its expected output computed now, in one call (the lab may
 * spread it over every core: the runners wait meanwhile, so it times nothing).
 */
export async function labOutputJudge(lab: LabDefinition<unknown, unknown>, ctx: LabContext, cases: OutputCase[]): Promise<OutputJudge> {
  const draw = freshDraw();
  const byInput = new Map<string, { measure: unknown; measureAt: ((k: number) => unknown) | undefined; expected?: unknown }>();
  const ofCase = new Map<string, { inputKey: string; fresh: boolean; positions: number; queue: { fresh: number; input: unknown; expected: unknown }[]; bytes?: number }>();
  for (const c of cases) {
    const inputKey = paramsKey(c.definition.params, lab.inputParams);
    let made = byInput.get(inputKey);
    if (!made) {
      const inputs = await lab.inputs(c.definition.params, ctx);
      made = { measure: inputs.measure, measureAt: inputs.measureAt?.bind(inputs) };
      byInput.set(inputKey, made);
    }
    ofCase.set(c.key, { inputKey, fresh: usesFreshInputs(lab, made.measureAt), positions: positionsPerSample(c.checked), queue: [] });
  }
  /** The expected output of each input the judge made for expectedAt, by identity. */
  const precomputed = new Map<unknown, unknown>();
  // expectedAt: fresh inputs and their expected outputs, `count` of each case, in one call.
  const drawExpected = async (counts: { key: string; count: number }[]) => {
    const all: { key: string; fresh: number; input: unknown }[] = [];
    for (const { key, count } of counts) {
      const own = ofCase.get(key)!;
      const measureAt = byInput.get(own.inputKey)!.measureAt;
      if (!own.fresh || !measureAt) continue;
      for (let s = 0; s < count; s++) {
        const fresh = draw();
        all.push({ key, fresh, input: measureAt(fresh) });
      }
    }
    const expected = all.length > 0 ? await lab.expectedAt!(all.map((a) => a.input), ctx) : [];
    if (expected.length !== all.length) throw new Error(`the ${lab.name} lab's expectedAt gave ${expected.length} outputs for ${all.length} inputs`);
    all.forEach((a, i) => {
      ofCase.get(a.key)!.queue.push({ fresh: a.fresh, input: a.input, expected: expected[i] });
      precomputed.set(a.input, expected[i]);
    });
  };
  // Every sample planned so far (the warm-up's; the measured ones once their calls are known, reserve).
  if (lab.expectedAt) await drawExpected(cases.map((c) => ({ key: c.key, count: c.samples })));
  const expectedOf = async (inputKey: string) => {
    const made = byInput.get(inputKey)!;
    if (!('expected' in made)) made.expected = await lab.expected(made.measure);
    return made.expected;
  };
  // The measured input's expected output, for the cases without fresh inputs (computed now, not between samples).
  for (const c of cases) if (!ofCase.get(c.key)!.fresh) await expectedOf(ofCase.get(c.key)!.inputKey);
  const ownOf = (key: string) => {
    const own = ofCase.get(key);
    if (!own) throw new Error(`the judge has no case ${key}`);
    return own;
  };

  return {
    next(key, calls = 1) {
      const own = ownOf(key);
      const made = byInput.get(own.inputKey)!;
      return Array.from({ length: calls }, () => {
        if (!own.fresh || !made.measureAt) return { fresh: draw(), input: made.measure };
        if (lab.expectedAt) {
          const q = own.queue.shift();
          if (!q) throw new Error(`the judge asked ${key} for more samples than it planned`);
          return { fresh: q.fresh, input: q.input };
        }
        const fresh = draw();
        // measureAt may refill the arrays it returned before: each call of a sample of several keeps its own.
        return { fresh, input: calls > 1 ? copyInput(made.measureAt(fresh)) : made.measureAt(fresh) };
      });
    },
    async reserve(key, inputs) {
      if (lab.expectedAt && inputs > 0) await drawExpected([{ key, count: inputs }]);
    },
    inputBytes(key) {
      if (lab.oneCallPerSample !== undefined) return null;
      const own = ownOf(key);
      const made = byInput.get(own.inputKey)!;
      if (!own.fresh || !made.measureAt) return 0;
      // Its structured clone's size: what one more call's input holds in the runner, and again in the judge.
      try {
        own.bytes ??= serialize(made.measure).byteLength;
      } catch {
        return null;
      }
      return own.bytes;
    },
    check(key, sample, output) {
      const own = ownOf(key);
      if (!own.fresh) return lab.comparator.compare(byInput.get(own.inputKey)!.expected, output);
      if (precomputed.has(sample.input)) return lab.comparator.compare(precomputed.get(sample.input), output);
      return lab.checkSample!(sample.input, output);
    },
    positions(key, sample, length) {
      const own = ownOf(key);
      if (!lab.outputLength || !lab.expectedAtPositions) {
        return unequal('output', 'an output the harness can check', `a typed array of ${length} elements, too large to send whole and the ${lab.name} lab has no position check (outputLength, expectedAtPositions)`);
      }
      const expectedLength = lab.outputLength(sample.input);
      if (length !== expectedLength) return unequal('length', String(expectedLength), String(length));
      // No typed array of this length is over the bound (8 bytes an element at most): it should have come whole.
      if (length * 8 <= OUTPUT_BYTES_BOUND) return unequal('output', 'the whole output', `only its length (${length} elements), as if it were over ${OUTPUT_BYTES_BOUND} bytes`);
      return drawPositions(Math.min(own.positions, expectedLength), expectedLength);
    },
    checkAt(_key, sample, positions, values) {
      return compareAt(lab, sample.input, positions, values);
    },
  };
}
