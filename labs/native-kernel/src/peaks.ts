/**
 * This machine's own peaks, measured by the probes in native/probe.cc, recorded as observations of the headline
 * case (after every case has been measured, so the probes never overlap a timed sample).
 */
import type { RawObservation } from '@parallel-course/core';
import type { NativeKernel } from './addon.ts';

export const PEAK_OBSERVATIONS = {
  flops1: 'peak-flops-1-thread',
  bandwidth1: 'peak-bandwidth-1-thread',
  flopsAll: 'peak-flops-all-threads',
  bandwidthAll: 'peak-bandwidth-all-threads',
} as const;

/** FMA probe steps per call: 2^24 steps x 64 accumulators x 2 flop = 2.1 Gflop, about 20-40 ms on a current core. */
const FMA_ITERATIONS = 1 << 24;
/** Triad arrays of 2^21 doubles (16 MiB each, 48 MiB in all): larger than the last-level cache of most CPUs. */
const TRIAD_ELEMENTS = 1 << 21;
const TRIAD_REPEATS = 5;

/** Runs each probe `samples` times on 1 thread and on `threads` threads; values in Gflop/s and GB/s (10^9). */
export function measurePeaks(addon: NativeKernel, threads: number, samples: number): Record<string, RawObservation> {
  const run = (fn: () => number) => Array.from({ length: samples }, () => fn() / 1e9);
  return {
    [PEAK_OBSERVATIONS.flops1]: {
      unit: 'Gflop/s',
      description: `FMA probe (native/probe.cc, -O3 -march=native): independent fused multiply-adds on 1 thread, peak measured with ${addon.fmaVectorWidth()}`,
      samples: run(() => addon.fmaPeak(FMA_ITERATIONS, 1)),
    },
    [PEAK_OBSERVATIONS.bandwidth1]: {
      unit: 'GB/s',
      description: 'STREAM triad probe (native/probe.cc), 3 x 16 MiB, best of 5, 24 bytes per element, 1 thread',
      samples: run(() => addon.triadBandwidth(TRIAD_ELEMENTS, TRIAD_REPEATS, 1)),
    },
    [PEAK_OBSERVATIONS.flopsAll]: {
      unit: 'Gflop/s',
      description: `FMA probe on ${threads} threads, ${addon.fmaVectorWidth()}`,
      samples: run(() => addon.fmaPeak(FMA_ITERATIONS, threads)),
    },
    [PEAK_OBSERVATIONS.bandwidthAll]: {
      unit: 'GB/s',
      description: `STREAM triad probe on ${threads} threads`,
      samples: run(() => addon.triadBandwidth(TRIAD_ELEMENTS, TRIAD_REPEATS, threads)),
    },
  };
}
