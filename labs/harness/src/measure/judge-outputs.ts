/**
 * The output checks of the measured samples, in the judge's process (issue 42: the clock, the inputs and the output
 * checks belong to a process learner code never runs in). The runner sends each sample's output (sample-server.ts);
 * the judge makes its own copy of the sample's input from the lab's definition (`inputs`, `measureAt`: lab code, never
 * the learner's) and checks the output there with the lab's `checkSample`, its `expectedAt` outputs or `comparator`
 * against `expected`. An output too large to send each sample (a typed array over OUTPUT_BYTES_BOUND) is checked at
 * positions the judge draws after the answer has arrived, against `expectedAtPositions`, and then, often, fetched and
 * checked whole (whole-output.ts; in the check stage too).
 * A sample of several calls (judge-sampler.ts callsPerSample) gets an input of the judge's own per call (a structured
 * clone, as the runner makes: measureAt may refill the arrays it returned before), and each call's output is checked.
 * The check stage's outputs are the judge's too: CheckJudge compares each with the judge's own expected output, and
 * CheckVerdicts decides each case's check from those comparisons, for one runner (run-attempt.ts).
 * Input: the lab's definition and context, the cases the judge measures, how many samples each gets. Output: an
 * OutputJudge (the fresh number of each call, the judge's input for it, the check of what the runner sent).
 */
import { randomFillSync, randomInt } from 'node:crypto';
import { serialize } from 'node:v8';
import { paramsKey, type CorrectnessEntry } from '@parallel-course/core';
import { errorText } from '../errors.ts';
import { MAX_EVIDENCE_BYTES } from '../property-evidence.ts';
import { checkMismatchText, judgePropertyHere } from './check.ts';
import { copyInput } from './copy-input.ts';
import { OUTPUT_BYTES_BOUND } from './sample-server.ts';
import { drawWholeCheck, fetchWhole, type OutputBlock } from './whole-output.ts';
import { FRESH_INPUT_INDICES, usesFreshInputs, type CaseDefinition, type Comparison, type LabContext, type LabDefinition } from '../lab-definition.ts';

/**
 * The position check's promise: a kernel that leaves at least this fraction of its output wrong (computes at most
 * 1 - WRONG_FRACTION of it: a skipped row of a 1024 x 1024 product is 0.1%) is caught with probability at least
 * 1 - MISS_PROBABILITY over a case's samples.
 */
export const WRONG_FRACTION = 0.001;
export const MISS_PROBABILITY = 1e-6;
/** Positions per sample at least (a case of very many samples still reads a spread of its output each time). */
export const MIN_POSITIONS = 64;

/**
 * Positions to check per sample of a case that gets `samples` checked samples: P uniform positions miss a wrong
 * fraction w of the output with probability (1 - w)^P per sample, (1 - w)^(P·S) over S samples, so
 * P = ceil(ln(MISS_PROBABILITY) / (S ln(1 - WRONG_FRACTION))) keeps the miss at most MISS_PROBABILITY
 * (13,809 positions over the run: 1,973 a sample over a quick run's 7 samples).
 */
export function positionsPerSample(samples: number, wrongFraction = WRONG_FRACTION, miss = MISS_PROBABILITY): number {
  return Math.max(MIN_POSITIONS, Math.ceil(Math.log(miss) / (Math.max(1, samples) * Math.log1p(-wrongFraction))));
}

/** `count` positions uniform in 0 .. length - 1, from the CSPRNG (53 random bits each: no modulo bias to speak of). */
export function drawPositions(count: number, length: number): number[] {
  const words = randomFillSync(new Uint32Array(2 * count));
  const positions: number[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const unit = ((words[2 * k] as number) * 2 ** 21 + ((words[2 * k + 1] as number) >>> 11)) / 2 ** 53;
    positions[k] = Math.floor(unit * length);
  }
  return positions;
}

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

function unequal(index: string | number, expected: string, actual: string): Comparison {
  return { equal: false, firstMismatch: { index, expected, actual }, maxAbsError: null, maxRelError: null };
}

