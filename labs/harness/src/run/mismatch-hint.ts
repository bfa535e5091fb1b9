/**
 * What a failed check's first mismatch suggests about its cause, for the check report (run/check-report.ts formatCheckReport,
 * which --watch prints too). Input: one correctness entry; output: one sentence or null.
 */
import type { CorrectnessEntry } from '@parallel-course/core';

/**
 * What the first mismatch says about its cause, from the evidence alone (where it is, how far off, what was given);
 * null when the evidence points nowhere in particular. Never guesses a cause the numbers rule out: a mismatch at the
 * very first item is no boundary problem, and an error of a part in a million is no logic error.
 */
export function mismatchHint(entry: CorrectnessEntry): string | null {
  const m = entry.firstMismatch;
  if (m === null) return null;
  if (m.index === 'length') {
    const expected = Number(m.expected);
    const actual = Number(m.actual);
    if (Number.isFinite(expected) && Number.isFinite(actual)) {
      return actual < expected
        ? `Your output has ${actual} items where the expected output has ${expected}: ${expected - actual} are missing (a last chunk left out, a loop that stops early?).`
        : `Your output has ${actual} items where the expected output has ${expected}: ${actual - expected} too many (a chunk done twice, a loop one step too far?).`;
    }
    return null;
  }
  if (/^(NaN|undefined|null|"")$/.test(m.actual)) {
    return `Your code gave ${m.actual} at [${m.index}]: that item was never computed or never written (a range no chunk covers?).`;
  }
  if (entry.maxAbsError !== null && entry.maxAbsError > 0 && entry.maxRelError !== null && entry.maxRelError < 1e-3) {
    return 'The largest error is small (a relative error under 0.1%): floating-point additions in a different order? The comparator says how close is close enough.';
  }
  if (m.index === 0) {
    return 'It differs from the very first item, so it is not a boundary: check what your code computes for one item, step by step.';
  }
  if (typeof m.index === 'number') {
    return `Everything before [${m.index}] matches: look at what starts at [${m.index}] (a chunk boundary, the next worker's share?).`;
  }
  return null;
}

