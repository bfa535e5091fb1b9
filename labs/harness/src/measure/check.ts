/**
 * Stage 1, check: every case's output is compared with its expected output on the same inputs before anything is timed.
 * A case that fails (wrong output, an error, a hang, or "not implemented") is torn down here and never measured.
 * In a lab run the comparison is the judge's (hooks.output sends each output to it: check-judge.ts CheckJudge), and
 * a case whose output the judge finds wrong is failed there and never measured; in one process (lab tests), here.
 * So is the verdict on the variant's property: the case's instance gathers its evidence here, and the definition's
 * judgeProperty decides in the judge's process (hooks.property), or here in one process.
 */
import type { CaseDefinition, CaseInstance, Comparator, Comparison, LabContext, PropertyJudge } from '../lab-definition.ts';
import { isNotImplemented } from '../lab-definition.ts';
import { errorText } from '../errors.ts';
import type { CorrectnessEntry } from '@parallel-course/core';

/** Inputs and their expected outputs, shared by the cases that agree on the lab's input params. */
export interface CheckSet<Input, Output> {
  inputs: Input[];
  expected: Output[];
}

export interface CheckedCase<Input, Output> {
  entry: CorrectnessEntry;
  /** The set-up instance, kept for measuring; null when the case failed (it has been torn down). */
  instance: CaseInstance<Input, Output> | null;
  /** Wall time of each check call that returned, in ms (run + afterSample), in input order. */
  callMs: number[];
}

/**
 * Called around every call into the case's code, so a supervisor in another process can bound it: a timer in this
 * process cannot fire while learner code blocks its event loop.
 */
export interface CheckHooks {
  beforeSetup?(): void;
  beforeInput?(input: number): void;
  afterCall?(): void;
  beforeTeardown?(): void;
  /**
   * Each check output, after its call: sends it to the judge, which compares it (resolves to null), or compares it
   * here and resolves to the comparison (an output too large to send). Without it, `comparator` compares it here.
   */
  output?(input: number, output: unknown): Promise<Comparison | null>;
  /**
   * The case's property evidence (CaseInstance.propertyEvidence): sends it to the judge, which runs the definition's
   * judgeProperty in its own process (resolves to null). Without it, judgeProperty runs here (judgePropertyHere).
   */
  property?(evidence: unknown): Promise<string | null>;
  /**
   * The case asks the judge to probe it from outside (CaseDefinition.probeFromOutside) through `socketPath`: sends
   * the request to the judge's process and resolves once the judge is done. Without it, the probe runs here.
   */
  probeFromOutside?(socketPath: string): Promise<void>;
}

/**
 * The verdict on a case's property evidence by its definition's judgeProperty (the judge's CheckVerdicts and the
 * one-process check alike): null when it holds, else why not; evidence its judge cannot read, or a case with evidence
 * and no judge, fails.
 */
export function judgePropertyHere(
  definition: Pick<CaseDefinition<unknown, unknown>, 'judgeProperty' | 'probeFromOutside'>,
  evidence: unknown,
  outside: { result: unknown } | undefined,
): string | null {
  if (!definition.judgeProperty) return 'sent property evidence, but the case has no judge of its property (judgeProperty): the lab is incomplete';
  if (definition.probeFromOutside && outside === undefined) return "never asked the harness to probe it from outside (the lab's propertyEvidence must call judge.probeFromOutside)";
  try {
    return definition.judgeProperty(evidence, outside?.result);
  } catch (error) {
    return `its property evidence could not be judged: ${errorText(error)}`;
  }
}

/** Where a compared output first differs, " at [i]: expected x, got y", or nothing where the comparator names no entry. */
function mismatchAt(comparison: Comparison): string {
  const where = comparison.firstMismatch;
  return where ? ` at [${where.index}]: expected ${where.expected}, got ${where.actual}` : '';
}

/** Why a check output differs from the expected one (the runner's and the judge's message alike). */
export function checkMismatchText(input: number, comparison: Comparison): string {
  return `wrong output on check input #${input}${mismatchAt(comparison)}`;
}

/**
 * Why a warm-up or measured sample's output differs from the expected one, after it passed the check: the judge's
 * message (judge-sampler.ts; `call` names the call of a sample of several) and the in-process measure's (measure.ts
 * WrongSampleError) alike.
 */
export function sampleMismatchText(stage: 'warm-up' | 'measured', sample: number, comparison: Comparison, call = ''): string {
  return (
    `wrong output on ${stage} sample #${sample}${call}${mismatchAt(comparison)}` +
    ' (it passed the check: a race, state kept between calls, or an answer kept from an earlier input?)'
  );
}

/** The entry for a call that threw: "not implemented" as it is (the exercise is not written yet), anything else with where. */
function threwEntry(
  definition: CaseDefinition<unknown, unknown>,
  comparator: string,
  error: unknown,
  where: string,
  partial: Partial<CorrectnessEntry>,
): CorrectnessEntry {
  const message = errorText(error);
  return failure(definition, comparator, isNotImplemented(error) ? message : `threw ${where}: ${message}`, isNotImplemented(error), partial);
}

/** How long one call may take during the check before it counts as hung, in ms. */
export const CHECK_CALL_TIMEOUT_MS = 60_000;

