/**
 * The cases of the Monte Carlo sweep: serial on the main thread (the baseline), the learner's scheduler on a pool
 * of threads and on a pool of processes, and the shared-histogram tally (the race).
 */
import { type CaseDefinition, type CaseInstance, importLearnerModule, type LabContext, type LearnerFile } from '@parallel-course/harness';
import { SCHEDULE, TALLY_WORKER } from './learner-files.ts';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RawObservation } from '@parallel-course/core';
import type { LabInput } from './inputs.ts';
import { readBusyNs, resetBusyClock, UTILISATION, WORKER_NS_PER_POINT } from './busy-clock.ts';
import { lease } from './lease.ts';
import { BINS, histogramSync, type MonteCarloSpec } from './monte-carlo.ts';
import { ProcessPool } from './process-pool.ts';
import type { TaskRunner } from './task-runner.ts';
import { leaseThreadPool } from './thread-pool.ts';
import { judgeRaceEvidence, probeRace, type TallyTaskFunction } from './race-probe.ts';

/** What the harness runs: a histogram (16 bins) or, for payloads, [checksum]. */
export type LabOutput = number[];
type Case = CaseDefinition<LabInput, LabOutput>;
type Instance = CaseInstance<LabInput, LabOutput>;

interface ScheduleModule {
  runInChunks(runner: TaskRunner, spec: MonteCarloSpec, chunk: number): Promise<number[]>;
}

/** Imports a learner file of the implementation under test (exercises/<lab> or solutions/<lab>), checking its exports. */
export async function importImpl<T>(ctx: LabContext, learner: LearnerFile): Promise<T> {
  return importLearnerModule<T>(ctx.implDir, learner);
}

function monteCarloOf(input: LabInput): MonteCarloSpec {
  if (input.kind !== 'monte-carlo') throw new TypeError(`this case runs on a Monte Carlo input, got a ${input.kind} input`);
  return input.spec;
}

const CHUNK_WORKER = new URL('./chunk-worker.ts', import.meta.url).href;
const EMPTY_TASK = { seed: 0, start: 0, end: 0 };

function startupObservations(kind: string, startupMs: number[], memoryMiB: number[]): Record<string, RawObservation> {
  return {
    'start-up': {
      unit: 'ms',
      description:
        kind === 'threads'
          ? 'time to start the pool of threads until each has answered a first task (set-up, never in a sample)'
          : 'per child: time from fork() to its first message (set-up, never in a sample)',
      samples: startupMs,
    },
    'memory per worker': {
      unit: 'MiB',
      description: kind === 'threads' ? 'growth of the process RSS per thread started' : 'resident memory (VmRSS) of each child process',
      samples: memoryMiB,
    },
  };
}

/** Where a pool's compute time is read from: the threads' shared clock, or the child processes' replies. */
interface BusySource {
  reset(): void;
  readNs(): number;
}

/**
 * Records, for each sample of a pool case, the two factors of its efficiency (busy-clock.ts): the workers' busy
 * share of the wall time and their ns per point. Samples never overlap, so the source holds one sample's time alone.
 */
function efficiencySplitRecorder(workers: number, busy: BusySource) {
  const utilisation: number[] = [];
  const workerNsPerPoint: number[] = [];
  return {
    async run(spec: MonteCarloSpec, runOnce: () => Promise<number[]>): Promise<number[]> {
      busy.reset();
      const started = performance.now();
      const histogram = await runOnce();
      const wallNs = (performance.now() - started) * 1e6;
      const busyNs = busy.readNs();
      if (spec.points > 0) {
        utilisation.push((100 * busyNs) / (workers * wallNs));
        workerNsPerPoint.push(busyNs / spec.points);
      }
      return histogram;
    },
    reset(): void {
      utilisation.length = 0;
      workerNsPerPoint.length = 0;
    },
    observations(): Record<string, RawObservation> {
      return {
        [UTILISATION]: {
          unit: '%',
          description: 'compute time summed over the workers / (workers x wall time): 100% = no scheduling, hand-off or idle time',
          samples: [...utilisation],
        },
        [WORKER_NS_PER_POINT]: {
          unit: 'ns',
          description: "the workers' compute time per point while the pool ran (compare the serial run's ns per point)",
          samples: [...workerNsPerPoint],
        },
      };
    },
  };
}

/** The baseline of the sweeps on `points` points: the whole run in one loop on the main thread. */
export function serialCase(points: number): Case {
  return {
    variant: 'serial',
    params: { points },
    async setup(): Promise<Instance> {
      return { run: (input) => histogramSync(monteCarloOf(input)), teardown() {} };
    },
  };
}

