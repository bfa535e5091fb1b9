/** What an in-page lab declares to the runner (runner.ts): its cases, their expected outputs and its check. */
import type { Params, RawObservation, Sweep } from './core-adapter.ts';

/** The check's verdict on one output, in the shape of the harness's correctness entries. */
export interface CheckVerdict {
  passed: boolean;
  reason: string | null;
  firstMismatch: { index: number | string; expected: string; actual: string } | null;
  maxAbsError: number | null;
  maxRelError: number | null;
}

/** One case, ready to run: `run(reps)` does one sample's work and returns the output the check compares. */
export interface CaseHandle<Output> {
  run(reps: number): Promise<Output>;
  /** Ends what set-up started (workers, memory); called once, also after a failure or Stop. */
  teardown(): void;
  /**
   * The values the last run() observed, by observation name (the case's `observes`): the runner reads them after each
   * timed sample, so calibration and warm-up runs never count.
   */
  observed?(): Record<string, number[]>;
}

export interface BrowserCase<Output> {
  variant: string;
  params: Params;
  /** Cases with the same key share one sample size (repetitions per sample); all cases share one when absent. */
  sizeGroup?: string;
  /** The worker count, where the case has one (efficiency and the Amdahl fit use it). */
  workers?: number;
  /**
   * A case shown failing on purpose (the racy counter): it runs once and its check's verdict goes to the notes, as
   * `<demonstration>: <verdict>`; it is never timed and is not one of the file's checked cases.
   */
  demonstration?: string;
  /** Why the demonstration's check passed (the failure it shows did not happen this time), for its note. */
  demonstrationMissed?(): string;
  /**
   * Observations this case takes inside its own samples (the threaded rung: each worker's compute rate and the
   * hand-off), by name; the values come from its handle's observed() after each timed sample.
   */
  observes?: Record<string, { unit: string; description: string }>;
  /** Why this browser cannot run the case (no SIMD, not isolated...), or null: such a case is listed, never run. */
  unavailable: string | null;
  setup(): Promise<CaseHandle<Output>>;
}

/** Extra observations taken around every sample (the page's own responsiveness, for example). */
export interface SampleObserver {
  name: string;
  unit: string;
  description: string;
  start(): void;
  /** Resolves with the observations of the sample just taken (waits for the last probe in flight). */
  stop(): Promise<number[]>;
}

export interface BrowserLab<Output> {
  /** The harness lab this one mirrors (event-loop, task-granularity, native-kernel, gpu-batching). */
  lab: string;
  title: string;
  baseline: string;
  /** The sweeps its cases form (the results file declares them; the viewer draws each as a curve over its param). */
  sweeps?: Sweep[];
  headline: { variant: string; params: Params };
  /** The unit of one repetition (requests, products...). */
  workUnit: string;
  /**
   * Rounds of a quick and a full run (runner.ts, roundsFor: 5 and 15 when absent): a lab whose headline a quick run
   * on a busy 2-CPU machine cannot resolve in 5 asks for more.
   */
  rounds?: { quick: number; full: number };
  /** Smallest time per sample, in ms, whatever the timer allows (a sample shorter than this is mostly overhead). */
  floorMs?: number;
  comparator: string;
  /**
   * What a correct run of `reps` repetitions of a case with `params` returns: its expected output, computed by the
   * page's own plain implementation.
   */
  expected(reps: number, params: Params): Output;
  check(expected: Output, actual: Output): CheckVerdict;
  cases: BrowserCase<Output>[];
  observers?: SampleObserver[];
  /**
   * A measurement of the machine taken once, after every case's samples (so it never overlaps a timed sample) and
   * before the analysis: its observations are recorded on the headline case, as the Node lab records its peak probes
   * (episode 07's WebAssembly SIMD peak). Not run when the headline case was not timed.
   */
  afterSamples?(signal: AbortSignal): Promise<Record<string, RawObservation>>;
  /** Lines the results file and the page carry (what was off and why, what the cases mean). */
  notes: string[];
  /**
   * The sentences the page shows first, above the chart and the verdicts: the finished run in the quantity the episode
   * teaches (episode 05: the page's responsiveness, inline against the pool, beside the throughput).
   */
  lead?(results: import('./core-adapter.ts').Results): string[];
  /** Lines computed from the finished results (a knee, a label), added to the notes. */
  summarize?(results: import('./core-adapter.ts').Results): string[];
  /** Draws the page's chart on a log axis (times that span orders of magnitude: the batch sweep's). */
  logAxis?: boolean;
  /** 'exercise' when the learner's edited code ran. */
  impl?: 'exercise' | 'solution';
}
