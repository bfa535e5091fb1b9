/**
 * What a lab declares. The harness does the rest in one direction:
 * inputs -> check -> measure -> statistics -> results -> reporters.
 *
 * A lab module (`labs/<lab>/src/lab.ts`) default-exports a `LabDefinition`. Its cases are the sweep, already
 * expanded: one case per (variant, params), e.g. `pool` with `{ workers: 1 }`, `{ workers: 2 }`...
 */
import type { AnalysisTable, MeasuredValue } from '@parallel-course/core';
import type { LearnerFile } from './learner-module.ts';
import type { CaseRef, Params, RawObservation, Results, SampleUnit, Sweep } from '@parallel-course/core';
import { HarnessError, NotImplementedError } from './errors.ts';

/** HarnessError: the base of a lab's own errors too (a stable `code` and the class's name), as of the harness's. */
export { HarnessError, NotImplementedError };

export type Impl = 'exercise' | 'solution';

/** What the harness tells a lab about this run. */
export interface LabContext {
  impl: Impl;
  /** Absolute path of `exercises/<lab>` or `solutions/<lab>`: where the implementation under test lives. */
  implDir: string;
  /** Absolute path of the repository root. */
  rootDir: string;
  quick: boolean;
  /** `os.availableParallelism()`: the number of CPUs this process may use. */
  availableParallelism: number;
  seed: number;
}

/** The outcome of comparing one output with the expected output. */
export interface Comparison {
  equal: boolean;
  /** Where the outputs first differ (an index or a key) and both values, shortened for display. */
  firstMismatch: { index: number | string; expected: string; actual: string } | null;
  /** Largest absolute and relative error over all elements, for numeric outputs; null otherwise. */
  maxAbsError: number | null;
  maxRelError: number | null;
}

/** Compares a variant's output with the expected output; `description` names the rule, e.g. "exact bytes" or "|a-b| <= 1e-9 + 1e-6|b|". */
export interface Comparator<Output> {
  description: string;
  compare(expected: Output, actual: Output): Comparison;
}

/** A case that has been set up (pool warmed, server started, addon loaded). Set-up is never timed. */
export interface CaseInstance<Input, Output> {
  /** Does one sample's worth of work on `input` and returns its output (the harness keeps it so it cannot be optimised away). */
  run(input: Input): Promise<Output> | Output;
  /**
   * Optional: runs after each sample, outside the timed region (e.g. waiting for a load generator to wind down); after
   * the last call of a sample of several, so a lab that needs it after every call sets LabDefinition.oneCallPerSample.
   */
  afterSample?(): Promise<void> | void;
  /**
   * Optional: runs before each warm-up and measured sample with that sample's input, outside the timed region (e.g.
   * device processes loading a fresh pass into their memory, for a case that times their compute alone).
   */
  beforeSample?(input: Input): Promise<void> | void;
  /** Releases what setup started (threads, processes, sockets). Called once, also after failures. */
  teardown(): Promise<void> | void;
  /**
   * Optional: gathers the evidence of a property the outputs cannot show (e.g. what a server saw while a chunked handler
   * derived a ring, the counts of a race probe, the calls a batching function made), once, after every check input
   * passed and before anything is timed. It runs in the lab process, beside the learner's code, so the evidence is
   * self-reported: it carries raw observations only (plain numbers, strings, booleans, arrays and objects of them),
   * never a verdict. The case's `judgeProperty` decides, in the judge's process. Where the case's definition has
   * `probeFromOutside`, call `judge.probeFromOutside` with the Unix socket the learner's server listens on (in the
   * run's temp folder, os.tmpdir()): the judge's process then probes it itself, and resolves when done.
   */
  propertyEvidence?(judge: PropertyJudge): Promise<unknown> | unknown;
  /** Called after warm-up, before the measured samples: forget observations made so far. */
  resetObservations?(): void;
  /** Called after measuring: the observations made during the measured samples. */
  collectObservations?(): Promise<Record<string, RawObservation>> | Record<string, RawObservation>;
}

/** The judge, as a case's propertyEvidence reaches it (CaseDefinition.probeFromOutside). */
export interface PropertyJudge {
  /** Has the judge run the case's probeFromOutside against the Unix socket `socketPath`; resolves once it is done. */
  probeFromOutside(socketPath: string): Promise<void>;
}

