/**
 * Where a pool's time goes. Each worker adds the time it spent computing to one shared counter; the pool case reads
 * it around each sample. A pool's efficiency then splits into two factors (src/analysis.ts):
 *
 *   efficiency  = utilisation x speed ratio
 *   utilisation = compute time summed over the workers / (workers x wall time of the sample)
 *                 (what scheduling, hand-offs and idle workers cost)
 *   speed ratio = serial ns per point / the workers' ns per point
 *                 (how fast the cores ran the same code while all of them were busy: the machine, not the pool)
 *
 * The product is exact when every point is computed once: serial time = points x serial ns per point.
 */

/** Names of the two observations each pool case records per sample (cases.ts), read by analysis.ts. */
export const UTILISATION = 'worker utilisation';
export const WORKER_NS_PER_POINT = 'worker ns per point';

/** A counter of compute nanoseconds, shared by the main thread and a pool's workers. */
export type BusyClock = SharedArrayBuffer;

export function createBusyClock(): BusyClock {
  return new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT);
}

/** In a worker: adds the compute time of one task. Atomic, because the workers of a pool add at the same time. */
export function addBusyNs(clock: BusyClock, ns: bigint): void {
  Atomics.add(new BigInt64Array(clock), 0, ns);
}

/** On the main thread, between samples: the compute time added since the last reset, in ns. */
export function readBusyNs(clock: BusyClock): number {
  return Number(Atomics.load(new BigInt64Array(clock), 0));
}

export function resetBusyClock(clock: BusyClock): void {
  Atomics.store(new BigInt64Array(clock), 0, 0n);
}
