/**
 * One runner's check verdicts, decided in the judge's process (issue 42): each case's check from the judge's
 * comparisons of its outputs (check-judge.ts CheckJudge), its large outputs fetched whole or shown at positions through
 * the runner's channel (whole-output.ts), and its property from the evidence that crossed and the judge's own probe.
 * Input: the run's CheckJudge and the runner's hooks (attempt-messages.ts), then the runner's check messages in the
 * order they arrived. Output: each case's entry, through hooks.decided.
 */
import { serialize } from 'node:v8';
import type { CorrectnessEntry } from '@parallel-course/core';
import { errorText } from '../errors.ts';
import { MAX_EVIDENCE_BYTES } from '../property-evidence.ts';
import { checkMismatchText } from './check.ts';
import type { CheckJudge } from './check-judge.ts';
import { drawWholeCheck, fetchWhole, type OutputBlock } from './whole-output.ts';
import type { Comparison } from '../lab-definition.ts';

/** The size of a property evidence as it crossed (its structured-clone serialization), in bytes; Infinity when it cannot be. */
function evidenceBytes(evidence: unknown): number {
  try {
    return serialize(evidence).byteLength;
  } catch {
    return Number.POSITIVE_INFINITY;
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
   * the runner's own temp folder): the judge runs the probe here, once, unless the case has failed already, and keeps
   * what it found for the case's judgeProperty; `hooks.probed` then tells the runner (with the error, when it did not
   * run).
   */
  outsideProbe(key: string, socketPath: string): void {
    this.#inTurn(key, async () => {
      const state = this.#stateOf(key);
      let error: string | null = null;
      if (state.outside !== undefined || state.property !== undefined) {
        error = 'the case asked for a second probe from outside, or after its property evidence';
        state.failed ??= this.#hooks.failed(key, `${error}: lab or learner code wrote to the harness's channel`, undefined);
      } else if (state.failed) {
        // Decided already (a wrong check output the runner's own comparison let through): no probe of up to
        // PROBE_LIMIT_MS for a verdict it cannot change.
        error = 'the case has already failed its check';
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
