/**
 * What a supervised run is asked to do and what it gives back (supervisor.ts supervise, run-attempt.ts runAttempt):
 * types only, below both, so neither imports the other's module for them.
 */
import type { CorrectnessEntry, RawObservation, SampleUnit } from '@parallel-course/core';
import type { RoundLoad } from './competing-load.ts';
import type { SandboxLimits } from '../supervise/os-sandbox.ts';
import type { RunCases } from './run-cases.ts';
import type { LabInfo, RunJob, RunnerMessage } from './run-protocol.ts';

export interface MeasuredData {
  samplesMs: number[];
  sampleRounds: number[];
  /** The process (0-based) each sample was taken in, where a case ran in several (a graded run's forks); absent: one. */
  sampleProcesses?: number[];
  /** Calls per measured sample (sample-limits.ts callsPerSample): samplesMs are each sample's time / this. */
  callsPerSample: number;
  observations: Record<string, RawObservation>;
  workPerSample: { amount: number; unit: string };
  sample: SampleUnit;
}

export interface SupervisedRun {
  /** The run's declarations, as given (SuperviseOptions.cases.info), with the lab's notes as the runner computed them. */
  lab: LabInfo;
  /** One entry per case that was checked, in the lab's case order. */
  correctness: CorrectnessEntry[];
  /** Cases measured without failing, by case key. */
  measured: Map<string, MeasuredData>;
  harnessOverheadMs: number | null;
  /** A failure that is not one case's (the lab does not load): the run has no results. */
  fatal: { kind: 'usage' | 'internal'; message: string } | null;
  /** The signal that interrupted the run, if one did. */
  interrupted: NodeJS.Signals | null;
  /** What the supervisor did that a reader should know (restarts, a teardown that was cut short, competing load). */
  notes: string[];
  /** What other processes used while each round's cases were timed, by round (Linux; empty elsewhere). */
  competingCpus: Map<number, RoundLoad>;
}

export interface SuperviseOptions {
  job: Omit<RunJob, 'exclude'>;
  /**
   * The run's cases, computed once in this process from its own load of the lab (run-cases.ts): `info`, the
   * declarations the runner must compute the same, and the definitions the judge checks and measures outputs against.
   */
  cases: RunCases;
  /** Forward the runner's stdout and stderr to this process's (off in tests). */
  forwardOutput?: boolean;
  onProgress?(progress: Extract<RunnerMessage, { type: 'progress' }>): void;
  /** Told when something is stopped or restarted, as one line (for the terminal). */
  onEvent?(line: string): void;
  /** Multiplies every announced limit, grace included (tests shorten limits; default 1). */
  limitScale?: number;
  /** Ends the run as SIGTERM would (--watch stops a check this way when it closes). */
  stop?: AbortSignal;
  /**
   * `--trusted-code`: grade even where no OS sandbox can start (an instructor's own code, a machine without user
   * namespaces). Without it a graded job there ends at once: "not sandboxed: not a grade".
   */
  trustedCode?: boolean;
  /** Overrides the run's limits (tests use small ones). */
  limits?: Partial<SandboxLimits>;
}

