/**
 * The messages between the supervisor (the harness's own process, never running learner code) and the runner (a
 * child process that loads the lab and runs the learner's code). The runner announces every call into learner code
 * with a time limit before it makes it; the supervisor ends the runner when a limit passes without an answer.
 */
import type { Impl, SamplingPlan } from '../lab-definition.ts';
import type { CorrectnessEntry, Params, RawObservation, SampleUnit, Sweep } from '@parallel-course/core';

/**
 * The runners of a graded run, each with its own cases (run-cases.ts runnerSideOf): 'solution' the solution's copies
 * of the graded cases alone (a process that never loads a learner module); 'graded' the learner's graded cases alone,
 * in a process that holds and does what the solution's does (the same cases, set up and checked in the same order), so
 * the two sides of a graded pair differ only in the code measured; 'learner' every other case (the baseline, the other
 * variants: the practice run's cases).
 */
export type RunnerSide = 'learner' | 'graded' | 'solution';

/** What the supervisor asks the runner to do. */
export interface RunJob {
  lab: string;
  impl: Impl;
  quick: boolean;
  seed: number;
  rootDir: string;
  /** Overrides the lab's sampling plan (tests use a tiny one). */
  sampling?: SamplingPlan;
  /** Check only: nothing is measured (for --watch and --status). */
  checkOnly: boolean;
  /** Keys (core's caseKey) of cases that failed in an earlier attempt of this run: not set up again. */
  exclude: string[];
  /** Keys of cases the run's plan left out to stay within its time budget (plan.ts): never listed, set up or run. */
  omit?: string[];
  /**
   * The case keys the supervisor computed (run-cases.ts), in order: the runner computes its own and stops if they
   * differ (a lab whose case list depends on something other than its context), rather than report cases the
   * supervisor does not know.
   */
  caseKeys?: string[];
  /** The CPU count the lab plans for (os.availableParallelism() unless forced). */
  availableParallelism: number;
  /**
   * Grade the exercise: the lab's graded cases of the solution are measured too, as the same variant with params
   * `{ ...params, impl: 'solution' }`, in a runner of their own (`side`), interleaved with the learner's by the judge.
   */
  grade?: boolean;
  /** In a graded run, which cases this runner sets up (RunnerSide); absent: every case (a practice run). */
  side?: RunnerSide;
  /**
   * A graded run's process pairs (run-cases.ts GRADE_FORKS, the default; tests pass fewer): each side's graded cases
   * run in this many fresh runners. The judge's job field, never read from the environment learner code shares.
   */
  forks?: number;
  /** Multiplies the runner's own call limits, as the supervisor's (tests shorten them; default 1). */
  limitScale?: number;
}

/** One case of the lab's sweep as the supervisor needs to know it (no functions). */
export interface CaseInfo {
  key: string;
  variant: string;
  params: Params;
  workers?: number;
  measureGroup?: string;
  /** The learner's (or solution's) file this variant's code is in, relative to the repository root, when it has one. */
  learnerFile: string | null;
  /** Cases with the same key run on the same inputs (core's paramsKey over the lab's inputParams). */
  inputKey: string;
}

/** What a call into lab or learner code is doing, for progress and for the message when it overruns. */
export type Activity =
  | { stage: 'setup'; caseKey: string }
  | { stage: 'check'; caseKey: string; input: number }
  | { stage: 'warm-up'; caseKey: string }
  | { stage: 'measure'; caseKey: string; round: number }
  | { stage: 'teardown'; caseKey: string }
  /** The judge's requests between samples (its calibration, a garbage collection): `caseKey` is the process's first case. */
  | { stage: 'between'; caseKey: string };

/**
 * What the supervisor knows of a run before it starts the runner: computed in each process from its own load of the
 * lab (run-cases.ts), never sent.
 */
export interface LabInfo {
  name: string;
  title: string;
  baseline: string;
  sweeps: Sweep[];
  headline: { variant: string; params: Params };
  notes: string[];
  cases: CaseInfo[];
  plan: SamplingPlan;
  /** The memory the lab says a run needs (LabDefinition.memoryBytes), in bytes, or null. */
  memoryBytes: number | null;
  /** The solution's build outputs a graded run fingerprints (LabDefinition.solutionBuildOutputs), absolute paths. */
  solutionBuildOutputs: string[];
  /** The graded cases and the target, when the job grades. */
  grading: { cases: { variant: string; params: Params; optional?: boolean }[]; target: number; targetText: string } | null;
}

/**
 * One sample's output as it crosses to the judge (the channel's structured clone keeps typed arrays typed):
 * - `whole`: the output itself;
 * - `large`: a typed array over OUTPUT_BYTES_BOUND (output-positions.ts) of `length` elements, kept in the runner until the
 *   judge asks for its values at positions the judge draws once it has the answer ('show');
 * - `threw`: the call threw (or its output could not be sent: a function in it, a getter that throws), `error` says what.
 */
export type SampleOutput = { kind: 'whole'; value: unknown } | { kind: 'large'; length: number } | { kind: 'threw'; error: string };

