/**
 * The runner: stages 1 and 2 (check and measure), in the child process the supervisor watches (run-child.ts).
 * It is the only place the lab's and the learner's code run during a lab run. Before every call into that code it
 * tells the supervisor what it is about to do and how long that may take, so a synchronous infinite loop, a promise
 * that never settles, `process.exit` or a native crash ends that case within a stated bound.
 *
 * What it sends is raw: verdicts and observations. Its measure stage is driven by the supervisor (sample-server.ts
 * answers judge-sampler.ts): the supervisor chooses each sample's case and fresh input and times it with its own
 * clock. Statistics, results and reports happen in the supervisor's process, which never imports learner code.
 */
import { checkCase, CHECK_CALL_TIMEOUT_MS, type CheckSet } from './check.ts';
import { randomInt } from 'node:crypto';
import { FRESH_INPUT_INDICES, type CaseDefinition, type CaseInstance, type LabContext, type LabDefinition } from './lab-definition.ts';
import { loadLab } from './lab-registry.ts';
import type { MeasureTarget } from './measure.ts';
import { serveSamples, type SampleServerChannel, type ServedCase } from './sample-server.ts';
import { runCases } from './run-cases.ts';
import { type Activity, type RunJob, type RunnerMessage } from './run-protocol.ts';
import { caseKey, caseLabel, isSolutionCopy, ONE_SAMPLE, paramsKey } from '@parallel-course/core';
import { LabLoadError } from './errors.ts';
import type { CorrectnessEntry } from '@parallel-course/core';

/** Setting up a case (a pool, a server, a model) may take this long before it counts as hung, in ms. */
export const SETUP_TIMEOUT_MS = CHECK_CALL_TIMEOUT_MS;
/** Tearing a case down may take this long, in ms. */
export const TEARDOWN_TIMEOUT_MS = 30_000;
// The limits of a measured sample belong to the judge's side (judge-sampler.ts), which times and bounds each one.
export { MIN_SAMPLE_LIMIT_MS, SAMPLE_LIMIT_FACTOR, sampleLimitMs } from './judge-sampler.ts';

/** A failed check's reason names the file to look at (a throw, a patch refused by the sandbox), when it does not yet. */
function withLearnerFile(entry: CorrectnessEntry, file: string | null): CorrectnessEntry {
  if (entry.passed || entry.notImplemented || file === null || entry.reason === null || entry.reason.includes(file)) return entry;
  return { ...entry, reason: `${entry.reason.replace(/\.+$/, '')}. Look at ${file}.` };
}

/** A check call that hit its limit (check.ts withTimeout). */
const TIMED_OUT = /did not finish within/;

/** The failed entry of a case not checked because an earlier case of its variant never finished. */
function skippedAfterHang(definition: CaseDefinition<unknown, unknown>, comparator: string, hungLabel: string, file: string | null): CorrectnessEntry {
  return {
    variant: definition.variant,
    params: definition.params,
    passed: false,
    comparator,
    reason: `not checked: ${hungLabel} of the same variant never finished its check (a promise that never settles?); fix that first${file ? `. Look at ${file}.` : ''}`,
    notImplemented: false,
    firstMismatch: null,
    maxAbsError: null,
    maxRelError: null,
    inputsChecked: 0,
    failedAt: { stage: 'check', sample: null },
  };
}

interface Prepared {
  key: string;
  definition: CaseDefinition<unknown, unknown>;
  set: CheckSet<unknown, unknown>;
  measureInput: unknown;
  measureAt: ((sample: number) => unknown) | undefined;
}

/**
 * The fresh-input numbers of every sample of every case (warm-up included), drawn now, before any learner module is
 * loaded: distinct across the run, uniform in 1 .. FRESH_INPUT_INDICES - 1, from the CSPRNG. Learner code sees each
 * input only when its sample runs, so it cannot work out the next one (the issue 42 attack precomputed event-loop's
 * next bursts from `1000 + burst x n + i`), nor patch the draw (it is over before learner code runs).
 */
export function drawFreshIndices(cases: number, perCase: number): number[][] {
  if (cases * perCase > FRESH_INPUT_INDICES / 4) throw new Error(`${cases * perCase} fresh inputs are more than the run may draw (${FRESH_INPUT_INDICES / 4})`);
  const used = new Set<number>();
  return Array.from({ length: cases }, () =>
    Array.from({ length: perCase }, () => {
      let index: number;
      do index = randomInt(1, FRESH_INPUT_INDICES);
      while (used.has(index));
      used.add(index);
      return index;
    }),
  );
}

