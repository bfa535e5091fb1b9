/**
 * Comparators: the explicit rule by which a variant's output counts as equal to the expected output.
 * Pure functions; each returns where outputs first differ and, for numbers, the largest errors.
 */
import type { Comparator, Comparison } from './lab-definition.ts';

const SHOWN_CHARS = 80;

function shorten(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}

/**
 * Two differing strings shortened around their first difference, so both excerpts never read the same: a window of
 * SHOWN_CHARS that starts a few characters before the first differing character, with `…` where text was cut
 * (`at`: that character's offset).
 */
export function differingExcerpts(expected: string, actual: string): { expected: string; actual: string; at: number } {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  const start = Math.max(0, at - 10);
  const cut = (text: string) => {
    const window = JSON.stringify(text.slice(start, start + SHOWN_CHARS - 20));
    return `${start > 0 ? '…' : ''}${window}${start + SHOWN_CHARS - 20 < text.length ? '…' : ''}`;
  };
  return { expected: cut(expected), actual: cut(actual), at };
}

const EQUAL: Comparison = { equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null };

/** Outputs of different lengths: the first mismatch is the length itself. */
function lengthMismatch(expected: number, actual: number): Comparison {
  return {
    equal: false,
    firstMismatch: { index: 'length', expected: String(expected), actual: String(actual) },
    maxAbsError: null,
    maxRelError: null,
  };
}

/** Exact equality of two lists of strings (e.g. HTTP response bodies), element by element. */
export function exactStrings(): Comparator<readonly string[]> {
  return {
    description: 'exact: every string equal, byte for byte',
    compare(expected, actual) {
      if (expected.length !== actual.length) return lengthMismatch(expected.length, actual.length);
      for (let i = 0; i < expected.length; i++) {
        if (expected[i] !== actual[i]) {
          const e = expected[i];
          const a = actual[i];
          // Strings shown from their first difference (a long body that differs past character 80 read the same).
          const shown = typeof e === 'string' && typeof a === 'string' ? differingExcerpts(e, a) : null;
          return {
            equal: false,
            firstMismatch: shown ? { index: i, expected: shown.expected, actual: shown.actual } : { index: i, expected: shorten(e), actual: shorten(a) },
            maxAbsError: null,
            maxRelError: null,
          };
        }
      }
      return EQUAL;
    },
  };
}

export interface ToleranceOptions {
  /** Absolute tolerance: |actual - expected| <= abs + rel * |expected| passes. */
  abs: number;
  /** Relative tolerance, as a fraction of |expected|. */
  rel: number;
}

/**
 * Element-wise numeric comparison with an explicit tolerance, the rule numpy.isclose uses:
 * |actual - expected| <= abs + rel * |expected|. NaN never equals anything.
 */
export function withinTolerance({ abs, rel }: ToleranceOptions): Comparator<ArrayLike<number>> {
  if (!(abs >= 0) || !(rel >= 0)) throw new RangeError('tolerances must be non-negative numbers');
  return {
    description: `|actual - expected| <= ${abs} + ${rel}·|expected|`,
    compare(expected, actual) {
      if (expected.length !== actual.length) return lengthMismatch(expected.length, actual.length);
      let firstMismatch: Comparison['firstMismatch'] = null;
      let maxAbsError = 0;
      let maxRelError = 0;
      for (let i = 0; i < expected.length; i++) {
        const e = expected[i] as number;
        const a = actual[i] as number;
        const err = Math.abs(a - e);
        const ok = err <= abs + rel * Math.abs(e);
        if (Number.isNaN(err)) {
          maxAbsError = Number.POSITIVE_INFINITY;
        } else {
          maxAbsError = Math.max(maxAbsError, err);
          if (e !== 0) maxRelError = Math.max(maxRelError, err / Math.abs(e));
        }
        if (!ok && firstMismatch === null) firstMismatch = { index: i, expected: shorten(e), actual: shorten(a) };
      }
      return {
        equal: firstMismatch === null,
        firstMismatch,
        maxAbsError: Number.isFinite(maxAbsError) ? maxAbsError : Number.MAX_VALUE,
        maxRelError,
      };
    },
  };
}
