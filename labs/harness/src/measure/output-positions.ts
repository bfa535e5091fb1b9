/**
 * A large output's positions, in the judge's process (issue 42): an output too large to send each sample (a typed
 * array over OUTPUT_BYTES_BOUND) is checked at positions the judge draws after the answer has arrived, against the
 * lab's `expectedAtPositions`, by its comparator. How many positions keep a wrong output's miss within the bound, the
 * draw, and the comparison; the measured samples (judge-outputs.ts) and the check stage (check-judge.ts) use them
 * alike, and then often fetch the output whole (whole-output.ts).
 * Input: a case's checked samples, an output's length, the values the runner showed. Output: positions to ask for, a
 * Comparison.
 */
import { randomFillSync } from 'node:crypto';
import type { Comparison, LabDefinition } from '../lab-definition.ts';

/**
 * The position check's promise: a kernel that leaves at least this fraction of its output wrong (computes at most
 * 1 - WRONG_FRACTION of it: a skipped row of a 1024 x 1024 product is 0.1%) is caught with probability at least
 * 1 - MISS_PROBABILITY over a case's samples.
 */
export const WRONG_FRACTION = 0.001;
export const MISS_PROBABILITY = 1e-6;
/** Positions per sample at least (a case of very many samples still reads a spread of its output each time). */
export const MIN_POSITIONS = 64;

/**
 * Positions to check per sample of a case that gets `samples` checked samples: P uniform positions miss a wrong
 * fraction w of the output with probability (1 - w)^P per sample, (1 - w)^(P·S) over S samples, so
 * P = ceil(ln(MISS_PROBABILITY) / (S ln(1 - WRONG_FRACTION))) keeps the miss at most MISS_PROBABILITY
 * (13,809 positions over the run: 1,973 a sample over a quick run's 7 samples).
 */
export function positionsPerSample(samples: number, wrongFraction = WRONG_FRACTION, miss = MISS_PROBABILITY): number {
  return Math.max(MIN_POSITIONS, Math.ceil(Math.log(miss) / (Math.max(1, samples) * Math.log1p(-wrongFraction))));
}

/** `count` positions uniform in 0 .. length - 1, from the CSPRNG (53 random bits each: no modulo bias to speak of). */
export function drawPositions(count: number, length: number): number[] {
  const words = randomFillSync(new Uint32Array(2 * count));
  const positions: number[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const unit = ((words[2 * k] as number) * 2 ** 21 + ((words[2 * k + 1] as number) >>> 11)) / 2 ** 53;
    positions[k] = Math.floor(unit * length);
  }
  return positions;
}

/** A failed comparison naming where (`index`), what was expected and what came instead. */
export function unequal(index: string | number, expected: string, actual: string): Comparison {
  return { equal: false, firstMismatch: { index, expected, actual }, maxAbsError: null, maxRelError: null };
}

/** The values shown at `positions` against the lab's expected output there (expectedAtPositions), by its comparator. */
export function compareAt(lab: LabDefinition<unknown, unknown>, input: unknown, positions: readonly number[], values: ArrayLike<number>): Comparison {
  const expected = lab.expectedAtPositions!(input, positions);
  const actual = new (Object.getPrototypeOf(expected as object).constructor as new (n: number) => { [k: number]: number; length: number })(positions.length);
  for (let k = 0; k < positions.length; k++) actual[k] = values[k] ?? Number.NaN;
  const comparison = lab.comparator.compare(expected, actual);
  const where = comparison.firstMismatch;
  // The index the comparator names is into the positions checked: name the output's own.
  if (where && typeof where.index === 'number') return { ...comparison, firstMismatch: { ...where, index: positions[where.index] ?? where.index } };
  return comparison;
}