/**
 * How each warm-up and measured sample of a case gets its input and is checked. With the lab's fresh inputs
 * (`measureAt` and `checkSample`), sample k runs on input number `indices[k]` (drawnFreshIndices: drawn before learner
 * code loads, distinct in the run, so no cache, in memory or in a file, holds an answer to it) and is checked with
 * `checkSample`; otherwise every sample runs on the measured input and is compared with its expected output.
 */
export function sampleInputs<Input, Output>(
  lab: Pick<LabDefinition<Input, Output>, 'comparator' | 'checkSample'>,
  measureInput: Input,
  expected: Output,
  measureAt: ((sample: number) => Input) | undefined,
  indices: readonly number[],
  precomputed?: FreshSet<Input, Output>,
): Pick<MeasureTarget<Input, Output>, 'input' | 'inputAt' | 'check'> {
  const checkSample = lab.checkSample?.bind(lab);
  const comparator = lab.comparator;
  if (precomputed) {
    // Sample k runs on precomputed input k and is compared with its own expected output (lab.expectedAt).
    return {
      input: measureInput,
      inputAt: (sample: number) => precomputed.inputs[sample] ?? measureInput,
      check: (output: Output, input: Input) => {
        const k = precomputed.inputs.indexOf(input);
        return comparator.compare(k < 0 ? expected : (precomputed.expected[k] as Output), output);
      },
    };
  }
  const inputAt = measureAt && checkSample ? { inputAt: (sample: number) => measureAt(indices[sample] ?? FRESH_INPUT_INDICES) } : {};
  return {
    input: measureInput,
    ...inputAt,
    check: (output: Output, input: Input) => (input === measureInput || !checkSample ? comparator.compare(expected, output) : checkSample(input, output)),
  };
}

/**
 * How each sample the supervisor asks for gets its input and is checked: with the lab's fresh inputs (`measureAt`
 * and `checkSample`), on input number `fresh`, which the supervisor draws and reveals only when it asks for that
 * sample; with `expectedAt`, on the case's precomputed input `sample` (drawn here before learner code loaded, since
 * their expected outputs are computed then); otherwise on the measured input, compared with its expected output.
 */
export function servedInputs<Input, Output>(
  lab: Pick<LabDefinition<Input, Output>, 'comparator' | 'checkSample'>,
  measureInput: Input,
  expected: Output,
  measureAt: ((sample: number) => Input) | undefined,
  precomputed?: FreshSet<Input, Output>,
): Pick<ServedCase<Input, Output>, 'inputAt' | 'check'> {
  const { inputAt, check } = sampleInputs(lab, measureInput, expected, measureAt, [], precomputed);
  const fresh = measureAt && lab.checkSample && !precomputed ? measureAt : undefined;
  return {
    inputAt: (sample, index) => (fresh ? fresh(index) : inputAt ? inputAt(sample) : measureInput),
    check,
  };
}

/** A case's fresh inputs, one per sample (warm-up included), and their expected outputs (lab.expectedAt). */
export interface FreshSet<Input, Output> {
  inputs: Input[];
  expected: Output[];
}

/**
 * Every fresh input of the run and its expected output, for a lab with `expectedAt`, in one call (so the lab can spread
 * them over every core): made before any learner module loads. Null for a case without fresh inputs.
 */
async function precomputeFresh(
  lab: LabDefinition<unknown, unknown>,
  prepared: Prepared[],
  fresh: number[][],
  ctx: LabContext,
): Promise<(FreshSet<unknown, unknown> | null)[]> {
  if (!lab.expectedAt) return prepared.map(() => null);
  const sets = prepared.map((p, i) => (p.measureAt ? { inputs: (fresh[i] ?? []).map((index) => p.measureAt!(index)), expected: [] as unknown[] } : null));
  const all = sets.flatMap((set) => set?.inputs ?? []);
  const expected = all.length > 0 ? await lab.expectedAt(all, ctx) : [];
  if (expected.length !== all.length) throw new Error(`the ${lab.name} lab's expectedAt gave ${expected.length} outputs for ${all.length} inputs`);
  let next = 0;
  for (const set of sets) if (set) set.expected = expected.slice(next, (next += set.inputs.length));
  return sets;
}

