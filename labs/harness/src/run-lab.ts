/**
 * One lab run, the stages in one readable sequence (as Criterion.rs's analysis does):
 * inputs -> check -> measure -> statistics -> environment -> results -> reports. No stage reaches back.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyze, type AnalysisInput } from './analysis.ts';
import { checkCase, type CheckSet } from './check.ts';
import { collectEnvironment } from './environment.ts';
import { EXIT_CHECK_FAILED, EXIT_OK, LabLoadError } from './errors.ts';
import {
  caseLabel,
  paramsKey,
  type CaseDefinition,
  type CaseInstance,
  type Impl,
  type LabContext,
  type LabDefinition,
  type SamplingPlan,
} from './lab-definition.ts';
import { loadLab, ROOT_DIR } from './lab-registry.ts';
import { measureCases, measureGroups, calibrateOverhead, type MeasureTarget } from './measure.ts';
import { createProgress } from './progress.ts';
import { writeReports, formatTerminalSummary } from './report/index.ts';
import { SCHEMA_VERSION, type CorrectnessEntry, type Results } from './results-schema.ts';
import { createRunDir, ensureWritable, writeResults } from './results-writer.ts';

/** Bootstrap resamples per interval: 10,000 keeps the 2.5% and 97.5% percentiles stable to about 1%. */
export const BOOTSTRAP_RESAMPLES = 10_000;
export const DEFAULT_SEED = 20261202;

export interface RunLabOptions {
  lab: string;
  impl: Impl;
  quick: boolean;
  /** Parent folder of run folders; the run goes to `<outDir>/<lab>/<timestamp>/`. Default `<root>/results`. */
  outDir?: string;
  /** Overrides the lab's sampling plan (tests use a tiny one). */
  sampling?: SamplingPlan;
  seed?: number;
  /** No progress and no summary on the terminal (tests). */
  silent?: boolean;
  /** The command line to record in the results, for "the exact commands to reproduce". */
  command?: string;
  rootDir?: string;
}

export interface RunLabOutcome {
  exitCode: number;
  results: Results | null;
  runDir: string | null;
  correctness: CorrectnessEntry[];
  /** What the run printed as its summary (also written to stdout unless silent). */
  summary: string;
}

interface Prepared<Input, Output> {
  definition: CaseDefinition<Input, Output>;
  set: CheckSet<Input, Output>;
  measureInput: Input;
}

/** Formats the check stage's verdicts for the terminal, with the fix for each failure. */
export function formatCheckReport(entries: CorrectnessEntry[], lab: string, impl: Impl): string {
  const lines = ['Correctness check (every case against the reference, before any timing):'];
  for (const e of entries) {
    const label = caseLabel(e.variant, e.params);
    if (e.passed) {
      const err = e.maxAbsError !== null ? `, max abs error ${e.maxAbsError.toExponential(2)}` : '';
      lines.push(`  ok    ${label} (${e.inputsChecked} inputs, ${e.comparator}${err})`);
    } else {
      lines.push(`  ${e.notImplemented ? 'TODO ' : 'FAIL '} ${label}: ${e.reason}`);
    }
  }
  if (entries.some((e) => e.notImplemented)) {
    lines.push(
      `Some variants are not implemented yet: write them in ${impl === 'exercise' ? `exercises/${lab}` : `solutions/${lab}`} ` +
        `(look for TODO(learner)), or run the reference solution with --impl solution.`,
    );
  }
  return lines.join('\n');
}

/** Inputs and reference outputs for every case; cases that agree on the lab's input params share them. */
async function prepareCases(
  lab: LabDefinition<unknown, unknown>,
  definitions: CaseDefinition<unknown, unknown>[],
  ctx: LabContext,
): Promise<Prepared<unknown, unknown>[]> {
  const sets = new Map<string, { set: CheckSet<unknown, unknown>; measureInput: unknown }>();
  const prepared: Prepared<unknown, unknown>[] = [];
  for (const definition of definitions) {
    const key = paramsKey(definition.params, lab.inputParams);
    let entry = sets.get(key);
    if (!entry) {
      const inputs = await lab.inputs(definition.params, ctx);
      const all = [...inputs.check, inputs.measure];
      const expected = [];
      for (const input of all) expected.push(await lab.reference(input));
      entry = { set: { inputs: all, expected }, measureInput: inputs.measure };
      sets.set(key, entry);
    }
    prepared.push({ definition, set: entry.set, measureInput: entry.measureInput });
  }
  return prepared;
}