export interface CaseDefinition<Input, Output> {
  variant: string;
  params: Params;
  /** The worker (thread or process) count, where the case has one: enables efficiency, Karp-Flatt and the Amdahl fit. */
  workers?: number;
  /**
   * Cases with the same group are interleaved with each other; groups are measured one after another (in the order
   * they first appear), with a full garbage collection between them. Give multi-core cases their own group when
   * other cases leave garbage behind: V8 collects it on background threads that would take the cores being measured.
   */
  measureGroup?: string;
  setup(ctx: LabContext): Promise<CaseInstance<Input, Output>>;
  /**
   * The property the variant exists for, judged from its instance's `propertyEvidence`: null when it holds, or a
   * message that says what was seen, why it fails the variant's purpose and how to fix it (the case then fails its
   * check and is never measured). Pure lab code, run in the judge's process, which never loads learner code: the
   * evidence came from the lab process and may be forged or malformed, so read it with `readEvidence` (a malformed
   * field throws PropertyEvidenceError, and the case fails naming it). Required wherever the instance has
   * `propertyEvidence`; without one, evidence fails the case.
   */
  judgeProperty?(evidence: unknown, outside?: unknown): string | null;
  /**
   * Optional: evidence the judge makes itself, from outside the lab process: pure lab code run in the judge's process
   * (it never loads learner code), which talks to the learner's server through `socketPath` (a Unix socket in the
   * run's temp folder, which the judge can reach even when the runner has no network) and times it with the judge's
   * clock. What it resolves to reaches judgeProperty as `outside`. Asked for by the instance's propertyEvidence
   * (PropertyJudge.probeFromOutside); a case that has it and never asks fails its check.
   */
  probeFromOutside?(socketPath: string): Promise<unknown>;
  /**
   * What this case costs on this machine, for planning the run (plan.ts): its work per sample divided by the rates
   * in `calibration` (the lab's `planning`), and what its set-up and check add. Pure and quick: it starts nothing.
   */
  estimate?(ctx: LabContext, calibration: Calibration): CaseEstimate;
  /**
   * A sweep point the run may leave out when even the fewest rounds would not keep it within its time budget (e.g.
   * the oversubscribed pool, a one-worker case that only refines an efficiency). Never the baseline, the headline or,
   * in a --grade run, a graded case: plan.ts keeps those whatever this says.
   */
  optional?: boolean;
}

/**
 * Rates measured by a lab's calibration, in the lab's own units and named by it, e.g. `{ msPerKey: 2.6 }`:
 * what its cases' estimates divide their work by (plan/calibration.ts, `rateOf`).
 */
export type Calibration = Readonly<Record<string, number>>;

/** A case's planned cost, in ms (plan.ts adds them up). */
export interface CaseEstimate {
  /** One sample on the measured input. */
  sampleMs: number;
  /** Setting the case up and tearing it down (pools, servers, processes, sessions, probes); default 0. */
  setupMs?: number;
  /** The check inputs other than the measured one (plan.ts adds one sample for that); default 0. */
  checkMs?: number;
  /** Checking one measured sample's output on its fresh input (checkSample, outside the timed region); default 0. */
  sampleCheckMs?: number;
  /**
   * The bytes of one call's output on the measured input, where it may be over the harness's bound (4 MiB): plan.ts
   * then adds the judge's fetch of it whole (whole-output.ts wholeFetchMs). Absent: sent whole, nothing added.
   */
  outputBytes?: number;
  /**
   * The bytes of each check input's output other than the measured one's (checkMs's inputs), where one may be over the
   * bound: plan.ts adds the judge's fetch of each whole, once (native-kernel's check triad of 2^19 + 3 doubles, 4 MiB,
   * fetched whole every check). Absent: each sent whole, nothing added.
   */
  checkOutputBytes?: readonly number[];
}

/** How a lab's runs are planned (plan.ts): the rates its estimates divide by, measured here and on the course machine. */
export interface LabPlanning {
  /**
   * A short measurement (about 50-100 ms) of the lab's unit of work on this machine, e.g. a key derivation or a
   * Monte Carlo loop. It runs in the harness's own process before the check, so it runs lab code only, never the
   * learner's, and starts nothing.
   */
  calibrate(): Calibration;
  /** What `calibrate` gives on the course machine (plan.ts: COURSE_MACHINE): the planning test and `npm run plan` use it. */
  courseMachine: Calibration;
  /** Making one set of inputs and their expected outputs (once per distinct value of the lab's `inputParams`), in ms. */
  inputsMs?(params: Params, ctx: LabContext, calibration: Calibration): number;
}

