/**
 * Splitting work between devices by ceiling division: ceil(total / parts) samples per chunk.
 */
import { notImplemented } from '@parallel-course/harness/lab-definition.ts';
import type { SampleRange } from '@parallel-course/gpu-batching/impl.ts';

export function chunkRanges(total: number, parts: number): SampleRange[] {
  // TODO(learner): size = Math.ceil(total / parts); return { start, count } for start = 0, size, 2 x size ... below
  // total, where count = Math.min(size, total - start). Check: chunkRanges(10, 4) is 3, 3, 3, 1 samples.
  return notImplemented(`chunkRanges in exercises/gpu-batching/chunks.ts (split ${total} samples into ${parts} ranges)`);
}
