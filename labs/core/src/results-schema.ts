/**
 * The one schema of `results.json`: the ground floor of the core, importing nothing but zod. Every place that writes
 * or reads a results file validates it here: the harness before writing, the reporters, the site's results viewer and
 * the instructor's tools. Reading a file (parse the JSON, upgrade an older version, then validate) is read-results.ts.
 *
 * Units: every time is in milliseconds unless a field name says otherwise.
 * Bump SCHEMA_VERSION when a field changes meaning; readers reject versions they do not know.
 */
import { z } from 'zod';

/**
 * 2: samples keep their round (`sampleRounds`) and the order they were taken in; a failed case says where it failed
 * (`failedAt`), also after the check; `cpus` records P and what set it, `topology` the cores, SMT, sockets and caches.
 * 3: the file says what its numbers mean instead of leaving readers to guess: the lab's `baseline` and declared
 * `sweeps`; each case's `sample` (what one sample is: 20000 calls, 1 request...); each speedup's baseline case
 * (`baseline` + `baselineParams`); the case and the speedup an efficiency and Karp-Flatt come from (`efficiencyOver`,
 * `efficiencySpeedup`). The cgroup quota is recorded once, in `cpus.quota`. Version 2 files load through one
 * upgrade step (upgrade.ts).
 * 4: a graded run's fingerprint of the course's solution is `solutionFingerprint` (was `referenceSolution`: "reference"
 * now names only the committed reference runs). Version 3 files load through the next upgrade step.
 * Within version 4, a graded run's copies of the solution's cases carry params `impl: 'solution'`; files written
 * before carry `impl: 'reference'`, which grade.ts `isSolutionCopy` reads as the same (params are free-form here, and
 * they seed the recomputed intervals, so they are read as recorded, not upgraded).
 * 5: a case's samples may come from several processes (a graded run's forks), each sample's in `sampleProcesses`, and
 * a grade entry's interval may resample them (`pairing: 'processes'`). A version 4 reader would drop the field (the
 * schema strips unknown keys) and read several processes' samples as one process's, or stop at the unknown pairing
 * with a message that does not say why: the version tells it to update instead. Version 4 files load through a step
 * that changes nothing (every sample of a version 4 file came from one process a side: the field's absence).
 */
export const SCHEMA_VERSION = 5;

/**
 * Caps on what a results file controls, so every reader's work is bounded (issue 25: a 36 KB file asking for 10^9
 * resamples hung validate, class and the viewer). Each is far above what any lab writes: runs use 10,000 resamples,
 * at most 60 samples and 84 cases; the largest committed run costs 5 x 10^7 resample draws.
 */
export const MAX_BOOTSTRAP_RESAMPLES = 100_000;
export const MAX_SAMPLES_PER_CASE = 100_000;
export const MAX_CASES = 2_000;
/** bootstrapResamples x all samples: a few seconds of recomputation at most. */
export const MAX_BOOTSTRAP_WORK = 2e8;
/** The largest process index a sample may carry (`sampleProcesses`): a graded run uses 5 processes a side (forks). */
export const MAX_PROCESS_INDEX = 999;

/** Parameters of one case of a lab's sweep, e.g. `{ workers: 2 }` or `{ size: 4096 }`. */
export const paramsSchema = z.record(z.string().min(1).max(64), z.union([z.number(), z.string().max(200)]));
export type Params = z.infer<typeof paramsSchema>;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const nonNegative = finite.refine((v) => v >= 0, 'must be >= 0');
const interval = z.tuple([finite, finite]).refine(([low, high]) => low <= high, 'interval low must be <= high');

/**
 * Where a run in the learner's browser ran (site/src/browser-lab/): the browser's own facts, since it has no Node,
 * no /proc and no hostname. The Node fields of `environment` then say "browser" (see the runner's environment.ts).
 */
export const browserEnvironmentSchema = z.object({
  userAgent: z.string().max(1000),
  /** navigator.hardwareConcurrency: the logical CPUs the browser reports (it may report fewer than the machine has). */
  hardwareConcurrency: z.number().int().nonnegative(),
  /** True when the page was cross-origin isolated (COOP/COEP): SharedArrayBuffer, WebAssembly threads, a finer timer. */
  crossOriginIsolated: z.boolean(),
  /** The smallest step of performance.now() measured at the start of the run, in ms. */
  timerResolutionMs: z.number().positive(),
  /** The time each sample was sized to reach (the resolution under 1 % of it), in ms. */
  sampleTargetMs: z.number().positive(),
  /** The WebGPU adapter's info, or null when the browser has none (the reason is in `webgpuUnavailable`). */
  webgpu: z.object({ vendor: z.string().max(200), architecture: z.string().max(200), device: z.string().max(200), description: z.string().max(500), emulated: z.boolean() }).nullable(),
  webgpuUnavailable: z.string().max(500).nullable(),
});
export type BrowserEnvironment = z.infer<typeof browserEnvironmentSchema>;