export async function runLab(options: RunLabOptions): Promise<RunLabOutcome> {
  const rootDir = options.rootDir ?? ROOT_DIR;
  const outRoot = path.resolve(options.outDir ?? path.join(rootDir, 'results'));
  ensureWritable(outRoot);
  const lab = (await loadLab(options.lab, rootDir)) as LabDefinition<unknown, unknown>;
  const implDir = path.join(rootDir, options.impl === 'exercise' ? 'exercises' : 'solutions', lab.name);
  if (!existsSync(implDir)) {
    throw new LabLoadError(`${path.relative(rootDir, implDir)} is missing: restore it with 'git checkout -- ${path.relative(rootDir, implDir)}'`);
  }
  const progress = createProgress(!options.silent);
  const print = (text: string) => {
    if (!options.silent) process.stdout.write(`${text}\n`);
  };
  const seed = options.seed ?? DEFAULT_SEED;
  const ctx: LabContext = {
    impl: options.impl,
    implDir,
    rootDir,
    quick: options.quick,
    availableParallelism: os.availableParallelism(),
    seed,
  };
  const plan = options.sampling ?? (options.quick ? lab.sampling.quick : lab.sampling.full);
  const startedAt = new Date();
  // The machine as it was when the run started (its load average then says whether others were using it).
  const environment = collectEnvironment(rootDir);
  print(`${lab.title}: checking the ${options.impl} (${options.quick ? 'quick' : 'full'} run)`);

  // Inputs and reference outputs, shared by the cases that agree on the lab's input params.
  const definitions = lab.cases(ctx);
  const labNotes = lab.notes?.(ctx) ?? [];
  for (const note of labNotes) print(`note: ${note}`);
  const prepared = await prepareCases(lab, definitions, ctx);

  // Stage 1: check. Passing cases stay set up for measuring; failing ones are torn down and never timed.
  progress.stage(`Checking ${prepared.length} cases against the reference...`);
  const correctness: CorrectnessEntry[] = [];
  const passing: { prepared: Prepared<unknown, unknown>; instance: CaseInstance<unknown, unknown> }[] = [];
  for (const [i, p] of prepared.entries()) {
    progress.update(i, prepared.length, caseLabel(p.definition.variant, p.definition.params));
    const checked = await checkCase(p.definition, lab.comparator, p.set, ctx);
    correctness.push(checked.entry);
    if (checked.instance) passing.push({ prepared: p, instance: checked.instance });
  }
  progress.stop();
  print(formatCheckReport(correctness, lab.name, options.impl));
  const failed = correctness.some((e) => !e.passed);
  const teardownAll = async () => {
    for (const p of passing) await Promise.resolve(p.instance.teardown()).catch(() => {});
  };

  if (!passing.some((p) => p.prepared.definition.variant !== lab.baseline) || !passing.some((p) => p.prepared.definition.variant === lab.baseline)) {
    await teardownAll();
    const summary = `Nothing to measure: no variant passed the check${failed ? '' : ''}. No results were written.`;
    print(summary);
    return { exitCode: EXIT_CHECK_FAILED, results: null, runDir: null, correctness, summary };
  }

  // Stage 2: measure (only what passed), then the post-measure check of each case's last output.
  progress.stage(`Measuring ${passing.length} cases: ${plan.rounds} interleaved rounds of ${plan.iterationsPerRound} samples each...`);
  let harnessOverheadMs: number;
  let measured;
  try {
    harnessOverheadMs = await calibrateOverhead(Math.max(50, plan.rounds * plan.iterationsPerRound));
    const targets: MeasureTarget<unknown, unknown>[] = passing.map((p) => ({
      label: caseLabel(p.prepared.definition.variant, p.prepared.definition.params),
      instance: p.instance,
      input: p.prepared.measureInput,
      ...(p.prepared.definition.measureGroup ? { group: p.prepared.definition.measureGroup } : {}),
    }));
    measured = await measureCases(targets, plan, (m) => progress.update(m.done, m.total, m.label));
  } finally {
    progress.stop();
    await teardownAll();
  }
  const analysisInputs: AnalysisInput[] = [];
  for (const [i, p] of passing.entries()) {
    const m = measured[i]!;
    const { definition, set, measureInput } = p.prepared;
    const expected = set.expected[set.inputs.indexOf(measureInput)];
    const comparison = lab.comparator.compare(expected, m.lastOutput);
    if (!comparison.equal) {
      // The answer changed while it was measured (a race, state carried between calls): it is not charted.
      const entry = correctness.find((e) => e.variant === definition.variant && paramsKey(e.params) === paramsKey(definition.params))!;
      Object.assign(entry, {
        passed: false,
        reason: 'its output changed while it was measured (a race, or state kept between calls?): ' +
          `first difference at [${comparison.firstMismatch?.index}]`,
        firstMismatch: comparison.firstMismatch,
      });
      continue;
    }
    analysisInputs.push({
      variant: definition.variant,
      params: definition.params,
      ...(definition.workers !== undefined ? { workers: definition.workers } : {}),
      samplesMs: m.samplesMs,
      workPerSample: lab.workPerSample(measureInput),
      observations: m.observations,
    });
  }

  // Stage 3: statistics. Stage 4: environment. Stage 5: results.
  progress.stage('Computing statistics (bootstrap intervals)...');
  const analysis = analyze(analysisInputs, {
    baseline: lab.baseline,
    headline: lab.headline,
    seed,
    resamples: BOOTSTRAP_RESAMPLES,
    availableParallelism: ctx.availableParallelism,
  });
  const notes: string[] = [...labNotes];
  if (analysis.cases.some((c) => c.oversubscribed)) {
    notes.push(`Cases with more workers than available CPUs (${ctx.availableParallelism}) are flagged oversubscribed: their speedup is limited by time-slicing.`);
  }
  const groupNames = measureGroups(passing.map((p) => p.prepared.definition.measureGroup)).map(
    (members) => passing[members[0] as number]?.prepared.definition.measureGroup ?? 'the other cases',
  );
  if (groupNames.length > 1) {
    notes.push(
      `Measured in ${groupNames.length} groups, one after another (${groupNames.join(', then ')}), with a full garbage ` +
        'collection between them; cases are interleaved within a group only.',
    );
  }
  const results: Results = {
    schemaVersion: SCHEMA_VERSION,
    lab: lab.name,
    title: lab.title,
    impl: options.impl,
    quick: options.quick,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command: options.command ?? `npm run lab -- ${lab.name} --impl ${options.impl}${options.quick ? ' --quick' : ''}`,
    seed,
    bootstrapResamples: BOOTSTRAP_RESAMPLES,
    harnessOverheadMs,
    environment,
    correctness,
    ...analysis,
    notes,
  };
  const runDir = createRunDir(outRoot, lab.name, startedAt);
  writeResults(runDir, results);

  // Stage 6: reports, fed the same validated results.
  progress.stage('Writing reports...');
  const written = await writeReports(results, runDir);
  const summary = [
    formatTerminalSummary(results),
    '',
    `Results: ${path.join(runDir, 'results.json')}`,
    `Report:  ${written.html}`,
    `         ${written.markdown}`,
  ].join('\n');
  print(summary);
  const anyFailed = correctness.some((e) => !e.passed);
  return { exitCode: anyFailed ? EXIT_CHECK_FAILED : EXIT_OK, results, runDir, correctness, summary };
}

