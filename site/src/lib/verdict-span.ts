/**
 * How <Claim> and <Compare> show an interval verdict (renderCompare's result, lib/compare.ts): the span's class and
 * data attributes (the direction, the run, whether the values fell back to the reference), the "ref" mark's label and
 * the visible note where an instructor's run differs from what the sentence asserts. Pure, so both components render
 * one thing (VerdictSpan.astro) and a unit test pins it (test/verdict-span.test.ts).
 */
import type { CompareRender } from './compare.ts';

/** A <Claim> wraps the author's sentence; a <Compare> is the verb the run gives. */
export type VerdictKind = 'claim' | 'compare';

export interface VerdictSpan {
  className: VerdictKind;
  /** The span's attributes after its class, in the order they are written; undefined ones are left out. */
  attributes: Record<string, string | undefined>;
  /** The span's text: the verb for a <Compare>; null for a <Claim>, whose text is the author's. */
  text: string | null;
  /** The accessible name of the "ref" mark, or null where the values are the shown run's own. */
  refLabel: string | null;
  /** The note after the span, parentheses included, or null where the run agrees (or nothing was asserted). */
  differsNote: string | null;
}

export function verdictSpan(kind: VerdictKind, r: CompareRender): VerdictSpan {
  const fellBack = r.fellBack ? 'true' : undefined;
  const differsNote = r.differs === null ? null : `(${r.differs})`;
  if (kind === 'claim') {
    return {
      className: 'claim',
      attributes: { 'data-claim': '', 'data-direction': r.direction, 'data-fell-back': fellBack },
      text: null,
      refLabel: r.fellBack ? '(checked against the reference run)' : null,
      differsNote,
    };
  }
  return {
    className: 'compare',
    attributes: { 'data-compare': '', 'data-direction': r.direction, 'data-source': r.run.source, 'data-fell-back': fellBack, title: r.title },
    text: r.text,
    refLabel: r.fellBack ? '(from the reference run)' : null,
    differsNote,
  };
}