export type RunnerMessage =
  /** The lab's notes (lab.notes()), computed here: they may load native code, which the supervisor never does. */
  | { type: 'notes'; notes: string[] }
  /** A call into lab or learner code starts; it must end within `limitMs` (`why` explains the limit). */
  | { type: 'call'; activity: Activity; limitMs: number; why: string }
  /** The call announced last has returned (or thrown: then a `checked` or `case-failed` follows). */
  | { type: 'called' }
  /**
   * A check call's output (check input #`input` of the case), sent right after the call for the judge to compare with
   * its own expected output (check-judge.ts CheckJudge). A `large` one the runner compared itself; its 'checked' says.
   */
  | { type: 'check-output'; caseKey: string; input: number; output: SampleOutput }
  /**
   * The case's property evidence (CaseInstance.propertyEvidence), sent after its check outputs, before its 'checked':
   * raw observations made in this process, beside the learner's code (self-reported), which the judge reads and
   * judges with the case's judgeProperty in its own process (check-verdicts.ts CheckVerdicts). At most one per case.
   */
  | { type: 'property'; caseKey: string; evidence: unknown }
  /**
   * The case asks the judge to probe it from outside (CaseDefinition.probeFromOutside), through the Unix socket
   * `socketPath` in this runner's temp folder; sent before its 'property', at most once per case. The judge answers
   * with a 'probed' request when it is done.
   */
  | { type: 'outside-probe'; caseKey: string; socketPath: string }
  /**
   * The case's check is over; a wrong output the judge found among its 'check-output's, or its verdict on the case's
   * 'property' evidence, overrides `entry` (a passed entry of a case with a property and no evidence fails).
   */
  | { type: 'checked'; entry: CorrectnessEntry; caseKey: string; measureCallMs: number | null }
  | { type: 'progress'; done: number; total: number; label: string; phase: 'check' | 'warm-up' | 'measure' }
  /**
   * The check is over: the runner waits for the supervisor's requests (JudgeRequest), one at a time. `cases` are the
   * cases that passed and stay set up; `checkMs` is each one's check call on the measured input (its sample limit).
   */
  | { type: 'measuring'; cases: { key: string; checkMs: number | null }[] }
  /** The answer to a 'prepare': the sample's input is made, outside any timed window. */
  | { type: 'prepared'; seq: number; error: string | null }
  /**
   * The first answer to a 'sample', sent the moment its last call has returned; `runnerMs` is the runner's own time of
   * the sample's calls, for comparison only: the recorded sample is the supervisor's (judge-sampler.ts).
   */
  | { type: 'sampled'; seq: number; runnerMs: number }
  /**
   * The second answer to a 'sample', sent right after 'sampled': what each of its calls returned, in order (one per
   * fresh number of its 'prepare'; a call that threw ends the sample, its entry says so), for the judge to check in its
   * own process (judge-outputs.ts); the runner checks nothing.
   */
  | { type: 'output'; seq: number; outputs: SampleOutput[] }
  /** The answer to a 'show': the output at the positions asked, in their order, or its block (NaN past its end). */
  | { type: 'shown'; seq: number; values: Float64Array }
  /** The answer to a 'between'. */
  | { type: 'ok'; seq: number }
  /** A case failed after its samples (its observations threw): its samples are dropped, the other cases go on. */
  | { type: 'case-failed'; caseKey: string; reason: string; sample: number | null; stage: 'warm-up' | 'measure' }
  | {
      type: 'measured';
      caseKey: string;
      observations: Record<string, RawObservation>;
      workPerSample: { amount: number; unit: string };
      sample: SampleUnit;
    }
  | { type: 'done' }
  /** The run cannot go on for a reason that is not one case's (a lab that does not load, bad input). */
  | { type: 'fatal'; kind: 'usage' | 'internal'; message: string };

/**
 * What the supervisor asks the runner while it measures (judge-sampler.ts); the runner answers each in turn, in the
 * order asked. The supervisor times each 'sample' from its own clock, from sending it to receiving 'sampled'.
 */
export type JudgeRequest =
  /**
   * Make the inputs of the case's next sample, outside the timed window: one per call the sample makes, each its own.
   * `fresh` holds each call's fresh input number (LabInputs.measureAt), drawn by the supervisor and revealed only now;
   * for a case without fresh inputs every call runs the measured input, and only the count matters.
   */
  | { type: 'prepare'; seq: number; caseKey: string; fresh: number[] }
  /**
   * Run the prepared inputs back to back, one call each, and send the outputs; `caseKey` null: the empty task that
   * calibrates the round trip.
   */
  | { type: 'sample'; seq: number; caseKey: string | null }
  /**
   * Output #`call` of the last sample (0 when absent, as in the check stage) was `large`: send its values at
   * `positions` (drawn by the judge after 'output' arrived), or with `block`, its `count` values from `from` (the
   * judge fetches it whole, whole-output.ts). In the check stage `more` says another 'show' of the same output follows.
   */
  | { type: 'show'; seq: number; caseKey: string; positions: number[]; call?: number; block?: { from: number; count: number }; more?: boolean }
  /** Between stages: a full garbage collection (between measure groups), observations reset (after the warm-up). */
  | { type: 'between'; seq: number; collectGarbage: boolean; resetObservations: string[] }
  /**
   * The judge's probe of `caseKey` from outside ('outside-probe') is over (`error`: why it did not run); no answer.
   */
  | { type: 'probed'; seq: number; caseKey: string; error: string | null }
  /** Measuring is over: send 'measured' for each of `caseKeys`, tear every case down, then 'done'. */
  | { type: 'finish'; seq: number; caseKeys: string[] };
