/**
 * The lab's comparator: exact integers, element by element, with the totals compared first, so a run that lost
 * updates (a race) or lost a task is reported as "N missing" rather than as one odd bin.
 */
import type { Comparator, Comparison } from '@parallel-course/harness';

function total(xs: readonly number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return sum;
}

export function exactIntegers(): Comparator<readonly number[]> {
  return {
    description: 'exact: every integer equal (totals first)',
    compare(expected, actual): Comparison {
      const none = { maxAbsError: null, maxRelError: null };
      if (expected.length !== actual.length) {
        return { equal: false, firstMismatch: { index: 'length', expected: String(expected.length), actual: String(actual.length) }, ...none };
      }
      let maxAbsError = 0;
      let maxRelError = 0;
      let firstMismatch: Comparison['firstMismatch'] = null;
      for (let i = 0; i < expected.length; i++) {
        const e = expected[i] as number;
        const a = actual[i] as number;
        const err = Number.isFinite(a) ? Math.abs(a - e) : Number.MAX_VALUE;
        maxAbsError = Math.max(maxAbsError, err);
        if (e !== 0) maxRelError = Math.max(maxRelError, err / Math.abs(e));
        if (a !== e && firstMismatch === null) firstMismatch = { index: i, expected: String(e), actual: String(a) };
      }
      if (firstMismatch === null) return { equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: 0 };
      const te = total(expected);
      const ta = total(actual);
      if (expected.length > 1 && te !== ta) {
        const diff = te - ta;
        firstMismatch = {
          index: 'total',
          expected: String(te),
          actual: `${ta} (${Math.abs(diff)} ${diff > 0 ? 'missing: lost updates or a lost task?' : 'too many: a task counted twice?'})`,
        };
      }
      return { equal: false, firstMismatch, maxAbsError, maxRelError };
    },
  };
}
