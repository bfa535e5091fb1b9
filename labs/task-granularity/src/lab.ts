/**
 * The task-granularity lab: how big must a task be before a pool pays, how should data travel to a worker, and
 * threads or processes? One Monte Carlo run (2^23 points, an exact histogram) split into tasks of 1 Ki to 8 Mi
 * points on a piscina pool of 2 threads and on 2 child processes; a payload of 1, 16 and 64 MiB handed to a worker
 * by structured clone, by transfer and through shared memory; and a shared histogram that races without Atomics.
 */
import { LEARNER_FILES } from './learner-files.ts';
import type { CaseDefinition, LabDefinition } from '@parallel-course/harness/lab-definition.ts';
import { poolCase, processCase, serialCase, tallyCase, type LabOutput } from './cases.ts';
import { exactIntegers } from './comparator.ts';
import { handoffCase, serialPayloadCase } from './handoff-cases.ts';
import type { LabInput } from './inputs.ts';
import { histogramSync } from './monte-carlo.ts';
import { checksum, makePayload, MIB } from './payload.ts';

/** Points per measured run: 2^23, about 63 ms on one core of the reference machine (7.5 ns per point). */
export const POINTS = 1 << 23;
/** Points of each extra check run for the race: 2^21, about 16 ms on one core. */
export const RACE_CHECK_POINTS = 1 << 21;
/** The pool size of the sweep: the headline claim is about 2 workers. */
export const WORKERS = 2;
/**
 * The chunk size of the headline: 8 tasks of about 8 ms each (4 per worker) on the reference VM. In three full runs
 * of 2026-12-02 (17:19-17:21 UTC, reference machine) its median was the fastest pool size in two and within 2% of the
 * fastest in the third, with the workers busy 92-93% of the time in all three. The rule of thumb from those runs
 * (tasks >= 9 x workers x per-task overhead, about 1 ms here) puts 131,072 points at the edge and this size well
 * past it, while 8 tasks still let two cores of unequal speed share the work (a 2-task split cannot).
 */
export const BEST_CHUNK = 1_048_576;

/**
 * Chunk sizes of the sweep, in points: from tasks of ~8 us (8192 of them, overhead-bound) to one task (one worker
 * idle). ceil(POINTS / 3) makes 3 tasks for 2 workers: the load-imbalance case.
 */
export function chunkSizes(quick: boolean, points = POINTS): number[] {
  const full = [1024, 4096, 16_384, 65_536, 262_144, 524_288, BEST_CHUNK, Math.ceil(points / 3), points / 2, points];
  const sizes = quick ? [1024, 16_384, BEST_CHUNK, Math.ceil(points / 3), points] : full;
  return [...new Set([...sizes, BEST_CHUNK])].sort((a, b) => a - b);
}

/**
 * Chunk sizes run on child processes: overhead-bound sizes (for the per-task cost, src/analysis.ts fits a line
 * through those with >= 64 tasks), the headline's size and one beyond it.
 */
export function processChunkSizes(quick: boolean): number[] {
  return quick ? [16_384, BEST_CHUNK] : [4096, 16_384, 65_536, BEST_CHUNK];
}

/** Payload sizes of the data-movement cases, in MiB (binary megabytes). */
export function payloadSizes(quick: boolean): number[] {
  return quick ? [1, 16] : [1, 16, 64];
}

const lab: LabDefinition<LabInput, LabOutput> = {
  name: 'task-granularity',
  title: 'Task granularity: chunk size, hand-off cost, threads and processes',
  summary: 'a Monte Carlo run in chunks of 1 Ki..8 Mi points on 2 threads and 2 processes; clone vs transfer vs shared',
  episode: 'episodes/06-task-granularity.mdx',
  learnerFiles: LEARNER_FILES,
  variants: [
    { name: 'serial', description: 'the work on the main thread, no hand-off (baseline)', source: 'labs/task-granularity/src/monte-carlo.ts, payload.ts' },
    { name: 'pool', description: `a piscina pool of ${WORKERS} threads, tasks of \`chunk\` points`, source: '<impl>/schedule.ts: runInChunks' },
    { name: 'process', description: `${WORKERS} child processes (fork + IPC), tasks of \`chunk\` points`, source: '<impl>/schedule.ts, labs/task-granularity/src/process-pool.ts' },
    { name: 'tally', description: `${WORKERS} threads adding into one shared histogram`, source: '<impl>/tally-worker.ts' },
    { name: 'clone', description: 'payload to a worker by structured clone (postMessage copies)', source: '<impl>/transport.ts' },
    { name: 'transfer', description: 'payload to a worker by transferring its ArrayBuffer, and back', source: '<impl>/transport.ts' },
    { name: 'shared', description: 'payload in a SharedArrayBuffer: only a reference travels', source: '<impl>/transport.ts' },
  ],
  baseline: 'serial',
  headline: { variant: 'pool', params: { chunk: BEST_CHUNK } },
  inputParams: ['payloadMiB'],
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
      measure: { kind: 'monte-carlo', spec: { seed: ctx.seed, points: POINTS } },
    };
  },
  reference(input) {
    return input.kind === 'payload' ? [checksum(input.bytes)] : histogramSync(input.spec);
  },
  comparator: exactIntegers(),
  workPerSample(input) {
    return input.kind === 'payload' ? { amount: input.bytes.length / MIB, unit: 'MiB' } : { amount: input.spec.points, unit: 'points' };
  },
  cases(ctx) {
    const cases: CaseDefinition<LabInput, LabOutput>[] = [serialCase()];
    for (const chunk of chunkSizes(ctx.quick)) cases.push(poolCase(chunk, WORKERS, BEST_CHUNK));
    for (const chunk of processChunkSizes(ctx.quick)) cases.push(processCase(chunk, WORKERS, BEST_CHUNK));
    cases.push(tallyCase(WORKERS));
    for (const mib of payloadSizes(ctx.quick)) {
      cases.push(serialPayloadCase(mib));
      for (const transport of ['clone', 'transfer', 'shared'] as const) cases.push(handoffCase(transport, mib));
    }
    return cases;
  },
  // Loaded when a run is analysed, not when the lab is imported (the chart renderer is a native module).
  async analyse(results) {
    const { analyseGranularity } = await import('./analysis.ts');
    return analyseGranularity(results, POINTS, WORKERS);
  },
  sampling: {
    quick: { warmupIterations: 1, rounds: 3, iterationsPerRound: 2 },
    // 12 samples per case (6 rounds of 2): the 64 MiB clone alone takes 0.3 to 1.5 s per sample on the reference VM.
    full: { warmupIterations: 1, rounds: 6, iterationsPerRound: 2 },
  },
};

export default lab;
