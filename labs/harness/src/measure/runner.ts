/**
 * The runner: stages 1 and 2 (check and measure), in the child process the supervisor watches (run-child.ts).
 * It is the only place the lab's and the learner's code run during a lab run. Before every call into that code it
 * tells the supervisor what it is about to do and how long that may take, so a synchronous infinite loop, a promise
 * that never settles, `process.exit` or a native crash ends that case within a stated bound.
 *
 * What it sends is raw: outputs and observations. Its measure stage is driven by the supervisor (sample-server.ts
 * answers judge-sampler.ts): the supervisor chooses each sample's case and fresh input, times it with its own clock
 * and checks its output on its own copy of the input (judge-outputs.ts). Statistics, results and reports happen in the
 * supervisor's process, which never imports learner code.
 */
import { checkCase, CHECK_CALL_TIMEOUT_MS, type CheckSet } from './check.ts';
import { randomInt } from 'node:crypto';
import { FRESH_INPUT_INDICES, usesFreshInputs, type CaseDefinition, type CaseInstance, type LabContext, type LabDefinition } from '../lab-definition.ts';
import { loadLab } from '../lab-registry.ts';
import type { MeasureTarget } from './measure.ts';
import { outputOf, serveSamples, shownValues, type SampleServerChannel, type ServedCase } from './sample-server.ts';
import { gradedKeys, runCases, runnerSideOf } from './run-cases.ts';
import { type Activity, type RunJob, type RunnerMessage } from './run-protocol.ts';
import { caseKey, caseLabel, ONE_SAMPLE, paramsKey } from '@parallel-course/core';
import { LabLoadError } from '../errors.ts';
import type { CorrectnessEntry } from '@parallel-course/core';