export const environmentSchema = z.object({
  node: z.string().max(100),
  v8: z.string().max(100),
  uv: z.string().max(100),
  platform: z.string().max(50),
  arch: z.string().max(50),
  osRelease: z.string().max(300),
  cpuModel: z.string().max(300),
  cpuCount: z.number().int().nonnegative(),
  availableParallelism: z.number().int().positive(),
  totalMemoryBytes: nonNegative,
  /** The CPU affinity list from /proc/self/status (`Cpus_allowed_list`), or null where not available. */
  cpuAffinity: z.string().max(10_000).nullable(),
  uvThreadpoolSize: z.string().max(20).nullable(),
  slurm: z.record(z.string().max(100), z.string().max(2000)).refine((r) => Object.keys(r).length <= 200, 'at most 200 entries'),
  git: z.object({ commit: z.string().max(100).nullable(), dirty: z.boolean().nullable() }),
  gpus: z.array(z.object({ name: z.string().max(300), memoryMiB: z.number().nullable() })).max(256),
  /** WebGPU adapters Dawn can find (webgpu-adapters.ts): emulated true = a GPU emulated on the CPU, null = unknown. */
  webgpuAdapters: z
    .array(z.object({ backend: z.enum(['vulkan', 'metal', 'd3d12']), vendor: z.string().max(200), driver: z.string().max(200), emulated: z.boolean().nullable(), source: z.string().max(400) }))
    .max(64)
    .optional(),
  hostname: z.string().max(300),
  /** 1, 5 and 15 minute load averages when the run started: above the CPU count, others were using the machine. */
  loadAverage: z.tuple([nonNegative, nonNegative, nonNegative]).optional(),
  /** Present only for a run in a browser (`runtime: "browser"`). */
  browser: browserEnvironmentSchema.optional(),
});
export type Environment = z.infer<typeof environmentSchema>;

export const cpusSchema = z.object({
  p: z.number().int().positive(),
  /** 'hardware-concurrency': a browser run, whose only count is navigator.hardwareConcurrency. */
  limit: z.enum(['affinity', 'cgroup-quota', 'hardware-concurrency']),
  available: z.number().int().positive(),
  forced: z.boolean(),
  affinity: z.number().int().positive(),
  quota: z.number().positive().nullable(),
  nodeReports: z.number().int().positive(),
});

/** The job's CPUs as cores, SMT siblings, sockets, NUMA nodes and caches (topology.ts); null fields: unknown here. */
export const topologySchema = z.object({
  logicalCpus: z.number().int().nonnegative(),
  physicalCores: z.number().int().positive().nullable(),
  threadsPerCore: z.number().int().positive().nullable(),
  sockets: z.number().int().positive().nullable(),
  numaNodes: z.number().int().nonnegative().nullable(),
  coresPerSocket: z.number().int().positive().nullable(),
  caches: z.array(z.object({ level: z.number().int().positive(), type: z.string().max(40), sizeKiB: z.number().positive(), sharedByCpus: z.number().int().positive() })).max(16),
});

/** What one sample is: itemsPerSample repetitions of one item (see caseResultSchema.sample). */
export const sampleSchema = z.object({ item: z.string().min(1).max(40), itemsPerSample: z.number().positive() });
export type SampleUnit = z.infer<typeof sampleSchema>;

export const sampleSummarySchema = z.object({
  n: z.number().int().positive(),
  median: nonNegative,
  ci95: interval,
  mean: nonNegative,
  sd: nonNegative,
  mad: nonNegative,
  iqr: nonNegative,
  min: nonNegative,
  max: nonNegative,
  /** sd / mean (unitless), kept for reference: one slow sample can inflate it, so it no longer decides `noisy`. */
  cv: nonNegative,
  /** Robust coefficient of variation, 1.4826 * mad / median (unitless, 0.1 = 10 %): the spread `noisy` is judged by. */
  robustCv: nonNegative,
  /** robustCv above NOISY_ROBUST_CV (statistics/summary.ts: 0.1): the samples vary more than a quiet machine's do. */
  noisy: z.boolean(),
  outliers: z.object({
    lowSevere: z.number().int().nonnegative(),
    lowMild: z.number().int().nonnegative(),
    highMild: z.number().int().nonnegative(),
    highSevere: z.number().int().nonnegative(),
  }),
});
export type SampleSummary = z.infer<typeof sampleSummarySchema>;

