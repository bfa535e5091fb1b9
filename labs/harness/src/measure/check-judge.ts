/**
 * The check stage's comparisons, in the judge's process (issue 42: the inputs and the verdict belong to a process
 * learner code never runs in): each check output the runner sends is compared with the expected output of the judge's
 * own copy of that check input (lab code alone); a large one at positions drawn after it arrived (output-positions.ts)
 * or fetched whole (whole-output.ts, asked for by check-verdicts.ts); a case's property evidence judged by its
 * definition's judgeProperty, and its probe from outside run here.
 * Input: the lab's definition and context, the run's cases. Output: a CheckJudge, one per run (supervisor.ts), whose
 * comparisons each runner's CheckVerdicts (check-verdicts.ts) decides from.
 */
import { paramsKey } from '@parallel-course/core';
import { judgePropertyHere } from './check.ts';
import { compareAt, drawPositions, positionsPerSample, unequal } from './output-positions.ts';
import { pinSocket } from './probe-socket.ts';
import { OUTPUT_BYTES_BOUND } from './sample-server.ts';
import type { CaseDefinition, Comparison, LabContext, LabDefinition } from '../lab-definition.ts';

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
   * through `socketPath`, pinned first (probe-socket.ts: the probe connects to the judge's own link to the socket, so
   * a link the runner swaps in after the supervisor's check cannot take it elsewhere): what it found, or throws (no
   * such probe; the socket not pinned; the probe's own failure; PROBE_LIMIT_MS passed).
   */
  async probeFromOutside(key: string, socketPath: string): Promise<unknown> {
    const probe = this.#definitions.get(key)?.probeFromOutside;
    if (!probe) throw new Error('the case has no probe from outside (probeFromOutside)');
    const pinned = pinSocket(socketPath);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the probe from outside did not finish within ${PROBE_LIMIT_MS / 1000} s`)), PROBE_LIMIT_MS);
    });
    try {
      return await Promise.race([probe(pinned.path), limit]);
    } finally {
      clearTimeout(timer);
      pinned.release();
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