/** Inputs and expected outputs for every case; cases that agree on the lab's input params share them. */
async function prepareCases(lab: LabDefinition<unknown, unknown>, definitions: CaseDefinition<unknown, unknown>[], ctx: LabContext): Promise<Prepared[]> {
  const sets = new Map<string, { set: CheckSet<unknown, unknown>; measureInput: unknown; measureAt: ((sample: number) => unknown) | undefined }>();
  const prepared: Prepared[] = [];
  for (const definition of definitions) {
    const inputKey = paramsKey(definition.params, lab.inputParams);
    let entry = sets.get(inputKey);
    if (!entry) {
      const inputs = await lab.inputs(definition.params, ctx);
      const all = [...inputs.check, inputs.measure];
      const expected = [];
      for (const input of all) expected.push(await lab.expected(input));
      entry = { set: { inputs: all, expected }, measureInput: inputs.measure, measureAt: inputs.measureAt?.bind(inputs) };
      sets.set(inputKey, entry);
    }
    prepared.push({ key: caseKey(definition), definition, set: entry.set, measureInput: entry.measureInput, measureAt: entry.measureAt });
  }
  return prepared;
}

/**
 * Freezes the lab's definition and everything it holds (the comparator, the grading, the sampling, the variants), so
 * learner code that imports the lab module (the same instance) cannot rewrite how it is checked: an assignment then
 * throws in the learner's module (ES modules are strict) and its case fails naming the file. Typed arrays cannot be
 * frozen and hold no behaviour; they are left as they are.
 */
export function freezeDeep(value: unknown, seen = new Set<unknown>()): void {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value) || ArrayBuffer.isView(value)) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) freezeDeep(descriptor.value, seen);
  }
  Object.freeze(value);
}

