/**
 * Frame-gap arithmetic for the event-loop demo. A browser paints at most once per frame (about 16.7 ms at 60 Hz);
 * the times its requestAnimationFrame callbacks ran (ms) show when frames happened. A long gap between two of them is time in which
 * nothing could be drawn or typed: the main thread was busy.
 */

/** The longest interval between consecutive timestamps, in the timestamps' unit (ms). 0 for fewer than two. */
export function longestGap(timestamps: readonly number[]): number {
  let longest = 0;
  for (let i = 1; i < timestamps.length; i++) {
    const gap = (timestamps[i] as number) - (timestamps[i - 1] as number);
    if (gap > longest) longest = gap;
  }
  return longest;
}

/** How many frames a display at `hz` would have drawn in `gapMs` but could not: floor(gap / period) - 1, at least 0. */
export function droppedFrames(gapMs: number, hz = 60): number {
  const period = 1000 / hz;
  return Math.max(0, Math.floor(gapMs / period) - 1);
}