/** A named set of extra observations a lab records while a case is measured (latency probes, loop delay...). */
export const observationSchema = z.object({
  unit: z.string().max(20),
  description: z.string().max(500),
  samples: z.array(nonNegative).max(1_000_000),
  p50: nonNegative.nullable(),
  p99: nonNegative.nullable(),
  max: nonNegative.nullable(),
});
export type Observation = z.infer<typeof observationSchema>;

export const caseResultSchema = z.object({
  variant: z.string().min(1).max(100),
  params: paramsSchema,
  /** The case's worker (thread or process) count, where it has one: efficiency and the Amdahl fit use it. */
  workers: z.number().int().positive().optional(),
  /**
   * Time per sample (one call of the measured function), in ms, in the order taken. A sample of several calls
   * (`callsPerSample`) records its time divided by its calls.
   */
  samplesMs: z.array(nonNegative).min(1).max(MAX_SAMPLES_PER_CASE),
  /**
   * The round (0-based) each sample was taken in, same length as samplesMs, numbered across the run. A round measures
   * every case of one measure group back to back, so cases with the same rounds are paired round by round; cases of
   * different groups never share a round.
   */
  sampleRounds: z.array(z.number().int().nonnegative()).min(1).max(MAX_SAMPLES_PER_CASE),
  /**
   * The process (0-based) each sample was taken in, same length as samplesMs: a graded run measures each side of a
   * graded case in several fresh processes (forks), process i of the learner's case and process i of the solution's
   * copy in the same rounds, so the grade's interval resamples pairs of processes (statistics/processes.ts). Absent:
   * every sample came from one process (plain runs, files written before forks).
   */
  sampleProcesses: z.array(z.number().int().nonnegative().max(MAX_PROCESS_INDEX)).min(1).max(MAX_SAMPLES_PER_CASE).optional(),
  /**
   * How many calls each measured sample made back to back, each on an input of its own, timed as one by the harness
   * (a fast case's: the harness's round trip then stays under 1% of a sample). Absent: one (files written before it
   * existed, browser files); every entry of samplesMs is the sample's time / this.
   */
  callsPerSample: z.number().int().positive().max(1_000_000).optional(),
  /** How many units of work one sample does (requests, elements...), to turn times into throughput. */
  workPerSample: z.object({ amount: z.number().positive(), unit: z.string().max(40) }),
  /**
   * What one sample is, as the lab declares it (LabDefinition.sampleItems): `itemsPerSample` repetitions of one `item`
   * ("call", "request", "batch"; "sample" with 1 when a sample is the unit itself). A time per item is the sample's time
   * divided by itemsPerSample: readers derive per-call times from this, never from a page author's memory.
   */
  sample: sampleSchema,
  summary: sampleSummarySchema,
  observations: z.record(z.string().max(100), observationSchema).refine((r) => Object.keys(r).length <= 100, 'at most 100 observations'),
  /** Set when the case uses more workers than `availableParallelism`. */
  oversubscribed: z.boolean(),
}).refine((c) => c.sampleProcesses === undefined || c.sampleProcesses.length === c.samplesMs.length, {
  message: 'sampleProcesses must have one process index per sample (the same length as samplesMs); the file was edited or cut short: re-run the lab',
  path: ['sampleProcesses'],
});
export type CaseResult = z.infer<typeof caseResultSchema>;

export const correctnessSchema = z.object({
  variant: z.string().min(1).max(100),
  params: paramsSchema,
  passed: z.boolean(),
  comparator: z.string().max(200),
  /** Why it failed: a mismatch, an error, or "not implemented: ...". Null when it passed. */
  reason: z.string().max(2000).nullable(),
  notImplemented: z.boolean(),
  firstMismatch: z
    .object({ index: z.union([z.number().int(), z.string()]), expected: z.string().max(500), actual: z.string().max(500) })
    .nullable(),
  maxAbsError: nonNegative.nullable(),
  maxRelError: nonNegative.nullable(),
  inputsChecked: z.number().int().nonnegative(),
  /**
   * Where a failed case failed: its set-up, the check, warm-up, measuring (then `sample` is the 0-based measured
   * sample whose output was wrong, when that was the reason) or teardown. Null when it passed.
   */
  failedAt: z
    .object({
      stage: z.enum(['setup', 'check', 'warm-up', 'measure', 'teardown']),
      sample: z.number().int().nonnegative().nullable(),
    })
    .nullable(),
});
export type CorrectnessEntry = z.infer<typeof correctnessSchema>;

