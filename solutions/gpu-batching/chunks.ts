/**
 * Splitting work between devices by ceiling division: ceil(total / parts) samples per chunk, so the chunks cover
 * every sample exactly once and only the last one is short.
 */
import type { SampleRange } from '@parallel-course/gpu-batching/impl.ts';

export function chunkRanges(total: number, parts: number): SampleRange[] {
  if (!Number.isInteger(total) || total < 0) throw new RangeError(`total must be a non-negative integer, got ${total}`);
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`parts must be a positive integer, got ${parts}`);
  const size = Math.ceil(total / parts);
  const ranges: SampleRange[] = [];
  for (let start = 0; start < total; start += size) ranges.push({ start, count: Math.min(size, total - start) });
  return ranges;
}