/** A case named by its variant and params. */
export type Headline = CaseRef;

/** The headline case of `lab` for this run. */
export function resolveHeadline(headline: Headline | ((ctx: LabContext) => Headline), ctx: LabContext): Headline {
  return typeof headline === 'function' ? headline(ctx) : headline;
}

export interface VariantInfo {
  name: string;
  /** One line for the terminal and the report: what this variant does. */
  description: string;
  /** Where its code is, e.g. "labs/event-loop/src/inline-handler.ts" or "<impl>/handlers.ts: createPoolHandler". */
  source: string;
  /**
   * Set when the exercise ships this variant running but wrong on purpose (the lesson is to fix it): one line on
   * what the failure teaches. While the variant's <impl> file still holds its TODO(learner), `--status` shows the
   * failure as the exercise to do, not as a bug.
   */
  shipsFailing?: string;
}

/**
 * How many samples to take. Rounds interleave the cases, so drift hits every case alike. Every count is of samples
 * (one timed call each); how much work one sample does is the case's own (workPerSample). Not a results-file field.
 */
export interface SamplingPlan {
  /** Samples per case before the measured rounds, discarded (their outputs are still checked). */
  warmupSamples: number;
  rounds: number;
  /** Samples per case in each round. */
  samplesPerRound: number;
}

/** The sample numbers `LabInputs.measureAt` may be given: 1 to this - 1 (0 is the measured input's own). */
export const FRESH_INPUT_INDICES = 2 ** 20;

/**
 * The seed of fresh input `sample` of a run seeded `seed`, for a lab whose inputs are made from a seed (native-kernel's
 * matrices, task-granularity's points, task-graph's products): one-to-one in the sample for a given seed (an odd
 * multiplier and xors, all bijections of 32-bit words), and never the run's seed itself, so a fresh input is never the
 * measured input the check saw.
 */
export function freshSeed(seed: number, sample: number): number {
  const mixed = (Math.imul(sample, 0x9e3779b1) ^ Math.imul(seed, 0x85ebca6b) ^ 0x5bd1e995) >>> 0;
  return mixed === seed >>> 0 ? (mixed + 1) >>> 0 : mixed;
}

/**
 * Whether a lab's samples run on fresh inputs: it makes them (`measureAt`) and the judge can check them (`checkSample`,
 * or `expectedAt` for every fresh input of the run). The judge (judge-outputs.ts) and the runner decide alike.
 */
export function usesFreshInputs(lab: Pick<LabDefinition<unknown, unknown>, 'checkSample' | 'expectedAt'>, measureAt: unknown): boolean {
  return typeof measureAt === 'function' && (typeof lab.checkSample === 'function' || typeof lab.expectedAt === 'function');
}

export interface LabInputs<Input> {
  /** Inputs for the correctness check: every case's output must match the expected output on each of them. */
  check: Input[];
  /** The input each measured sample runs on (the one checked in full; with `measureAt`, the shape of the others). */
  measure: Input;
  /**
   * A fresh input per sample, so a memoising answer gains nothing: `sample` is unique in the run, drawn at random in
   * the judge's process from 1 to FRESH_INPUT_INDICES - 1 and revealed to the runner only with its sample
   * (judge-outputs.ts), so the next input cannot be worked out in advance; the judge calls it too, for its own copy.
   * Every value must give the same cost of work. A lab that can vary its input says so here; one that cannot says why
   * in its README. Each such sample is checked in the judge with `checkSample` (cheaper than computing the whole
   * expected output), or, where the lab has `expectedAt`, against its own expected output computed there before
   * measuring. What it returns may reuse the arrays (and files) of the input it returned before, so it is valid until
   * the next call: call it once per input, just before that input is used, and check its output before the next call
   * (native-kernel's products and gpu-batching's passes refill one set of arrays; a lab with `expectedAt` must return
   * a new object each time, since the judge makes every input up front). A sample of several calls (a fast case:
   * sample-limits.ts callsPerSample) runs each on a deep copy of what this returned (copy-input.ts), so it must return plain
   * data (typed arrays, arrays, objects), or the lab sets `oneCallPerSample`.
   */
  measureAt?(sample: number): Input;
}