/** The values shown at `positions` against the lab's expected output there (expectedAtPositions), by its comparator. */
function compareAt(lab: LabDefinition<unknown, unknown>, input: unknown, positions: readonly number[], values: ArrayLike<number>): Comparison {
  const expected = lab.expectedAtPositions!(input, positions);
  const actual = new (Object.getPrototypeOf(expected as object).constructor as new (n: number) => { [k: number]: number; length: number })(positions.length);
  for (let k = 0; k < positions.length; k++) actual[k] = values[k] ?? Number.NaN;
  const comparison = lab.comparator.compare(expected, actual);
  const where = comparison.firstMismatch;
  // The index the comparator names is into the positions checked: name the output's own.
  if (where && typeof where.index === 'number') return { ...comparison, firstMismatch: { ...where, index: positions[where.index] ?? where.index } };
  return comparison;
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

/** The size of a property evidence as it crossed (its structured-clone serialization), in bytes; Infinity when it cannot be. */
function evidenceBytes(evidence: unknown): number {
  try {
    return serialize(evidence).byteLength;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The longest a probe from outside may take, in ms: within the property check's announced call (CHECK_CALL_TIMEOUT_MS). */
export const PROBE_LIMIT_MS = 30_000;

/**
 * The check stage's comparisons, in the judge's process: each check output the runner sends ('check-output') is
 * compared with the expected output of the judge's own copy of that check input (lab.inputs, lab.expected: lab code
 * alone), made when the first output on that input arrives and kept until `release` (the measure stage makes its own:
 * measureAt may refill the measured input's arrays).
 */
export class CheckJudge {
  readonly #lab: LabDefinition<unknown, unknown>;
  readonly #ctx: LabContext;
  readonly #definitions: Map<string, Pick<CaseDefinition<unknown, unknown>, 'params' | 'judgeProperty' | 'probeFromOutside'>>;
  #inputs = new Map<string, Promise<unknown[]>>();
  #expected = new Map<string, Promise<unknown>>();

  constructor(lab: LabDefinition<unknown, unknown>, ctx: LabContext, definitions: Map<string, Pick<CaseDefinition<unknown, unknown>, 'params' | 'judgeProperty' | 'probeFromOutside'>>) {
    this.#lab = lab;
    this.#ctx = ctx;
    this.#definitions = definitions;
  }

  /** The comparator's description, for the entries the judge writes. */
  get comparator(): string {
    return this.#lab.comparator.description;
  }

  /** Compares check output #`index` of case `key` with its expected output; null when it is not the judge's to check. */
  async check(key: string, index: number, output: unknown): Promise<Comparison | null> {
    const sent = output as { kind?: unknown; value?: unknown } | null;
    if (sent?.kind === 'large') return null;
    if (sent?.kind !== 'whole') return unequal('output', 'an output', 'none in a form the protocol has');
    const { inputKey, all } = await this.#inputsOf(key);
    if (!Number.isInteger(index) || index < 0 || index >= all.length) return unequal('input', `a check input #0..${all.length - 1}`, String(index));
    const slot = `${inputKey}#${index}`;
    let expected = this.#expected.get(slot);
    if (!expected) {
      expected = Promise.resolve(this.#lab.expected(all[index]));
      this.#expected.set(slot, expected);
    }
    return this.#lab.comparator.compare(await expected, sent.value);
  }

  /**
   * Why check output #`index` of case `key`, sent as `large` (`length` elements), cannot be fetched and checked whole
   * (the lab has no check for large outputs, the length is not the expected one, it is not over the bound), or null.
   */
  async largeProblem(key: string, index: number, length: number): Promise<Comparison | null> {
    const lab = this.#lab;
    if (!lab.outputLength || !lab.expectedAtPositions) {
      return unequal('output', 'an output the harness can check', `a typed array of ${length} elements, too large to send whole and the ${lab.name} lab has no position check (outputLength, expectedAtPositions)`);
    }
    const { all } = await this.#inputsOf(key);
    if (!Number.isInteger(index) || index < 0 || index >= all.length) return unequal('input', `a check input #0..${all.length - 1}`, String(index));
    const expectedLength = lab.outputLength(all[index]);
    if (length !== expectedLength) return unequal('length', String(expectedLength), String(length));
    if (length * 8 <= OUTPUT_BYTES_BOUND) return unequal('output', 'the whole output', `only its length (${length} elements), as if it were over ${OUTPUT_BYTES_BOUND} bytes`);
    return null;
  }

  /**
   * A large check output's positions to ask for (positionsPerSample(1): a check input is one sample), drawn now that
   * it has arrived, or why it cannot be checked so.
   */
  async positions(key: string, index: number, length: number): Promise<number[] | Comparison> {
    const problem = await this.largeProblem(key, index, length);
    return problem ?? drawPositions(Math.min(positionsPerSample(1), length), length);
  }

  /** Checks the values the runner showed at `positions` of check output #`index` of case `key`. */
  async checkAt(key: string, index: number, positions: readonly number[], values: ArrayLike<number>): Promise<Comparison> {
    const { all } = await this.#inputsOf(key);
    return compareAt(this.#lab, all[index], positions, values);
  }

  /**
   * Checks check output #`index` of case `key`, fetched whole (whole-output.ts): at positionsPerSample(1) positions
   * against `expectedAtPositions` (the comparator's own tolerance, entry by entry), then whole, by the lab's
   * checkSample where it has one (no expected array: native-kernel's triad is 512 MiB at 2^26; a product's Freivalds
   * test has a looser tolerance than its entries), else against its expected output.
   */
  async checkWhole(key: string, index: number, output: Float64Array): Promise<Comparison> {
    const { all } = await this.#inputsOf(key);
    const positions = drawPositions(Math.min(positionsPerSample(1), output.length), output.length);
    const atPositions = compareAt(this.#lab, all[index], positions, Float64Array.from(positions, (p) => output[p] as number));
    if (!atPositions.equal) return atPositions;
    if (this.#lab.checkSample) return this.#lab.checkSample(all[index], output);
    return (await this.check(key, index, { kind: 'whole', value: output }))!;
  }

  /** Whether case `key` has a property to judge (its definition's judgeProperty): then a passed case must send evidence. */
  hasProperty(key: string): boolean {
    return this.#definitions.get(key)?.judgeProperty !== undefined;
  }

  /**
   * The verdict on case `key`'s property evidence, by its definition's judgeProperty, here in the judge's process:
   * null when the property holds, else why not (evidence it cannot read fails, naming the field).
   */
  judgeProperty(key: string, evidence: unknown, outside: { result: unknown } | undefined): string | null {
    const definition = this.#definitions.get(key);
    if (!definition) return `property evidence arrived for a case the judge does not have (${key})`;
    return judgePropertyHere(definition, evidence, outside);
  }

  /**
   * Probes case `key` from outside, here in the judge's process (its definition's probeFromOutside, lab code alone),
   * through `socketPath`: what it found, or throws (no such probe; the probe's own failure; PROBE_LIMIT_MS passed).
   */
  async probeFromOutside(key: string, socketPath: string): Promise<unknown> {
    const probe = this.#definitions.get(key)?.probeFromOutside;
    if (!probe) throw new Error('the case has no probe from outside (probeFromOutside)');
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the probe from outside did not finish within ${PROBE_LIMIT_MS / 1000} s`)), PROBE_LIMIT_MS);
    });
    try {
      return await Promise.race([probe(socketPath), limit]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** How many check inputs case `key` has (its 'check-output's, one each, before its 'checked'). */
  async inputCount(key: string): Promise<number> {
    return (await this.#inputsOf(key)).all.length;
  }

  async #inputsOf(key: string): Promise<{ inputKey: string; all: unknown[] }> {
    const definition = this.#definitions.get(key);
    if (!definition) throw new Error(`the judge has no case ${key}`);
    const inputKey = paramsKey(definition.params, this.#lab.inputParams);
    let inputs = this.#inputs.get(inputKey);
    if (!inputs) {
      inputs = Promise.resolve(this.#lab.inputs(definition.params, this.#ctx)).then((made) => [...made.check, made.measure]);
      this.#inputs.set(inputKey, inputs);
    }
    return { inputKey, all: await inputs };
  }

  /** Drops the inputs and expected outputs made so far (memory: the measure stage makes its own). */
  release(): void {
    this.#inputs.clear();
    this.#expected.clear();
  }
}

/** What the supervisor gives one runner's check verdicts: the runner's channel and the run's cases. */
export interface CheckVerdictHooks {
  /**
   * Asks the runner for its large check output #`input` of `key`: its values at `positions` (none: only so that it
   * goes on), or its `block`; `more`: another 'show' of it follows (the runner waits for it).
   */
  show(key: string, input: number, ask: { positions: number[]; block?: OutputBlock; more?: boolean }): Promise<ArrayLike<number>>;
  /** The failed entry of case `key` (the learner's file named), from `previous` when given; null for a case the run lacks. */
  failed(key: string, reason: string, previous: CorrectnessEntry | undefined): CorrectnessEntry | null;
  /** The judge's verdict on case `key`. */
  decided(key: string, entry: CorrectnessEntry): void;
  /** The judge's probe of case `key` from outside is over (`error`: why it did not run): the runner waits for this. */
  probed(key: string, error: string | null): void;
}

/** One case's check outputs as judged so far: the inputs whose outputs arrived, the largest errors, the first failure. */
interface CaseChecks {
  failed: CorrectnessEntry | null;
  inputs: Set<number>;
  /** The case's property evidence as it arrived (judged in #decide); absent before any arrived. */
  property?: { evidence: unknown };
  /** What the judge's probe from outside found, once it ran; absent before. */
  outside?: { result: unknown };
  maxAbsError: number | null;
  maxRelError: number | null;
}

/**
 * One runner's check stage, decided in the judge's process: each check output the runner sends ('check-output') is
 * compared (CheckJudge), the case's property evidence ('property') judged by its definition's judgeProperty, and the
 * runner's 'checked' entry stands only when the judge found no wrong output, had an output for every check input and,
 * for a case with a property, had evidence that shows it. Per case, the steps run in the order their messages arrived (each may wait on the
 * judge's expected output); a step that rejects (the channel closed under a 'show': the process ended) leaves the case
 * to the attempt's outcome.
 */
export class CheckVerdicts {
  readonly #checks: CheckJudge;
  readonly #hooks: CheckVerdictHooks;
  readonly #cases = new Map<string, CaseChecks>();
  readonly #turns = new Map<string, Promise<void>>();

  constructor(checks: CheckJudge, hooks: CheckVerdictHooks) {
    this.#checks = checks;
    this.#hooks = hooks;
  }

  /** Check output #`input` of case `key`, as the runner sent it: whole, or `large` (its values shown at positions). */
  output(key: string, input: number, output: unknown): void {
    this.#inTurn(key, () => this.#judge(key, input, output));
  }

  /** The case's property evidence, as the runner sent it (after its check outputs): judged here, once. */
  property(key: string, evidence: unknown): void {
    this.#inTurn(key, async () => {
      const state = this.#stateOf(key);
      if (state.failed) return;
      if (state.property !== undefined) {
        state.failed = this.#hooks.failed(key, "a second property evidence arrived: lab or learner code wrote to the harness's channel", undefined);
        return;
      }
      const bytes = evidenceBytes(evidence);
      if (bytes > MAX_EVIDENCE_BYTES) {
        state.failed = this.#hooks.failed(key, `its property evidence is ${bytes} bytes, over the ${MAX_EVIDENCE_BYTES} the harness reads (raw observations, not a dump)`, undefined);
        return;
      }
      state.property = { evidence };
    });
  }

  /**
   * The case asked to be probed from outside through `socketPath` (which the supervisor has checked is a socket in
   * the runner's own temp folder): the judge runs the probe here, once, and keeps what it found for the case's
   * judgeProperty; `hooks.probed` then tells the runner (with the error, when it could not run).
   */
  outsideProbe(key: string, socketPath: string): void {
    this.#inTurn(key, async () => {
      const state = this.#stateOf(key);
      let error: string | null = null;
      if (state.outside !== undefined || state.property !== undefined) {
        error = 'the case asked for a second probe from outside, or after its property evidence';
        state.failed ??= this.#hooks.failed(key, `${error}: lab or learner code wrote to the harness's channel`, undefined);
      } else {
        try {
          state.outside = { result: await this.#checks.probeFromOutside(key, socketPath) };
        } catch (thrown) {
          error = errorText(thrown);
        }
      }
      this.#hooks.probed(key, error);
    });
  }

  /** The runner's entry for case `key` after its check outputs: the judge's verdict goes to `hooks.decided`. */
  checked(key: string, entry: CorrectnessEntry): void {
    this.#inTurn(key, async () => {
      const decided = await this.#decide(key, entry);
      this.#hooks.decided(key, { ...decided, failedAt: decided.passed ? null : { stage: 'check', sample: null } });
    });
  }

  /** Resolves once every step so far is done. */
  settled(): Promise<void> {
    return Promise.all(this.#turns.values()).then(() => undefined);
  }

  #inTurn(key: string, step: () => Promise<void>): void {
    this.#turns.set(key, (this.#turns.get(key) ?? Promise.resolve()).then(step).catch(() => {}));
  }

  async #judge(key: string, input: number, output: unknown): Promise<void> {
    const state = this.#stateOf(key);
    if (state.failed) {
      // The runner waits for the 'show' of an output too large to send: it is asked even with nothing to check.
      if ((output as { kind?: unknown } | null)?.kind === 'large') await this.#hooks.show(key, input, { positions: [] }).catch(() => {});
      return;
    }
    state.inputs.add(input);
    const { comparison, reason } = await this.#compare(key, input, output);
    if (comparison === null) return;
    if (comparison.maxAbsError !== null) state.maxAbsError = Math.max(state.maxAbsError ?? 0, comparison.maxAbsError);
    if (comparison.maxRelError !== null) state.maxRelError = Math.max(state.maxRelError ?? 0, comparison.maxRelError);
    if (comparison.equal) return;
    const failed = this.#hooks.failed(key, reason ?? checkMismatchText(input, comparison), undefined);
    if (failed) {
      state.failed = { ...failed, comparator: this.#checks.comparator, firstMismatch: comparison.firstMismatch, maxAbsError: state.maxAbsError, maxRelError: state.maxRelError, inputsChecked: input + 1 };
    }
  }

  #stateOf(key: string): CaseChecks {
    let state = this.#cases.get(key);
    if (!state) this.#cases.set(key, (state = { failed: null, inputs: new Set(), maxAbsError: null, maxRelError: null }));
    return state;
  }

  /** The judge's comparison of one check output (null: not the judge's to check), or why it could not be checked. */
  async #compare(key: string, input: number, output: unknown): Promise<{ comparison: Comparison | null; reason: string | null }> {
    const sent = output as { kind?: unknown; length?: unknown } | null;
    try {
      if (sent?.kind !== 'large') return { comparison: await this.#checks.check(key, input, output), reason: null };
      // Too large to send at once: fetched block by block and checked whole where drawn (every output up to
      // WHOLE_CHECK_BYTES), else at positions drawn now; the runner waits for its 'show's.
      const length = Number(sent.length);
      const drawn = await this.#checks.positions(key, input, length).catch((e: unknown) => new Error(errorText(e)));
      if (Array.isArray(drawn) && drawWholeCheck(length)) {
        const whole = await fetchWhole(length, (block, last) => this.#hooks.show(key, input, { positions: [], block, more: !last }));
        return { comparison: await this.#checks.checkWhole(key, input, whole), reason: null };
      }
      const positions = Array.isArray(drawn) ? drawn : [];
      const values = await this.#hooks.show(key, input, { positions });
      if (drawn instanceof Error) throw drawn;
      return { comparison: Array.isArray(drawn) ? await this.#checks.checkAt(key, input, positions, values) : drawn, reason: null };
    } catch (error) {
      const comparison = { equal: false, firstMismatch: null, maxAbsError: null, maxRelError: null };
      return { comparison, reason: `its output on check input #${input} could not be checked: ${errorText(error)}` };
    }
  }

  /** The judge's comparisons decide: a wrong output fails the case whatever the runner says, and a passed case must have sent every output. */
  async #decide(key: string, entry: CorrectnessEntry): Promise<CorrectnessEntry> {
    const state = this.#cases.get(key);
    if (state?.failed) return state.failed;
    if (!entry.passed) return entry;
    const count = await this.#checks.inputCount(key).catch(() => Number.NaN);
    const arrived = state?.inputs.size ?? 0;
    const errors = { maxAbsError: state?.maxAbsError ?? null, maxRelError: state?.maxRelError ?? null };
    if (arrived !== count) {
      const reason = `its check outputs did not all reach the harness (${arrived} of ${count}): lab or learner code wrote to the harness's channel`;
      return this.#hooks.failed(key, reason, entry) ?? entry;
    }
    // The property is the judge's to decide from the evidence: the runner's 'passed' says nothing about it.
    if (this.#checks.hasProperty(key) && state?.property === undefined) {
      const reason = "its property evidence did not reach the harness: lab or learner code wrote to the harness's channel";
      return this.#hooks.failed(key, reason, entry) ?? entry;
    }
    const property = state?.property === undefined ? null : this.#checks.judgeProperty(key, state.property.evidence, state.outside);
    if (typeof property === 'string') {
      const failed = this.#hooks.failed(key, property, entry);
      return failed ? { ...failed, ...errors, inputsChecked: count } : entry;
    }
    return { ...entry, ...errors };
  }
}
