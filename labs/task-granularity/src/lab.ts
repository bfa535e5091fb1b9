/**
 * The task-granularity lab: how big must a task be before a pool pays, how should data travel to a worker, and
 * threads or processes? One Monte Carlo run (2^22 points per worker, an exact histogram) split into 8192 tasks down
 * to one on a piscina pool of W = P threads and on P child processes, and on pools of 1 and 2 threads (the rule of
 * thumb checked at W = 1, 2 and P); a payload of 1, 16 and 64 MiB handed to a worker by structured clone, by transfer
 * and through shared memory; and a shared histogram that races without Atomics.
 */
import { LEARNER_FILES } from './learner-files.ts';
import { type CaseDefinition, freshSeed, type Headline, type LabContext, type LabDefinition, shortWorkerSweep } from '@parallel-course/harness';
import { poolCase, processCase, serialCase, tallyCase, type LabOutput } from './cases.ts';
import { exactIntegers } from './comparator.ts';
import { handoffCase, serialPayloadCase } from './handoff-cases.ts';
import type { LabInput } from './inputs.ts';
import { histogramSync } from './monte-carlo.ts';
import { Worker } from 'node:worker_threads';
import { checksum, makePayload, MIB } from './payload.ts';
import { calibrate, estimateInputs, estimatePayload, estimatePool, estimateSerial, estimateTally, COURSE_MACHINE_RATES } from './estimates.ts';

/**
 * Points per worker of a measured run: 2^22, about 31 ms on one core of the course machine (7.5 ns per point), so
 * a pool's run stays about that long whatever W is, and each sweep's serial baseline grows with W (W x 31 ms).
 */
const POINTS_PER_WORKER = 1 << 22;
/** Points of each extra check run for the race: 2^21, about 16 ms on one core. */
const RACE_CHECK_POINTS = 1 << 21;
/**
 * The most tasks one run is split into. The overhead-bound side of the curve costs about tasks x the per-task
 * overhead (50 µs here) whatever W is, so 8192 tasks bound it near half a second per sample on any node.
 */
export const MAX_TASKS = 8192;

/** W, the pool size and the process count of the headline: one worker per CPU the job may use (P, or what --cpus forced). */
export function workersFor(ctx: Pick<LabContext, 'availableParallelism'>): number {
  return Math.max(1, ctx.availableParallelism);
}

/**
 * Points per measured run on W workers: 2^22 per worker, so every sweep's runs take about as long and each W has its
 * own serial baseline of the same points (a `points` param: the harness pairs each pool case with the serial case
 * of its points, round by round).
 */
export function pointsFor(workers: number): number {
  return POINTS_PER_WORKER * Math.max(1, workers);
}

/**
 * The chunk size of the headline: 4 tasks per worker. On 2 workers (2^23 points, 8 tasks of about 8 ms) its median
 * was the fastest pool size in two of three full runs of 2026-12-02 and within 2% in the third, workers busy 92-93%;
 * 4 tasks per worker still let cores of unequal speed share the work (1 per worker cannot). It is a rule for every W,
 * checked on 2 CPUs only: a bigger node should confirm it from its own curve.
 */
export function bestChunk(workers: number): number {
  return Math.ceil(pointsFor(workers) / (4 * workers));
}

/**
 * Chunk sizes of the sweep at W = P, in points, from task counts: the overhead-bound side (8192, 2048, 512 and
 * 128 tasks, never more than MAX_TASKS), 16 and 4 tasks per worker (the headline), the load-imbalance case of
 * 1.5 tasks per worker (3 tasks on 2 workers: the last round leaves half the pool idle), one task per worker, and one
 * task (W - 1 workers idle).
 */
export function chunkSizes(quick: boolean, workers: number): number[] {
  const points = pointsFor(workers);
  const tasks = quick
    ? [MAX_TASKS, 512, 4 * workers, Math.ceil(1.5 * workers), 1]
    : [MAX_TASKS, 2048, 512, 128, 16 * workers, 4 * workers, Math.ceil(1.5 * workers), workers, 1];
  const sizes = tasks.filter((t) => t >= 1 && t <= MAX_TASKS).map((t) => Math.ceil(points / t));
  return [...new Set([...sizes, bestChunk(workers)])].sort((a, b) => a - b);
}

