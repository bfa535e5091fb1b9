/**
 * Sentences against numbers (issue 29): the verb of a sentence that compares two measured values comes from the
 * run the page shows, never from the author's run. A pure function of the course's runs, used by <Compare> (the
 * verb: faster / slower / within noise) and <Claim> (a sentence that asserts a direction: checked against the run).
 *
 * Two values differ when the 95% interval of their ratio (or, where a value can be 0 or negative, their difference)
 * excludes 1 (or 0): core compareEstimates, the MOVER interval from the two values' own intervals (issue 43). Not by
 * overlap: two intervals can overlap while the difference is real. A value without an interval gives no direction
 * at all ('unknown': the page says so), however far the two numbers are apart; only a constant the text names (b="1")
 * is exact.
 * For a claim that the run contradicts: with the reference runs the build fails (the course may not ship a sentence
 * its own run refutes); with an instructor's COURSE_RUNS the page shows the sentence with a visible note that their
 * run differs, because an instructor's run on another machine may honestly disagree.
 */
import { compareEstimates, type IntervalComparison } from '@parallel-course/core';
import { describeSelector, type MeasuredSelector, MeasuredSelectorError, resolveMeasured } from '@parallel-course/harness/site.ts';
import { courseRun, describeRun, type CourseRun, type CourseRuns } from './course-runs.ts';
import { MeasuredBuildError } from './measured-render.ts';

/**
 * How `a` compares with `b`: more (the interval of a / b lies wholly above 1), less, level (it contains 1), or
 * unknown (a value without an interval: no direction).
 */
export type Direction = 'more' | 'less' | 'level' | 'unknown';
/** What a claim asserts: one direction, or "not less" / "not more" (a at least / at most level with b). */
export type Expectation = 'more' | 'less' | 'level' | 'not-less' | 'not-more';
const EXPECTATIONS: readonly Expectation[] = ['more', 'less', 'level', 'not-less', 'not-more'];

export interface Interval {
  value: number;
  /** The 95% interval, or null where the value has none. */
  ci95: readonly [number, number] | null;
}

/**
 * The direction from the interval of a / b (or a - b), core compareEstimates; `bIsConstant` when b is a number the
 * text names (exact). Reference: 10 [9, 11] against 8.4 [7.4, 9.4] overlap, yet the ratio's interval excludes 1: more.
 */
export function directionOf(a: Interval, b: Interval, bIsConstant = false): { direction: Direction; comparison: IntervalComparison } {
  const comparison = compareEstimates(a, b, { bIsConstant });
  return { direction: comparison.verdict, comparison };
}

/** Whether a run's direction satisfies what a sentence asserts. */
export function satisfies(direction: Direction, expected: Expectation): boolean {
  if (direction === 'unknown') return false;
  if (expected === 'not-less') return direction !== 'less';
  if (expected === 'not-more') return direction !== 'more';
  return direction === expected;
}

/** The props both components take: the lab, the kind of value and the two things compared. */
export interface CompareProps {
  run: string;
  /** median | speedup (a and b are cases) or value (a and b are names in analysis/values.json); b may be a number. */
  at: string;
  a: string;
  b: string;
  /** The words for each direction; defaults by unit: times read slower/faster, everything else higher/lower. */
  more?: string | undefined;
  less?: string | undefined;
  level?: string | undefined;
  /** The words where a value has no interval (no direction); default "not comparable (no interval) with". */
  unknown?: string | undefined;
  /** What the sentence asserts; the run is checked against it. */
  expect?: string | undefined;
}

export interface CompareRender {
  direction: Direction;
  /** The verb phrase for the direction found. */
  text: string;
  /** The tooltip and the provenance line: both values with their intervals and the run. */
  title: string;
  run: CourseRun;
  /** Set when `expect` was given and the run (an instructor's) does not satisfy it: the visible note. */
  differs: string | null;
  /** The instructor's run lacked a value, so both came from the reference run (`run` is then the reference). */
  fellBack: boolean;
}

const TIME_UNITS = new Set(['ns', 'µs', 'us', 'μs', 'ms', 's']);

function selectorFor(at: string, key: string): MeasuredSelector {
  if (at === 'value') return { at, name: key };
  if (at === 'median' || at === 'speedup') return { at, case: key };
  throw new MeasuredSelectorError(`at="${at}" cannot be compared; use median, speedup or value`);
}

function describeExpectation(expected: Expectation, words: Record<Direction, string>): string {
  if (expected === 'not-less') return `${words.more} or ${words.level}`;
  if (expected === 'not-more') return `${words.less} or ${words.level}`;
  return words[expected];
}

type Resolved = Extract<ReturnType<typeof resolveMeasured>, { kind: 'number' }>;
interface Pair {
  a: Resolved;
  b: Resolved;
  /** The run both came from (the reference where the instructor's run lacked one). */
  run: CourseRun;
  fellBack: boolean;
}

/** The tag as the author wrote it, for build errors. */
function tagOf(props: CompareProps): string {
  return `<Compare run="${props.run}" at="${props.at}" a="${props.a}" b="${props.b}"${props.expect ? ` expect="${props.expect}"` : ''} />`;
}

/** `a` and `b` in one run; b may be a plain number (b="1": a speedup against no speedup), in a's unit, without an interval. */
function pairIn(r: CourseRun, props: CompareProps, literal: number | null): { a: Resolved; b: Resolved } {
  const resolveIn = (key: string): Resolved => {
    const found = resolveMeasured(r.results, r.values, selectorFor(props.at, key));
    if (found.kind !== 'number') throw new MeasuredSelectorError(`${describeSelector(props.run, selectorFor(props.at, key))} is not a number`);
    return found;
  };
  const a = resolveIn(props.a);
  const b = literal === null ? resolveIn(props.b) : { kind: 'number' as const, value: literal, unit: a.unit, ci95: null, what: `the number ${literal}` };
  return { a, b };
}

