/**
 * The work: a Monte Carlo estimate of pi, made exact and checkable. Point i of a run is a pure function of
 * (seed, i) (a counter-based generator), so any split of the index range into tasks, in any order, on any thread
 * or process, gives the same histogram, and the histogram can be compared integer by integer with the expected one.
 *
 * A point is (x, y) with x, y integers in [0, 2^15). Its squared radius r2 = x^2 + y^2 < 2^31 falls into one of
 * 16 bins of width 2^27: bins 0..7 are equal-area rings inside the quarter circle of radius 2^15 (r2 < 2^30),
 * bins 8..15 the corner outside it. pi ~= 4 * (points in bins 0..7) / points.
 */
// lowbias32 is the core's, from its light entry (rng.ts and its error class, not the whole core): this module loads in
// every worker thread and child process of the lab, whose start-up the lab measures.
import { lowbias32 } from '@parallel-course/core/rng.ts';

/** Number of bins of the histogram of squared radii. */
export const BINS = 16;
/** Bins 0..INSIDE_BINS-1 lie inside the quarter circle. */
const INSIDE_BINS = 8;
/** Bits per coordinate: x and y are integers in [0, 2^15). */
const COORD_BITS = 15;
const COORD_MASK = (1 << COORD_BITS) - 1;
/** r2 >>> BIN_SHIFT is the bin: r2 < 2^31, so 2^31 / 2^27 = 16 bins. */
const BIN_SHIFT = 27;
/** Rounds of the mixer per point: the cost of one point (about 7.5 ns on the course machine). addChunk writes it as a literal 4. */
const ROUNDS_PER_POINT = 4;

/** A run of the estimate: points [0, points) of the stream named by seed. */
export interface MonteCarloSpec {
  seed: number;
  points: number;
}

/** One task: the points [start, end) of the stream named by seed. */
export interface ChunkTask {
  seed: number;
  start: number;
  end: number;
}

/** One task of the `tally` case (tally-worker.ts's default export takes it): a chunk added into a shared histogram. */
export interface TallyTask extends ChunkTask {
  /** BINS counters over a SharedArrayBuffer that every worker of the run sees. */
  counts: Int32Array;
}

export { lowbias32 };

/** The bin of point `index` of the stream `seed`: the hash applied ROUNDS_PER_POINT times, then 15 bits per coordinate. */
export function binOf(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index, 0x9e3779b9)) >>> 0;
  for (let r = 0; r < ROUNDS_PER_POINT; r++) h = lowbias32(h + r);
  const x = h & COORD_MASK;
  const y = (h >>> COORD_BITS) & COORD_MASK;
  return (x * x + y * y) >>> BIN_SHIFT;
}

/**
 * Adds the bins of points [start, end) into `counts` (length BINS); returns counts. The hot loop of every variant:
 * binOf and lowbias32 written out in one loop, in 32-bit integer arithmetic, with the round count as a literal.
 *
 * Why by hand: written as `counts[binOf(seed, i)] += 1`, V8's optimised code for this loop ran 1.7x slower, and how
 * much slower depended on what the thread had run before (after a worker had run many small tasks, its long tasks
 * ran 20-45% slower than the same call on the main thread). That made the pool look less efficient than it is. This
 * form ran at the same speed on the main thread and in workers, whatever ran before (episode 06, "Cold and warm
 * code"). A test checks it against binOf point by point.
 */
export function addChunk(counts: Int32Array | number[], seed: number, start: number, end: number): Int32Array | number[] {
  for (let i = start; i < end; i++) {
    let h = seed ^ Math.imul(i, 0x9e3779b9);
    for (let r = 0; r < 4; r++) {
      // lowbias32(h + r); `| 0` keeps every step in int32, which has the same low 32 bits as binOf's `>>> 0`.
      let x = (h + r) | 0;
      x ^= x >>> 16;
      x = Math.imul(x, 0x7feb352d);
      x ^= x >>> 15;
      x = Math.imul(x, 0x846ca68b);
      x ^= x >>> 16;
      h = x;
    }
    const px = h & 0x7fff; // COORD_MASK
    const py = (h >>> 15) & 0x7fff; // >>> COORD_BITS
    counts[(px * px + py * py) >>> 27]! += 1; // >>> BIN_SHIFT
  }
  return counts;
}

/** The histogram of one task's points, as a plain array (cheap to clone across threads and processes). */
export function countChunk(task: ChunkTask): number[] {
  const counts = new Int32Array(BINS);
  addChunk(counts, task.seed, task.start, task.end);
  return Array.from(counts);
}

/** Adds histogram `b` into `a` in place and returns `a`. */
export function mergeInto(a: number[], b: ArrayLike<number>): number[] {
  if (b.length !== a.length) throw new RangeError(`cannot merge a histogram of ${b.length} bins into one of ${a.length}`);
  for (let i = 0; i < a.length; i++) a[i] = (a[i] as number) + (b[i] as number);
  return a;
}

/** The expected histogram: the whole run on this thread, in one loop. */
export function histogramSync(spec: MonteCarloSpec): number[] {
  return countChunk({ seed: spec.seed, start: 0, end: spec.points });
}

/** pi estimated from a histogram: 4 * inside / total. */
export function estimatePi(histogram: ArrayLike<number>): number {
  let inside = 0;
  let total = 0;
  for (let i = 0; i < histogram.length; i++) {
    total += histogram[i] as number;
    if (i < INSIDE_BINS) inside += histogram[i] as number;
  }
  return total === 0 ? Number.NaN : (4 * inside) / total;
}