/**
 * Chunk sizes of the shorter sweeps at W = 1 and 2 below P, which only check the rule of thumb: two or more
 * overhead-bound sizes for the per-task cost (8192 and 1024 or 512 tasks), then sizes a factor of 2 apart from 256 to
 * 16 tasks (quick: 4 apart), where the rule puts the knee on the course machine (2^22 points per worker at 9 ns
 * per point and about 60 µs per task: tasks of 9·W·o hold about 2^22 x 9 ns / (9 x 60 µs), some 70 tasks per
 * run, whatever W), and 4 tasks per worker (the headline's rule).
 */
export function ruleChunkSizes(quick: boolean, workers: number): number[] {
  const points = pointsFor(workers);
  const tasks = quick ? [MAX_TASKS, 512, 128, 32] : [MAX_TASKS, 1024, 256, 128, 64, 32, 16, 4 * workers];
  return [...new Set(tasks.filter((t) => t >= 1 && t <= MAX_TASKS).map((t) => Math.ceil(points / t)))].sort((a, b) => a - b);
}

/**
 * Chunk sizes run on child processes (at W = P): overhead-bound sizes (for the per-task cost, src/analysis.ts fits a
 * line through those with enough tasks per worker), the headline's size and one beyond it.
 */
export function processChunkSizes(quick: boolean, workers: number): number[] {
  const points = pointsFor(workers);
  const tasks = quick ? [512] : [2048, 512, 128];
  return [...new Set([...tasks.map((t) => Math.ceil(points / t)), bestChunk(workers)])].sort((a, b) => a - b);
}

/** The params of a Monte Carlo case on W workers: its chunk, its points (the input, shared with its baseline) and W. */
export function sweepParams(chunk: number, workers: number): { chunk: number; points: number; workers: number } {
  return { chunk, points: pointsFor(workers), workers };
}

/** Payload sizes of the data-movement cases, in MiB (binary megabytes). */
function payloadSizes(quick: boolean): number[] {
  return quick ? [1, 16] : [1, 16, 64];
}

const EXPECTED_WORKER = new URL('./expected-worker.ts', import.meta.url);

/** The histograms of `inputs` (Monte Carlo ones), split over `workers` threads in turn, each counting its share serially. */
async function freshExpected(inputs: LabInput[], workers: number): Promise<LabOutput[]> {
  const specs = inputs.map((input) => {
    if (input.kind !== 'monte-carlo') throw new TypeError('fresh inputs are Monte Carlo runs');
    return input.spec;
  });
  const n = Math.max(1, Math.min(workers, specs.length));
  const shares = Array.from({ length: n }, (_, w) => specs.filter((_, i) => i % n === w));
  const counted = await Promise.all(
    shares.map(
      (share) =>
        new Promise<number[][]>((resolve, reject) => {
          const worker = new Worker(EXPECTED_WORKER, { workerData: { specs: share } });
          worker.once('message', (histograms: number[][]) => {
            resolve(histograms);
            void worker.terminate();
          });
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`an expected-output worker exited (code ${code}) before it answered`)));
        }),
    ),
  );
  return specs.map((_, i) => counted[i % n]![Math.floor(i / n)]!);
}

/** The points of a Monte Carlo input: the case's `points` param, or the headline's (W = P) for a case without one. */
function pointsOf(param: unknown, ctx: Pick<LabContext, 'availableParallelism'>): number {
  return typeof param === 'number' ? param : pointsFor(workersFor(ctx));
}