/** A case by name: its variant and params. */
export const caseRefSchema = z.object({ variant: z.string().min(1).max(100), params: paramsSchema });

export const speedupSchema = z.object({
  variant: z.string().min(1).max(100),
  /** The baseline case this speedup is over: the variant `baseline` with `baselineParams`. */
  baseline: z.string().min(1).max(100),
  baselineParams: paramsSchema,
  params: paramsSchema,
  /** median(baseline time) / median(variant time): above 1 means the variant is faster. */
  speedup: z.number().positive(),
  /** 95 % interval of the speedup; how it was resampled is in `pairing`. */
  ci95: interval,
  /**
   * 'rounds': the baseline and the variant were measured in the same rounds, and the interval resamples rounds (then
   * the samples within them) so that drift between rounds cancels in the ratio (statistics/rounds.ts);
   * 'independent': measured in different groups (or without round indices), each case resampled on its own.
   */
  pairing: z.enum(['rounds', 'independent']),
  baselineMedianMs: nonNegative,
  variantMedianMs: nonNegative,
  /** The case's worker (thread or process) count as its lab declares it (CaseDefinition.workers), where it has one. */
  workers: z.number().int().positive().optional(),
  /**
   * Parallel efficiency, where the case has a worker count: speedup / workers, where the speedup is over the same
   * variant on one worker when that case was measured (`efficiencyBasis: 'one-worker'`), else over the baseline.
   */
  efficiency: z.number().positive().optional(),
  /** 95 % interval of the efficiency: the interval of that speedup divided by workers. */
  efficiencyCi95: interval.optional(),
  efficiencyBasis: z.enum(['one-worker', 'baseline']).optional(),
  /** How the efficiency's interval was resampled (see `pairing`); 'rounds' for the one-worker case itself. */
  efficiencyPairing: z.enum(['rounds', 'independent']).optional(),
  /** The case the efficiency's speedup is over: the same variant on one worker, or the baseline case. */
  efficiencyOver: caseRefSchema.optional(),
  /** The speedup efficiency and Karp-Flatt are computed from: median(efficiencyOver) / median(this case). */
  efficiencySpeedup: z.number().positive().optional(),
  /** Karp-Flatt experimentally determined serial fraction (from efficiencySpeedup), where the case has more than one worker. */
  karpFlatt: z.number().optional(),
  oversubscribed: z.boolean(),
});
export type SpeedupEntry = z.infer<typeof speedupSchema>;

/**
 * A sweep the lab declares (LabDefinition.sweeps): the param it varies and the variants it varies it for. Readers draw
 * each as curves over that param, one curve per variant and setting of its other params, each point's y the speedup
 * `over` names: 'baseline', the entry's speedup over its baseline case (baseline + baselineParams); 'one-worker',
 * its efficiencySpeedup over efficiencyOver (the same variant on one worker).
 */
export const sweepSchema = z.object({
  param: z.string().min(1).max(64),
  variants: z.array(z.string().min(1).max(100)).min(1).max(50),
  over: z.enum(['baseline', 'one-worker']),
  title: z.string().min(1).max(200),
});
export type Sweep = z.infer<typeof sweepSchema>;

export const amdahlFitSchema = z.object({
  variant: z.string(),
  /**
   * The param that holds the worker count in the swept cases (e.g. `workers`, `threads`); `workers` when no param does.
   * The fit's x is always the cases' declared worker count (CaseDefinition.workers).
   */
  param: z.string(),
  /** The variant's other params the fit holds fixed (e.g. a chunk size), when it has any. */
  params: paramsSchema.optional(),
  serialFraction: z.number().min(0).max(1),
  /** The largest speedup the fit allows with infinitely many workers: 1 / serialFraction. */
  maxSpeedup: z.number().positive().nullable(),
  /** Root-mean-square error of the fit in speedup units. */
  rmse: nonNegative,
  points: z.number().int().nonnegative(),
});
export type AmdahlFit = z.infer<typeof amdahlFitSchema>;