/** Setting up a case (a pool, a server, a model) may take this long before it counts as hung, in ms. */
export const SETUP_TIMEOUT_MS = CHECK_CALL_TIMEOUT_MS;
/** Tearing a case down may take this long, in ms. */
export const TEARDOWN_TIMEOUT_MS = 30_000;

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
 * The fresh-input numbers of every sample of every case (warm-up included), for lab tests that measure in one process
 * (sampleInputs): distinct across the run, uniform in 1 .. FRESH_INPUT_INDICES - 1, from the CSPRNG. A lab run draws
 * them in the judge's process instead (judge-outputs.ts), each revealed only with its sample's 'prepare'.
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
 * How each warm-up and measured sample of a case gets its input and is checked, when one process measures (lab tests,
 * testing.ts and measure.ts; a lab run checks in the judge's process, judge-outputs.ts). With the lab's fresh inputs
 * (`measureAt` and `checkSample`), sample k runs on input number `indices[k]` (drawFreshIndices, distinct in the run)
 * and is checked with `checkSample`; otherwise every sample runs on the measured input and is compared with its
 * expected output.
 */
export function sampleInputs<Input, Output>(
  lab: Pick<LabDefinition<Input, Output>, 'comparator' | 'checkSample'>,
  measureInput: Input,
  expected: Output,
  measureAt: ((sample: number) => Input) | undefined,
  indices: readonly number[],
): Pick<MeasureTarget<Input, Output>, 'input' | 'inputAt' | 'check'> {
  const checkSample = lab.checkSample?.bind(lab);
  const comparator = lab.comparator;
  const inputAt = measureAt && checkSample ? { inputAt: (sample: number) => measureAt(indices[sample] ?? FRESH_INPUT_INDICES) } : {};
  return {
    input: measureInput,
    ...inputAt,
    check: (output: Output, input: Input) => (input === measureInput || !checkSample ? comparator.compare(expected, output) : checkSample(input, output)),
  };
}

/**
 * How each sample the supervisor asks for gets its input: with the lab's fresh inputs (usesFreshInputs), input number
 * `fresh`, which the supervisor draws and reveals only when it asks for that sample; otherwise the measured input.
 * The output is checked in the supervisor's process (judge-outputs.ts), on its own copy of the same input.
 */
export function servedInputs<Input>(
  lab: Pick<LabDefinition<unknown, unknown>, 'checkSample' | 'expectedAt'>,
  measureInput: Input,
  measureAt: ((sample: number) => Input) | undefined,
): Pick<ServedCase<Input, unknown>, 'inputAt' | 'freshInputs'> {
  const fresh = usesFreshInputs(lab, measureAt) ? measureAt : undefined;
  return { inputAt: (_sample, index) => (fresh ? fresh(index) : measureInput), freshInputs: fresh !== undefined };
}

/** Inputs for every case; cases that agree on the lab's input params share them. */
async function prepareCases(lab: LabDefinition<unknown, unknown>, definitions: CaseDefinition<unknown, unknown>[], ctx: LabContext): Promise<Prepared[]> {
  const sets = new Map<string, { set: CheckSet<unknown, unknown>; measureInput: unknown; measureAt: ((sample: number) => unknown) | undefined }>();
  const prepared: Prepared[] = [];
  for (const definition of definitions) {
    const inputKey = paramsKey(definition.params, lab.inputParams);
    let entry = sets.get(inputKey);
    if (!entry) {
      const inputs = await lab.inputs(definition.params, ctx);
      // The expected outputs are the judge's to compute (check-judge.ts CheckJudge); here only those of an output
      // too large to send (checkCase's output hook), when one comes.
      entry = { set: { inputs: [...inputs.check, inputs.measure], expected: [] }, measureInput: inputs.measure, measureAt: inputs.measureAt?.bind(inputs) };
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

/** The judge's next 'show' request (the check of an output too large to send); other requests meanwhile are ignored. */
function nextShow(channel: SampleServerChannel): Promise<{ seq: number; positions: unknown[]; block?: unknown; more: boolean }> {
  return new Promise((resolve) => {
    const stop = channel.listen((request) => {
      const r = request as { type?: unknown; seq?: unknown; positions?: unknown; block?: unknown; more?: unknown } | null;
      if (r?.type !== 'show' || typeof r.seq !== 'number') return;
      stop();
      resolve({ seq: r.seq, positions: Array.isArray(r.positions) ? r.positions : [], ...(r.block !== undefined ? { block: r.block } : {}), more: r.more === true });
    });
  });
}

/** The judge's 'probed' request for case `key` (its probe from outside is over): resolves to its error, or null. */
function nextProbed(channel: SampleServerChannel, key: string): Promise<string | null> {
  return new Promise((resolve) => {
    const stop = channel.listen((request) => {
      const r = request as { type?: unknown; caseKey?: unknown; error?: unknown } | null;
      if (r?.type !== 'probed' || r.caseKey !== key) return;
      stop();
      resolve(typeof r.error === 'string' ? r.error : null);
    });
  });
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
  // A graded run's cases are split among its runners (job.side): the solution's copies in a process that loads no
  // learner module, the learner's graded cases in one that mirrors it, every other case in the learner's.
  const graded = gradedKeys(info);
  const ours = (d: CaseDefinition<unknown, unknown>) => job.side === undefined || runnerSideOf(d, graded) === job.side;
  const definitions = allDefinitions.filter((d) => !excluded.has(caseKey(d)) && ours(d));
  const prepared = await prepareCases(lab, definitions, ctx);
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
      output: async (index, actual) => {
        // Sent for the judge to compare.
        const crossing = outputOf(actual);
        if (crossing.kind === 'whole') {
          try {
            await channel.send({ type: 'check-output', caseKey: p.key, input: index, output: crossing });
          } catch (e) {
            throw new Error(`its output could not be sent to the harness: ${e instanceof Error ? e.message : String(e)}`);
          }
          return null;
        }
        // Too large: the judge fetches it block by block ('show' after 'show', answered before anything else runs)
        // and checks it whole; the runner also compares it in full, which only adds a failure.
        // Announced as a call, so the supervisor bounds the wait whatever happens to its 'show's.
        announce({ stage: 'check', caseKey: p.key, input: index }, CHECK_CALL_TIMEOUT_MS, `the harness's check of one output may take ${CHECK_CALL_TIMEOUT_MS / 1000} s`);
        let asked = nextShow(channel);
        await channel.send({ type: 'check-output', caseKey: p.key, input: index, output: crossing });
        for (let more = true; more; ) {
          const show = await asked;
          more = show.more;
          // Listening for the next before answering this one: it may arrive before the answer's send settles.
          if (more) asked = nextShow(channel);
          await channel.send({ type: 'shown', seq: show.seq, values: shownValues(actual as ArrayLike<number>, show) });
        }
        called();
        return lab.comparator.compare(await lab.expected(p.set.inputs[index]), actual);
      },
      probeFromOutside: async (socketPath) => {
        // The judge probes the case from its own process, then says so ('probed'): this call waits for that,
        // inside the property check's announced call, so the wait is bounded.
        const probed = nextProbed(channel, p.key);
        await channel.send({ type: 'outside-probe', caseKey: p.key, socketPath });
        const error = await probed;
        if (error !== null) throw new Error(`the harness could not probe it from outside: ${error}`);
      },
      property: async (evidence) => {
        // Judged in the judge's process (the case's judgeProperty): nothing is decided here.
        try {
          await channel.send({ type: 'property', caseKey: p.key, evidence });
        } catch (e) {
          throw new Error(`its property evidence could not be sent to the harness: ${e instanceof Error ? e.message : String(e)}`);
        }
        return null;
      },
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
  // The graded pair's processes measure whatever of their cases passed; the learner's in a graded run its baseline
  // (its other cases, if any passed, beside it); a practice run needs the baseline and one more case.
  const measures = job.side === 'solution' || job.side === 'graded' ? passing.length > 0 : baselinePassed && (otherPassed || job.side === 'learner');
  if (job.checkOnly || !measures) {
    await teardownAll();
    return;
  }

  // Stage 2: measure what passed. The supervisor drives it (judge-sampler.ts): it picks each sample's case and fresh
  // input, times each sample from its side and checks its output; this process makes each input, runs it and sends the output.
  send({ type: 'measuring', cases: passing.map((p) => ({ key: p.prepared.key, checkMs: p.checkMs })) });
  const served: ServedCase<unknown, unknown>[] = passing.map((p) => {
    const { definition, measureInput, measureAt } = p.prepared;
    return {
      key: p.prepared.key,
      instance: p.instance,
      ...servedInputs(lab, measureInput, measureAt),
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