/**
 * Both values from the run the page shows. An instructor's run may lack a value (an optional rung it did not build):
 * like <Measured>, the comparison then comes from the reference run, both values from it, marked; a value missing
 * from the reference fails the build.
 */
function resolvePair(runs: CourseRuns, props: CompareProps, literal: number | null, fail: (why: string) => never): Pair {
  let run: CourseRun;
  try {
    run = courseRun(runs, props.run);
  } catch (error) {
    return fail((error as Error).message);
  }
  try {
    return { ...pairIn(run, props, literal), run, fellBack: false };
  } catch (error) {
    const reference = runs.reference.get(props.run);
    if (!(error instanceof MeasuredSelectorError) || run.source === 'reference' || !reference) {
      return fail(`does not resolve in the ${run.source === 'reference' ? 'reference' : "instructor's"} run ${run.dir}: ${(error as Error).message}`);
    }
    try {
      return { ...pairIn(reference, props, literal), run: reference, fellBack: true };
    } catch (refError) {
      return fail(`resolves neither in ${run.dir} nor in the reference run ${reference.dir}: ${(refError as Error).message}`);
    }
  }
}

/** The verb for each direction: the author's, else by unit (times read slower/faster, everything else higher/lower). */
function directionWords(props: CompareProps, unit: string): Record<Direction, string> {
  const isTime = TIME_UNITS.has(unit);
  return {
    more: props.more ?? (isTime ? 'slower than' : 'higher than'),
    less: props.less ?? (isTime ? 'faster than' : 'lower than'),
    level: props.level ?? 'within noise of',
    unknown: props.unknown ?? 'not comparable (no interval) with',
  };
}

/** The tooltip: both values with their intervals, the rule that gave the direction, and the run. */
function titleOf({ a, b, run, fellBack }: Pair, comparison: IntervalComparison): string {
  const show = (r: Resolved) => `${r.value}${r.ci95 ? ` [${r.ci95[0]}, ${r.ci95[1]}]` : ' (no interval)'} ${r.unit}`.trim();
  const rule =
    comparison.ci95 === null
      ? `No direction: ${comparison.reason ?? 'a value has no interval'}.`
      : `${comparison.scale === 'ratio' ? 'a / b' : 'a - b'} = ${comparison.estimate} [${comparison.ci95[0]}, ${comparison.ci95[1]}] (95%); ` +
        `different only where this interval excludes ${comparison.scale === 'ratio' ? '1' : '0'}.`;
  const title = [`${a.what}: ${show(a)}`, `${b.what}: ${show(b)}`, rule, describeRun(run)].join('\n');
  return fellBack ? `${title}\nReference values: not in the instructor's run` : title;
}

/**
 * Where the run does not give the direction the sentence asserts: the reference run fails the build; an instructor's
 * run gets the visible note (returned). Null where the run agrees or nothing is asserted.
 */
function differsFrom(props: CompareProps, expected: Expectation | undefined, found: { direction: Direction; comparison: IntervalComparison; words: Record<Direction, string>; pair: Pair }, fail: (why: string) => never): string | null {
  const { direction, comparison, words, pair } = found;
  if (expected === undefined || satisfies(direction, expected)) return null;
  const message =
    direction === 'unknown'
      ? `the text expects ${props.a} ${describeExpectation(expected, words)} ${props.b}, and this run cannot say: ${comparison.reason ?? 'a value has no interval'}`
      : `the text expects ${props.a} ${describeExpectation(expected, words)} ${props.b}, and this run has it ${words[direction]}`;
  if (pair.run.source === 'reference' || pair.run.fellBack || pair.fellBack) {
    return fail(
      `the reference run ${direction === 'unknown' ? 'cannot support' : 'contradicts'} the sentence: ${message} (${pair.run.dir}). ` +
        (direction === 'unknown'
          ? 'Compare values that carry a 95% interval, or state the numbers without a direction.'
          : 'Rephrase it so it holds on any run, or let the run give the verb with <Compare> without expect.'),
    );
  }
  return `Your run differs here: ${message}.`;
}

/** Resolves a comparison in the run `runs` shows for `props.run`; `page` names the episode in build errors. */
export function renderCompare(runs: CourseRuns, props: CompareProps, page: string): CompareRender {
  const fail = (why: string): never => {
    throw new MeasuredBuildError(`${page}: ${tagOf(props)}: ${why}`);
  };
  const expected = props.expect;
  if (expected !== undefined && !EXPECTATIONS.includes(expected as Expectation)) fail(`expect="${expected}" must be one of ${EXPECTATIONS.join(', ')}`);
  const literal = /^-?\d+(\.\d+)?$/.test(props.b.trim()) ? Number(props.b) : null;
  const pair = resolvePair(runs, props, literal, fail);
  const { a, b } = pair;
  if (a.unit !== b.unit) fail(`a is in "${a.unit}" and b in "${b.unit}"; compare values of one unit`);
  const { direction, comparison } = directionOf({ value: a.value, ci95: a.ci95 }, { value: b.value, ci95: b.ci95 }, literal !== null);
  const words = directionWords(props, a.unit);
  const differs = differsFrom(props, expected as Expectation | undefined, { direction, comparison, words, pair }, fail);
  return { direction, text: words[direction], title: titleOf(pair, comparison), run: pair.run, differs, fellBack: pair.fellBack };
}
