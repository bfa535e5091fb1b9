/**
 * Splitting work between devices: contiguous ranges of samples, one per device process.
 */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import type { SampleRange } from '@parallel-course/gpu-batching/impl.ts';

export function chunkRanges(total: number, parts: number): SampleRange[] {
  // TODO(learner): return at most `parts` ranges { start, count }, in order, that cover the samples 0 .. total - 1
  // exactly once; every range but the last has the same size, and the last is no larger. For example,
  // chunkRanges(10, 4) is 3, 3, 3 and 1 samples. A total that is not a non-negative integer, or parts that is not a
  // positive integer, is a RangeError.
  return notImplemented(`chunkRanges in exercises/gpu-batching/chunks.ts (split ${total} samples into ${parts} ranges)`);
}
