/**
 * The decision chart's box geometry, shared by DecisionChart.astro (which lays the boxes out) and
 * DecisionChartBox.astro (which draws one). View-box units: CSS pixels on a 390 px phone.
 */

export interface ChartLink {
  text: string;
  href: string;
}

/** Start, finish and the questions span the width in 13 px text; an exit is indented, in 12 px text. */
export type BoxKind = 'start' | 'question' | 'exit' | 'finish';

/** Space between a box's edge and its text. */
export const PAD = 8;
/** Height of one line of 13 px text. */
export const LINE = 16;
/** Height of one line of an exit's 12 px text. */
const SMALL_LINE = 15;
/** Height of one line of links. */
export const LINK_LINE = 17;

/** Where a box's lines start and how tall they are; an exit's links sit 3 units below its text. */
export function boxText(kind: BoxKind): { baseline: number; lineHeight: number; linkGap: number } {
  return kind === 'exit' ? { baseline: 11, lineHeight: SMALL_LINE, linkGap: 3 } : { baseline: 12, lineHeight: LINE, linkGap: 0 };
}

/** A box's height for its lines of text and of links. */
export function boxHeight(kind: BoxKind, lines: number, linkLines: number): number {
  return PAD * 2 + lines * boxText(kind).lineHeight + linkLines * LINK_LINE;
}