/** Runs the job, sending every step to `send`. Throws LabLoadError/UsageError for problems that are not one case's. */
export async function runJob(job: RunJob, channel: SampleServerChannel): Promise<void> {
  const send = (message: RunnerMessage) => channel.send(message);
  const lab = (await loadLab(job.lab, job.rootDir)) as LabDefinition<unknown, unknown>;
  // Before any learner module loads (they are imported in a case's set-up).
  freezeDeep(lab);
  // The same declarations the supervisor computed from its own load of the lab (run-cases.ts): they are not sent back.
  const { ctx, info, definitions: allDefinitions } = runCases(lab, job);
  send({ type: 'notes', notes: info.notes });
  const keys = info.cases.map((c) => c.key);
  if (job.caseKeys && keys.join('\n') !== job.caseKeys.join('\n')) {
    throw new Error(
      `the ${lab.name} lab's cases differ between the harness's process and the runner's (${job.caseKeys.length} vs ${keys.length} cases; ` +
        `first difference: ${job.caseKeys.find((k, i) => k !== keys[i]) ?? keys[job.caseKeys.length]}): cases() must depend only on its context`,
    );
  }
  const plan = info.plan;
  const excluded = new Set(job.exclude);
  // A graded run's solution copies run in a process of their own, which loads no learner module (job.side).
  const ours = (d: CaseDefinition<unknown, unknown>) => job.side === undefined || (job.side === 'solution') === isSolutionCopy(d.params);
  const definitions = allDefinitions.filter((d) => !excluded.has(caseKey(d)) && ours(d));
  const prepared = await prepareCases(lab, definitions, ctx);
  // Still before any learner module loads (a case's set-up imports them): the fresh inputs' expected outputs, when the lab
  // computes them up front (so their numbers are drawn here, not revealed one by one as the supervisor does for
  // `checkSample` labs). A check-only run measures nothing and needs none.
  const fresh = lab.expectedAt ? drawFreshIndices(prepared.length, plan.warmupSamples + plan.rounds * plan.samplesPerRound) : [];
  if (lab.expectedAt && !job.checkOnly) send({ type: 'progress', done: 0, total: prepared.length, label: "the fresh inputs' expected outputs", phase: 'check' });
  const precomputed = job.checkOnly ? prepared.map(() => null) : await precomputeFresh(lab, prepared, fresh, ctx);
  const announce = (activity: Activity, limitMs: number, why: string) => send({ type: 'call', activity, limitMs, why });
  const called = () => send({ type: 'called' });

  // Stage 1: check. Passing cases stay set up for measuring; failing ones are torn down and never timed.
  const passing: { prepared: Prepared; instance: CaseInstance<unknown, unknown>; checkMs: number | null }[] = [];
  // A variant whose call never finished in one case (a promise that never settles) would cost the same limit in each
  // of its other cases, one after another: they are failed at once, pointing at the first.
  const hung = new Map<string, string>();
  // The runner's own limit answers a promise that never settles before the supervisor's (which adds its grace).
  const checkLimitMs = Math.max(1, Math.round(CHECK_CALL_TIMEOUT_MS * (job.limitScale ?? 1)));
  for (const [i, p] of prepared.entries()) {
    send({ type: 'progress', done: i, total: prepared.length, label: caseLabel(p.definition), phase: 'check' });
    const hungLabel = hung.get(p.definition.variant);
    if (hungLabel !== undefined) {
      const file = info.cases.find((info) => info.key === p.key)?.learnerFile ?? null;
      send({ type: 'checked', caseKey: p.key, measureCallMs: null, entry: skippedAfterHang(p.definition, lab.comparator.description, hungLabel, file) });
      continue;
    }
    const checked = await checkCase(p.definition, lab.comparator, p.set, ctx, checkLimitMs, {
      beforeSetup: () => announce({ stage: 'setup', caseKey: p.key }, SETUP_TIMEOUT_MS, `a case's set-up may take ${SETUP_TIMEOUT_MS / 1000} s`),
      beforeInput: (input) =>
        announce({ stage: 'check', caseKey: p.key, input }, CHECK_CALL_TIMEOUT_MS, `one call of the check may take ${CHECK_CALL_TIMEOUT_MS / 1000} s`),
      afterCall: called,
      beforeTeardown: () => announce({ stage: 'teardown', caseKey: p.key }, TEARDOWN_TIMEOUT_MS, `teardown may take ${TEARDOWN_TIMEOUT_MS / 1000} s`),
    });
    // The last check input is the measured input: its (cold) time sets the case's limit per measured sample.
    const checkMs = checked.callMs.length === p.set.inputs.length ? (checked.callMs.at(-1) ?? null) : null;
    send({ type: 'checked', entry: withLearnerFile(checked.entry, info.cases.find((i) => i.key === p.key)?.learnerFile ?? null), caseKey: p.key, measureCallMs: checkMs });
    if (!checked.entry.passed && TIMED_OUT.test(checked.entry.reason ?? '')) hung.set(p.definition.variant, caseLabel(p.definition));
    if (checked.instance) passing.push({ prepared: p, instance: checked.instance, checkMs });
  }
  send({ type: 'progress', done: prepared.length, total: prepared.length, label: '', phase: 'check' });

  const teardownAll = async () => {
    for (const p of passing) {
      announce({ stage: 'teardown', caseKey: p.prepared.key }, TEARDOWN_TIMEOUT_MS, `teardown may take ${TEARDOWN_TIMEOUT_MS / 1000} s`);
      await Promise.resolve(p.instance.teardown()).catch(() => {});
      called();
    }
  };
  const baselinePassed = passing.some((p) => p.prepared.definition.variant === lab.baseline);
  const otherPassed = passing.some((p) => p.prepared.definition.variant !== lab.baseline);
  // The solution's process measures whatever of its copies passed; the others need the baseline and one more case.
  const measures = job.side === 'solution' ? passing.length > 0 : baselinePassed && otherPassed;
  if (job.checkOnly || !measures) {
    await teardownAll();
    return;
  }

  // Stage 2: measure what passed. The supervisor drives it (judge-sampler.ts): it picks each sample's case and fresh
  // input, and times each sample from its side; this process makes each input, runs it and checks the output.
  send({ type: 'measuring', cases: passing.map((p) => ({ key: p.prepared.key, checkMs: p.checkMs })) });
  const served: ServedCase<unknown, unknown>[] = passing.map((p) => {
    const { definition, set, measureInput, measureAt } = p.prepared;
    const expected = set.expected[set.inputs.indexOf(measureInput)];
    const index = prepared.indexOf(p.prepared);
    return {
      key: p.prepared.key,
      instance: p.instance,
      ...servedInputs(lab, measureInput, expected, measureAt, precomputed[index] ?? undefined),
      measured: (observations) => {
        const workPerSample = lab.workPerSample(measureInput);
        const sample = lab.sampleItems?.(definition.params, workPerSample) ?? ONE_SAMPLE;
        return { type: 'measured', caseKey: p.prepared.key, observations, workPerSample, sample };
      },
    };
  });
  await serveSamples(served, channel);
  await teardownAll();
}
