/**
 * What the judge measures and what it gives back: one case as the sampling stages see it (JudgedCase), and the samples
 * of a run (JudgedSamples). Types only, shared by the stages (judge-sampler.ts), the clock's corrections
 * (judge-clock.ts) and the graded run's meeting of runners (measure-meeting.ts).
 */

/** One case the judge measures. */
export interface JudgedCase {
  key: string;
  label: string;
  group?: string;
  /** The longest one sample may take before the supervisor ends the runner, in ms. */
  sampleLimitMs: number;
  /** The lab's baseline variant. */
  baseline: boolean;
  /** Its check call's time on the measured input (the runner's), in ms: the calls per sample's guide without a warm-up. */
  checkMs?: number | null;
  /** Cases with the same pair get the same calls per sample where it costs little (a graded case and the solution's copy: equal work, pairedCalls). */
  pair?: string;
  /** Code the learner did not write (the baseline, the solution's copy in a graded run): its checks set what a check costs. */
  trusted: boolean;
  /** Cases with the same key run on the same inputs (CaseInfo.inputKey). */
  inputKey: string;
  /**
   * One discarded sample before each of its rounds (a graded case and the solution's copy of it, alike): their two
   * processes idle while the learner's runs every other case, and neither may start a round colder than it ran.
   */
  rewarm?: boolean;
  /**
   * The processes it is measured in (a graded run's forks, run-cases.ts GRADE_FORKS): each warmed up, then round r
   * in process r mod forks; absent: 1, the one process that has it.
   */
  forks?: number;
}

export interface JudgedSamples {
  /**
   * Per case, each measured sample's time per call (ms), its round, the calls each sample made, and for a case measured
   * in several processes (forks) each sample's process, 0 .. forks - 1.
   */
  samples: Map<string, { samplesMs: number[]; sampleRounds: number[]; callsPerSample: number; sampleProcesses?: number[] }>;
  failed: Map<string, { reason: string; stage: 'warm-up' | 'measure'; sample: number | null }>;
  /** The median round trip of an empty sample, in ms: the harness overhead per sample. */
  roundTripMs: number;
  notes: string[];
}