const lab: LabDefinition<LabInput, LabOutput> = {
  name: 'task-granularity',
  title: 'Task granularity: chunk size, hand-off cost, threads and processes',
  summary: 'a Monte Carlo run in chunks of 1..8192 tasks on 1, 2 and P threads and P processes; clone vs transfer vs shared',
  episode: 'episodes/06-task-granularity.mdx',
  learnerFiles: LEARNER_FILES,
  variants: [
    { name: 'serial', description: 'the work on the main thread, no hand-off (baseline)', source: 'labs/task-granularity/src/monte-carlo.ts, payload.ts' },
    { name: 'pool', description: 'a piscina pool of `workers` threads (1, 2 and P, one per CPU the job may use), tasks of `chunk` points', source: '<impl>/schedule.ts: runInChunks' },
    { name: 'process', description: 'P child processes (fork + IPC), tasks of `chunk` points', source: '<impl>/schedule.ts, labs/task-granularity/src/process-pool.ts' },
    { name: 'tally', description: 'P threads (at least 2) adding into one shared histogram', source: '<impl>/tally-worker.ts', shipsFailing: 'it races on purpose: fixing the race is the exercise (episode 06, "A race on shared memory")' },
    { name: 'clone', description: 'payload to a worker by structured clone (postMessage copies)', source: '<impl>/transport.ts' },
    { name: 'transfer', description: 'payload to a worker by transferring its ArrayBuffer, and back', source: '<impl>/transport.ts' },
    { name: 'shared', description: 'payload in a SharedArrayBuffer: only a reference travels', source: '<impl>/transport.ts' },
  ],
  baseline: 'serial',
  sweeps: [
    { param: 'chunk', variants: ['pool', 'process'], over: 'baseline', title: 'Speedup over the serial loop, by chunk size' },
    { param: 'workers', variants: ['pool'], over: 'one-worker', title: 'Speedup over one worker, by workers' },
  ],
  // The claim is about the node: the pool at W = P workers, 4 tasks per worker.
  headline: (ctx) => ({ variant: 'pool', params: sweepParams(bestChunk(workersFor(ctx)), workersFor(ctx)) }),
  // The scheduler at the headline's chunk size, and the shared-memory hand-off of 16 MiB (the learner's transport).
  grading: {
    cases: (ctx): Headline[] => [
      { variant: 'pool', params: sweepParams(bestChunk(workersFor(ctx)), workersFor(ctx)) },
      { variant: 'shared', params: { payloadMiB: 16 } },
    ],
    target: 0.9,
    targetText: "at least 0.9 of the solution's throughput: the pool at 4 tasks per worker, and a 16 MiB shared hand-off",
  },
  inputParams: ['payloadMiB', 'points'],
  inputs(params, ctx) {
    const mib = params['payloadMiB'];
    if (typeof mib === 'number') {
      // Check on small payloads with awkward lengths (a tail shorter than a word); measure on the real size.
      return {
        check: [{ kind: 'payload', bytes: makePayload(ctx.seed + 1, 5) }, { kind: 'payload', bytes: makePayload(ctx.seed + 2, 65_543) }],
        measure: { kind: 'payload', bytes: makePayload(ctx.seed, mib * MIB) },
      };
    }
    // Edge cases, then runs big enough for the race to show: two threads lose updates in most runs of this size,
    // but not all (on a loaded machine the threads may not overlap), so the check gives the race several chances
    // (and the measured run is checked too: the harness checks every input).
    return {
      check: [
        { kind: 'monte-carlo', spec: { seed: ctx.seed + 1, points: 0 } },
        { kind: 'monte-carlo', spec: { seed: ctx.seed + 2, points: 1_003 } },
        ...[3, 4, 5].map((k) => ({ kind: 'monte-carlo' as const, spec: { seed: ctx.seed + k, points: RACE_CHECK_POINTS } })),
      ],
      measure: { kind: 'monte-carlo', spec: { seed: ctx.seed, points: pointsOf(params['points'], ctx) } },
      // Each measured sample counts a stream of its own (the judge's fresh index, revealed only with its sample),
      // the same number of points: a histogram cached from an earlier sample is never the answer (issue 42: a pool
      // that cached it and did a third of the tasks PASSed at 3.12). expectedAt counts each one in full.
      measureAt: (sample: number) => ({ kind: 'monte-carlo', spec: { seed: freshSeed(ctx.seed, sample), points: pointsOf(params['points'], ctx) } }),
    };
  },
  // Every fresh sample's histogram counted exactly, up front, on every core the run has (a statistical check would
  // pass a guess scaled up from part of the tasks, and the answer has no part that is cheaper to check).
  expectedAt: (inputs, ctx) => freshExpected(inputs, ctx.availableParallelism),
  expected(input) {
    return input.kind === 'payload' ? [checksum(input.bytes)] : histogramSync(input.spec);
  },
  comparator: exactIntegers(),
  workPerSample(input) {
    return input.kind === 'payload' ? { amount: input.bytes.length / MIB, unit: 'MiB' } : { amount: input.spec.points, unit: 'points' };
  },
  cases(ctx) {
    const p = workersFor(ctx);
    // Each case with its estimate for the run's plan (src/estimates.ts). Every sweep has its own serial baseline of
    // its points; its pool is charged to one of its chunk sizes (the headline's at W = P, the first elsewhere).
    // The pools whose chunk-size curve is measured, W = 1, 2 and P: the rule of thumb 9·W·o is derived at each and
    // checked against that W's own curve (analysis.ts).
    const cases: CaseDefinition<LabInput, LabOutput>[] = [];
    for (const workers of shortWorkerSweep(p)) {
      const points = pointsFor(workers);
      cases.push({ ...serialCase(points), estimate: (c, rates) => estimateSerial(points, rates, workersFor(c)) });
    }
    for (const workers of shortWorkerSweep(p)) {
      const points = pointsFor(workers);
      const sizes = workers === p ? chunkSizes(ctx.quick, workers) : ruleChunkSizes(ctx.quick, workers);
      const chargedTo = workers === p ? bestChunk(workers) : sizes[0];
      for (const chunk of sizes) {
        cases.push({
          // Start-up and memory of the pool are recorded on the headline's case (W = P) only.
          ...poolCase(chunk, workers, points, workers === p ? bestChunk(workers) : null),
          estimate: (c, rates) => estimatePool('threads', points, chunk, workers, chunk === chargedTo, c, rates),
          // One task (W - 1 workers idle) takes the serial time: on a big node a run short of time leaves it out.
          ...(chunk >= points ? { optional: true } : {}),
        });
      }
    }
    const points = pointsFor(p);
    const best = bestChunk(p);
    for (const chunk of processChunkSizes(ctx.quick, p)) {
      cases.push({ ...processCase(chunk, p, points, best), estimate: (c, rates) => estimatePool('processes', points, chunk, p, chunk === best, c, rates) });
    }
    // The race needs two threads at least: one thread never races with itself.
    const racers = Math.max(2, p);
    cases.push({ ...tallyCase(racers, points), estimate: (c, rates) => estimateTally(points, racers, c, rates) });
    for (const mib of payloadSizes(ctx.quick)) {
      cases.push({ ...serialPayloadCase(mib), estimate: (_c, rates) => estimatePayload(null, mib, rates) });
      for (const transport of ['clone', 'transfer', 'shared'] as const) {
        cases.push({ ...handoffCase(transport, mib), estimate: (_c, rates) => estimatePayload(transport, mib, rates) });
      }
    }
    return cases;
  },
  // Loaded when a run is analysed, not when the lab is imported (the chart renderer is a native module).
  async labAnalysis(results) {
    const { granularityAnalysis } = await import('./analysis.ts');
    // A run from before the sweeps carried points and workers in their params: 2^22 per worker at least 2, on P.
    return granularityAnalysis(results, { points: POINTS_PER_WORKER * Math.max(2, results.cpus.p), workers: results.cpus.p });
  },
  // Quick: 6 rounds of 2, as a full run (its sweep is what is smaller). With 3 rounds the headline's interval, which
  // resamples whole rounds (10 distinct resamples of 3), did not exclude 1 in any of 3 quick runs on a busy 2-CPU
  // machine (issue 44); about 35 s on the course machine, within the quick budget. Full: 12 samples per case (6 rounds
  // of 2): the 64 MiB clone alone takes 0.3 to 1.5 s per sample on the course machine.
  sampling: { quick: { warmupSamples: 1, rounds: 6, samplesPerRound: 2 }, full: { warmupSamples: 1, rounds: 6, samplesPerRound: 2 } },
  // The run's plan (the harness's plan.ts): a Monte Carlo point and a checksummed MiB timed here.
  planning: {
    calibrate,
    courseMachine: COURSE_MACHINE_RATES,
    inputsMs: (params, ctx, rates) => {
      const mib = params['payloadMiB'];
      return estimateInputs(typeof mib === 'number' ? mib : undefined, pointsOf(params['points'], ctx), rates);
    },
  },
};

export default lab;