export interface CheckLabOptions {
  lab: string;
  impl: Impl;
  seed?: number;
  rootDir?: string;
}

export interface CheckLabOutcome {
  /** EXIT_OK when every case passed, EXIT_CHECK_FAILED otherwise. */
  exitCode: number;
  lab: string;
  impl: Impl;
  correctness: CorrectnessEntry[];
  /** The check report as runLab prints it, with the fix for each failure. */
  report: string;
  /** Wall time of inputs + check + teardown, in ms. */
  elapsedMs: number;
}

/**
 * Stage 1 alone, for `--watch` and `--status`: inputs, reference outputs and the correctness check of every case,
 * then teardown. Nothing is measured and nothing is written. Uses the quick sweep, which is the fast one.
 */
export async function checkLab(options: CheckLabOptions): Promise<CheckLabOutcome> {
  const started = performance.now();
  const rootDir = options.rootDir ?? ROOT_DIR;
  const lab = (await loadLab(options.lab, rootDir)) as LabDefinition<unknown, unknown>;
  const implDir = path.join(rootDir, options.impl === 'exercise' ? 'exercises' : 'solutions', lab.name);
  if (!existsSync(implDir)) {
    throw new LabLoadError(`${path.relative(rootDir, implDir)} is missing: restore it with 'git checkout -- ${path.relative(rootDir, implDir)}'`);
  }
  const ctx: LabContext = {
    impl: options.impl,
    implDir,
    rootDir,
    quick: true,
    availableParallelism: os.availableParallelism(),
    seed: options.seed ?? DEFAULT_SEED,
  };
  const prepared = await prepareCases(lab, lab.cases(ctx), ctx);
  const correctness: CorrectnessEntry[] = [];
  for (const p of prepared) {
    const checked = await checkCase(p.definition, lab.comparator, p.set, ctx);
    correctness.push(checked.entry);
    if (checked.instance) await Promise.resolve(checked.instance.teardown()).catch(() => {});
  }
  return {
    exitCode: correctness.every((e) => e.passed) ? EXIT_OK : EXIT_CHECK_FAILED,
    lab: lab.name,
    impl: options.impl,
    correctness,
    report: formatCheckReport(correctness, lab.name, options.impl),
    elapsedMs: performance.now() - started,
  };
}