/** A started pool for the chunk cases: what runInChunks runs on, where its busy time is read, its start-up record. */
interface ChunkPool {
  runner: TaskRunner;
  busy: BusySource;
  startup(): Record<string, RawObservation>;
  release(): Promise<void>;
}

/**
 * The learner's runInChunks on a pool that `start` leases, tasks of `chunk` points, on a run of `points`; the pool's
 * start-up and memory are recorded on the case with chunk `reportStartupAt` (null: on none).
 */
function chunkCase(
  variant: string,
  chunk: number,
  workers: number,
  points: number,
  reportStartupAt: number | null,
  start: () => Promise<ChunkPool>,
): Case {
  return {
    variant,
    params: { chunk, points, workers },
    workers,
    async setup(ctx): Promise<Instance> {
      const impl = await importImpl<ScheduleModule>(ctx, SCHEDULE);
      const pool = await start();
      const split = efficiencySplitRecorder(workers, pool.busy);
      return {
        run: (input) => {
          const spec = monteCarloOf(input);
          return split.run(spec, () => impl.runInChunks(pool.runner, spec, chunk));
        },
        resetObservations: () => split.reset(),
        collectObservations: () => ({
          ...split.observations(),
          // Start-up and memory belong to the pool, not to a chunk size: recorded once, on the headline's case.
          ...(chunk === reportStartupAt ? pool.startup() : {}),
        }),
        teardown: () => pool.release(),
      };
    },
  };
}

/** The learner's runInChunks on a piscina pool of `workers` threads (chunkCase). */
export function poolCase(chunk: number, workers: number, points: number, reportStartupAt: number | null): Case {
  return chunkCase('pool', chunk, workers, points, reportStartupAt, async () => {
    const leased = await leaseThreadPool(CHUNK_WORKER, workers, EMPTY_TASK);
    const threads = leased.value;
    return {
      runner: threads.pool,
      busy: { reset: () => resetBusyClock(threads.busyClock), readNs: () => readBusyNs(threads.busyClock) },
      startup: () => startupObservations('threads', [threads.startupMs], [threads.memoryPerWorkerMiB]),
      release: () => leased.release(),
    };
  });
}

/** The learner's runInChunks on the lab's pool of `workers` child processes (chunkCase). */
export function processCase(chunk: number, workers: number, points: number, reportStartupAt: number): Case {
  return chunkCase('process', chunk, workers, points, reportStartupAt, async () => {
    const leased = await lease(`processes:${workers}`, () => ProcessPool.start({ workers }), (p) => p.close());
    const pool = leased.value;
    const memory = pool.memoryMiB(); // once, when the pool is leased
    return {
      runner: pool,
      busy: { reset: () => pool.resetBusyNs(), readNs: () => pool.busyNs() },
      startup: () => startupObservations('processes', [...pool.startupMs], memory),
      release: () => leased.release(),
    };
  });
}

interface TallyModule {
  default: unknown;
}

/**
 * The race: `workers` threads add their share of the points into one histogram in a SharedArrayBuffer, with the
 * learner's tally-worker.ts. Without Atomics, increments are lost and the totals do not match.
 */
export function tallyCase(workers: number, points: number): Case {
  return {
    variant: 'tally',
    params: { points },
    workers,
    judgeProperty: judgeRaceEvidence,
    async setup(ctx): Promise<Instance> {
      const impl = await importImpl<TallyModule>(ctx, TALLY_WORKER); // fails early, with its own message, if it does not load
      const filename = pathToFileURL(path.join(ctx.implDir, 'tally-worker.ts')).href;
      const warm = { ...EMPTY_TASK, counts: new Int32Array(new SharedArrayBuffer(BINS * 4)) };
      const pool = await leaseThreadPool(filename, workers, warm);
      return {
        async run(input) {
          const spec = monteCarloOf(input);
          const counts = new Int32Array(new SharedArrayBuffer(BINS * Int32Array.BYTES_PER_ELEMENT));
          const share = Math.ceil(spec.points / workers);
          const slices = Array.from({ length: workers }, (_, w) => ({
            seed: spec.seed,
            start: Math.min(spec.points, w * share),
            end: Math.min(spec.points, (w + 1) * share),
            counts,
          }));
          await Promise.all(slices.map((slice) => pool.value.pool.run(slice)));
          return Array.from(counts);
        },
        // A race the check's runs can miss on a few CPUs (race-probe.ts), after its totals passed: the probe's counts,
        // judged by judgeProperty in the judge's process.
        propertyEvidence: () => probeRace(impl.default as TallyTaskFunction, ctx.seed + 7),
        teardown: () => pool.release(),
      };
    },
  };
}