/** A lab's reading of a run: text for the terminal and analysis.md, and files (charts, SVG) beside it. */
export interface LabAnalysis {
  /** Markdown: the derived figures with their units, the machine and the run they come from. */
  text: string;
  /** Extra files, by plain file name (no folders): e.g. `roofline.svg`, `efficiency-split.png`. */
  files: { name: string; contents: string | Uint8Array }[];
  /**
   * The derived numbers the lab's episode quotes, by stable camelCase key (e.g. `perTaskOverheadUs`), each with its
   * unit, interval where it has one, and one line saying what it is: written to analysis/values.json
   * (core's analysis-values.ts) and rendered by the site's `<Measured at="value" name="..." />` (issue 20).
   */
  values?: Record<string, MeasuredValue>;
  /** Tables the episode shows, by stable camelCase key: rendered by the site's `<MeasuredTable table="..." />`. */
  tables?: Record<string, AnalysisTable>;
}

export interface LabDefinition<Input, Output> {
  /** Lower-case, dash-separated, the same as the folder names: `labs/<name>`, `exercises/<name>`, `solutions/<name>`. */
  name: string;
  title: string;
  /** One line for `--list`. */
  summary: string;
  /** The episode file that teaches this lab, relative to the repository root. */
  episode: string;
  variants: VariantInfo[];
  /**
   * The files the learner writes (the same in exercises/<lab> and solutions/<lab>) and the functions each exports;
   * the lab loads them with importLearnerModule, and lab-shape.test.ts checks both folders against this list.
   */
  learnerFiles: LearnerFile[];
  /** The variant every speedup is relative to. */
  baseline: string;
  /**
   * The lab's main claim: the case whose speedup over the baseline is the headline. A function of the run's context
   * when the claim is about the node (e.g. the pool at P workers: `ctx.availableParallelism`).
   */
  headline: Headline | ((ctx: LabContext) => Headline);
  /** Names of the params that change the input (e.g. `size`); cases that agree on them share inputs and expected outputs. */
  inputParams: string[];
  /** Deterministic inputs for these params and this seed. */
  inputs(params: Params, ctx: LabContext): LabInputs<Input> | Promise<LabInputs<Input>>;
  /** The expected output for an input: the definition of a correct answer. */
  expected(input: Input): Output | Promise<Output>;
  comparator: Comparator<Output>;
  /**
   * With `LabInputs.measureAt`: checks one sample's output on its fresh input, cheaper than computing the whole
   * expected output (a lab whose expected output costs as much as the work spot-checks a seeded part and checks the
   * shape of the rest).
   */
  checkSample?(input: Input, output: Output): Comparison;
  /**
   * With `LabInputs.measureAt`, instead of `checkSample`: the expected outputs of every fresh input of the run at
   * once (`inputs`: what measureAt gave, each its own object), for a lab whose only exact check costs as much as the
   * work. The judge's process calls it before it measures (judge-outputs.ts), while the runners wait, so it may use
   * every core the run has (workers it starts and ends itself) and learner code never shares the process with it;
   * each sample's output is then compared with its own expected output by `comparator`, exactly, in the judge.
   */
  expectedAt?(inputs: Input[], ctx: LabContext): Promise<Output[]>;
  /**
   * For an output too large to send every sample (a typed array over sample-server.ts OUTPUT_BYTES_BOUND), with
   * `expectedAtPositions`: the number of elements the output of `input` has.
   */
  outputLength?(input: Input): number;
  /**
   * For an output too large to send every sample: the expected output's elements at `positions` (0-based, in that
   * order), as an output of the same kind holding just those, compared by `comparator` with the values the runner
   * shows there. The judge draws the positions after the sample has answered (judge-outputs.ts); e.g. for a product,
   * entry (i, j) is one dot product. A lab whose outputs can exceed the bound must have both hooks.
   */
  expectedAtPositions?(input: Input, positions: readonly number[]): Output;
  /** How much work one sample does, to turn a time into a throughput, e.g. `{ amount: 12, unit: 'requests' }`. */
  workPerSample(input: Input): { amount: number; unit: string };
  /**
   * What one sample is, from the case's params and its work: e.g. `{ item: 'call', itemsPerSample: 20000 }` when a
   * sample calls the function 20000 times. Recorded with every case (results.json `sample`), so a reader can show a
   * time per call. Absent: a sample is the unit itself (`{ item: 'sample', itemsPerSample: 1 }`).
   */
  sampleItems?(params: Params, work: { amount: number; unit: string }): SampleUnit;
  /**
   * The sweeps of this lab's cases: which param each varies, for which variants, and what its speedups are over.
   * Recorded in results.json, so the reports, the viewer and the episodes chart each as curves over its own param.
   */
  sweeps: Sweep[];
  /** The sweep, expanded into cases. */
  cases(ctx: LabContext): CaseDefinition<Input, Output>[];
  sampling: { quick: SamplingPlan; full: SamplingPlan };
  /**
   * What `--grade` grades: the learner's cases to measure beside the solution's same cases, interleaved in
   * one run, and the target each must reach: solution median time / learner median time >= `target` (e.g. 0.9: at
   * least 90% of the solution's throughput). Speed relative to the solution on the same machine cancels the
   * difference between a laptop and a node.
   */
  grading?: {
    /** `optional`: an optional exercise's case, left out of the verdict while its code is not implemented. */
    cases(ctx: LabContext): (Headline & { optional?: boolean })[];
    target: number;
    /** The target in words, for the report: "at least 0.9 of the solution's throughput at P workers". */
    targetText: string;
  };
  /**
   * The lab's own reading of a finished run (derived figures such as a per-task overhead or a roofline, extra tables
   * and charts): a pure function of the validated results. The harness runs it at the end of every `npm run lab` and
   * on demand with `npm run analyse -- <run folder>`, prints `text` and writes `text` and `files` into a new folder of
   * the run (analysis/, analysis-2/...), never replacing a file.
   */
  labAnalysis?(results: Results): LabAnalysis | Promise<LabAnalysis>;
  /**
   * Optional lines for the results' `notes` and the terminal: what a reader must know about this run that the
   * numbers do not say, e.g. "native rungs unavailable here: no C++ compiler (install g++, then `npm run build -w labs/native-kernel`)"
   * or "devices are CPU processes: no GPU was found". Called once per run, after the cases are listed.
   */
  notes?(ctx: LabContext): string[];
  /**
   * Optional: why every sample of this lab is one call, however short (gpu-batching: its fresh inputs are files,
   * refilled in place for each sample, so a copy is no input of its own; event-loop: its cases close each
   * sample in `afterSample`, which runs after a sample, not between its calls). Without it the judge makes a
   * fast case's sample several calls back to back, each on its own input (sample-limits.ts callsPerSample), so the
   * protocol's round trip stays under 1% of a sample.
   */
  oneCallPerSample?: string;
  /**
   * Optional: the memory a run's processes may hold together, in bytes, when the harness's limit (os-sandbox.ts:
   * 4 GiB + 256 MiB per CPU of anonymous memory) is too little, e.g. native-kernel's triad arrays, sized from the last-level cache. It
   * only raises the limit. Lab code alone (it is called in the supervisor): quick, and it loads nothing.
   */
  memoryBytes?(ctx: LabContext): number;
  /**
   * Files built from solutions/<lab> that a run loads (native addons), as absolute paths: a graded run fingerprints
   * them before the runner starts and again after it ends, and refuses the grade when one changed (issue 42: a
   * learner's static initializer swapped the solution's build for a slower one). Only read, never loaded, here.
   */
  solutionBuildOutputs?(ctx: LabContext): string[];
  /**
   * Optional: how to plan a run of this lab within its time budget (plan.ts): a calibration of its unit of work and
   * the course machine's rates. With it and an `estimate` on every case, `npm run lab` prints the planned time and
   * reduces the rounds (or leaves out optional cases) when a run would be too long.
   */
  planning?: LabPlanning;
}

/** Throws NotImplementedError; exercises call this in the bodies the learner writes. */
export function notImplemented(what: string): never {
  throw new NotImplementedError(what);
}

/** True for a NotImplementedError, also one that crossed a thread or process boundary as a plain message. */
export function isNotImplemented(error: unknown): boolean {
  if (error instanceof NotImplementedError) return true;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return message.startsWith('not implemented: ');
}