/** `--grade`: the learner's graded cases against the solution's, from one run (grade.ts). */
export const gradeSchema = z.object({
  /** The ratio each graded case must reach: median(solution time) / median(learner time). */
  target: z.number().positive(),
  targetText: z.string().max(300),
  entries: z
    .array(
      z.object({
        variant: z.string().min(1).max(100),
        params: paramsSchema,
        ratio: z.number().positive().nullable(),
        ci95: interval.nullable(),
        /**
         * How the interval was resampled: 'processes' when both sides ran in at least 2 paired processes (forks:
         * pairs of processes, then rounds, then samples, statistics/processes.ts); else as a speedup's `pairing`.
         */
        pairing: z.enum(['processes', 'rounds', 'independent']).nullable(),
        passed: z.boolean(),
        /** The interval straddles the target: a rerun could give the other verdict. */
        uncertain: z.boolean(),
        /** Why there is no ratio, when there is none. */
        reason: z.string().max(500).nullable(),
        /** An optional exercise's case (present only when true). */
        optional: z.literal(true).optional(),
        /** Optional and not attempted: the check said "not implemented"; left out of the verdict (only when true). */
        notAttempted: z.literal(true).optional(),
      }),
    )
    .max(100),
  passed: z.boolean(),
  /** A graded case used more workers than the CPUs the job may use. */
  oversubscribed: z.boolean(),
});
export type Grade = z.infer<typeof gradeSchema>;

export const resultsSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  lab: z.string().regex(/^[a-z0-9-]+$/),
  /** Where the run ran: absent or 'node' for the harness, 'browser' for an episode's in-page lab (environment.browser). */
  runtime: z.enum(['node', 'browser']).optional(),
  title: z.string().max(200),
  impl: z.enum(['exercise', 'solution']),
  quick: z.boolean(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  command: z.string().max(2000),
  /** The lab's baseline variant (LabDefinition.baseline): every speedup is over one of its cases. */
  baseline: z.string().min(1).max(100),
  /** The sweeps the lab declares, so readers chart each over its own param instead of guessing from the params. */
  sweeps: z.array(sweepSchema).max(20),
  /** Seed of the input generator and of the bootstrap, so every summary can be recomputed exactly. */
  seed: z.number().int(),
  bootstrapResamples: z.number().int().positive().max(MAX_BOOTSTRAP_RESAMPLES),
  /**
   * The sampling plan the run measured with (the harness's; absent in a browser page's file and in files before it
   * was recorded): every measured case has `rounds` rounds of `samplesPerRound` samples, which validate checks. A
   * graded file must record it.
   */
  sampling: z
    .object({
      warmupSamples: z.number().int().nonnegative().max(MAX_SAMPLES_PER_CASE),
      rounds: z.number().int().positive().max(MAX_SAMPLES_PER_CASE),
      samplesPerRound: z.number().int().positive().max(MAX_SAMPLES_PER_CASE),
    })
    .optional(),
  /** Median time of an empty sample under the same harness settings, in ms: the floor under every sample. */
  harnessOverheadMs: nonNegative,
  environment: environmentSchema,
  /**
   * P, the CPUs the sweep planned for, and what set it (cpus.ts): the smaller of the affinity mask and the cgroup
   * quota, or a count forced with --cpus / COURSE_CPUS. `available` is what the job may really use: cases with more
   * workers than that are oversubscribed, whatever was forced.
   */
  cpus: cpusSchema,
  topology: topologySchema,
  correctness: z.array(correctnessSchema).min(1).max(MAX_CASES),
  cases: z.array(caseResultSchema).max(MAX_CASES),
  speedups: z.array(speedupSchema).max(MAX_CASES),
  amdahl: z.array(amdahlFitSchema).max(MAX_CASES),
  headline: speedupSchema.nullable(),
  /** Null for a plain run; `--grade` runs record the grade here. */
  grade: gradeSchema.nullable(),
  /** `--grade` runs: the fingerprint of solutions/<lab> they were measured against (solution-fingerprint.ts). */
  solutionFingerprint: z
    .object({ folder: z.string().max(200), sha256: z.string().regex(/^[0-9a-f]{64}$/), files: z.number().int().nonnegative().max(100_000) })
    .optional(),
  notes: z.array(z.string().max(2000)).max(500),
})
  // What a reader's recomputation costs (validate, class, the viewer, the site build): bounded per file.
  .refine((r) => r.bootstrapResamples * r.cases.reduce((n, c) => n + c.samplesMs.length, 0) <= MAX_BOOTSTRAP_WORK, {
    message: `bootstrapResamples x samples is over ${MAX_BOOTSTRAP_WORK.toExponential()}: more than any lab writes (10,000 x a few thousand); the file cannot be recomputed in bounded time`,
    path: ['bootstrapResamples'],
  });
export type Results = z.infer<typeof resultsSchema>;