async function withTimeout<T>(promise: Promise<T> | T, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s (does it ever resolve?)`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve(promise), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function failure(
  definition: CaseDefinition<unknown, unknown>,
  comparator: string,
  reason: string,
  notImplemented: boolean,
  partial: Partial<CorrectnessEntry> = {},
): CorrectnessEntry {
  return {
    variant: definition.variant,
    params: definition.params,
    passed: false,
    comparator,
    reason,
    notImplemented,
    firstMismatch: null,
    maxAbsError: null,
    maxRelError: null,
    inputsChecked: 0,
    failedAt: { stage: 'check', sample: null },
    ...partial,
  };
}

/** Sets up one case and checks it on every input. Never throws: every failure becomes a correctness entry. */
export async function checkCase<Input, Output>(
  definition: CaseDefinition<Input, Output>,
  comparator: Comparator<Output>,
  set: CheckSet<Input, Output>,
  ctx: LabContext,
  callTimeoutMs = CHECK_CALL_TIMEOUT_MS,
  hooks: CheckHooks = {},
): Promise<CheckedCase<Input, Output>> {
  const def = definition as CaseDefinition<unknown, unknown>;
  const callMs: number[] = [];
  let instance: CaseInstance<Input, Output>;
  try {
    hooks.beforeSetup?.();
    instance = await withTimeout(definition.setup(ctx), callTimeoutMs, 'setup');
    hooks.afterCall?.();
  } catch (error) {
    hooks.afterCall?.();
    const message = errorText(error);
    return {
      entry: failure(def, comparator.description, isNotImplemented(error) ? message : `setup failed: ${message}`, isNotImplemented(error), {
        failedAt: { stage: 'setup', sample: null },
      }),
      instance: null,
      callMs,
    };
  }

  let entry: CorrectnessEntry | null = null;
  let maxAbsError: number | null = null;
  let maxRelError: number | null = null;
  for (let i = 0; i < set.inputs.length && entry === null; i++) {
    try {
      hooks.beforeInput?.(i);
      const started = performance.now();
      const actual = await withTimeout(Promise.resolve().then(() => instance.run(set.inputs[i] as Input)), callTimeoutMs, `input #${i}`);
      await instance.afterSample?.();
      callMs.push(performance.now() - started);
      hooks.afterCall?.();
      const comparison = hooks.output ? await hooks.output(i, actual) : comparator.compare(set.expected[i] as Output, actual);
      if (comparison === null) continue;
      if (comparison.maxAbsError !== null) maxAbsError = Math.max(maxAbsError ?? 0, comparison.maxAbsError);
      if (comparison.maxRelError !== null) maxRelError = Math.max(maxRelError ?? 0, comparison.maxRelError);
      if (!comparison.equal) {
        entry = failure(def, comparator.description, checkMismatchText(i, comparison), false, {
          firstMismatch: comparison.firstMismatch,
          maxAbsError,
          maxRelError,
          inputsChecked: i + 1,
        });
      }
    } catch (error) {
      hooks.afterCall?.();
      entry = threwEntry(def, comparator.description, error, `on check input #${i}`, { inputsChecked: i });
    }
  }
  // The case's property (what the variant exists for), once its outputs are right: announced as one more check call.
  // The instance gathers evidence; the definition's judgeProperty decides: in the judge's process when `hooks.property`
  // sends it there, here otherwise (one process: lab tests).
  if (entry === null && instance.propertyEvidence) {
    const index = set.inputs.length;
    try {
      hooks.beforeInput?.(index);
      // In one process the outside probe runs here, and its result is kept for the judging below.
      let outside: { result: unknown } | undefined;
      const judge: PropertyJudge = {
        probeFromOutside: async (socketPath) => {
          if (hooks.probeFromOutside) return hooks.probeFromOutside(socketPath);
          if (!definition.probeFromOutside) throw new Error('asked to be probed from outside, but the case has no probeFromOutside');
          outside = { result: await definition.probeFromOutside(socketPath) };
        },
      };
      const evidence = await withTimeout(Promise.resolve().then(() => instance.propertyEvidence?.(judge)), callTimeoutMs, 'the property check');
      hooks.afterCall?.();
      const problem = hooks.property ? await hooks.property(evidence) : judgePropertyHere(definition, evidence, outside);
      if (problem !== null) entry = failure(def, comparator.description, problem, false, { maxAbsError, maxRelError, inputsChecked: index });
    } catch (error) {
      hooks.afterCall?.();
      entry = threwEntry(def, comparator.description, error, 'in the property check', { maxAbsError, maxRelError, inputsChecked: index });
    }
  }
  if (entry !== null) {
    hooks.beforeTeardown?.();
    await Promise.resolve()
      .then(() => instance.teardown())
      .catch(() => {});
    hooks.afterCall?.();
    return { entry, instance: null, callMs };
  }
  return {
    entry: {
      variant: definition.variant,
      params: definition.params,
      passed: true,
      comparator: comparator.description,
      reason: null,
      notImplemented: false,
      firstMismatch: null,
      maxAbsError,
      maxRelError,
      inputsChecked: set.inputs.length,
      failedAt: null,
    },
    instance,
    callMs,
  };
}
