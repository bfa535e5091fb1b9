/**
 * The shape every chart builder returns: a chart.js configuration as a plain JSON-safe object (no functions, so the
 * HTML report can embed it as JSON and the PNG renderer can use it as is) plus the same numbers as a text table;
 * and the pieces every builder (charts.ts, sweep-chart.ts) draws with: colours, titles, rounding, interval bars.
 */
import { formatSignificant } from '@parallel-course/core';

/** A chart's text alternative: the numbers behind it, printed under it in HTML and Markdown. */
export interface DataTable {
  headers: string[];
  rows: string[][];
}

/** One point of a scatter or line dataset; `y: null` breaks a line (used to draw separate interval segments). */
export interface ChartPoint {
  x: number | string;
  y: number | null;
}

/** A chart.js dataset. Only JSON values: style keys are chart.js dataset options (borderColor, pointStyle...). */
export interface ChartDataset {
  type?: 'line' | 'scatter' | 'bar';
  label: string;
  data: Array<ChartPoint | number | [number, number]>;
  [option: string]: unknown;
}

/** A chart.js configuration that survives JSON.stringify unchanged. */
export interface ChartConfig {
  type: 'scatter' | 'bar';
  data: { labels?: string[]; datasets: ChartDataset[] };
  options: Record<string, unknown>;
}

export interface ChartSpec {
  /** A fixed, file-name-safe id ("speedup-vs-workers"): PNG names come from it, never from lab data. */
  id: string;
  title: string;
  /** One or two sentences on how to read the chart; shown under its title. */
  description: string;
  config: ChartConfig;
  table: DataTable;
}

/**
 * Okabe-Ito colours (Okabe & Ito 2008, "Color Universal Design"), without its yellow and black: distinguishable with
 * the common colour-vision deficiencies and mid-toned enough to read on white and on dark backgrounds.
 */
export const PALETTE = ['#E69F00', '#56B4E9', '#009E73', '#D55E00', '#CC79A7', '#0072B2'] as const;

/** Mid grey for guide lines (ideal, baseline, available CPUs): visible on light and dark backgrounds. */
export const GUIDE_GREY = '#8C8C8C';

/** The colour of the `index`-th series, cycling through the palette. */
export function seriesColour(index: number): string {
  return PALETTE[index % PALETTE.length] ?? PALETTE[0];
}

/** `#RRGGBB` plus an alpha in 0..1 as `#RRGGBBAA`, for translucent fills. */
export function withAlpha(hex: string, alpha: number): string {
  const byte = Math.round(Math.min(1, Math.max(0, alpha)) * 255);
  return `${hex}${byte.toString(16).padStart(2, '0')}`;
}

/** The options every chart starts from: no animation, a fixed size (the PNG renderer and the HTML report agree). */
export const BASE_OPTIONS = { animation: false, responsive: false, maintainAspectRatio: false } as const;

export function title(text: string): Record<string, unknown> {
  return { display: true, text, font: { size: 16 } };
}

export function axisTitle(text: string): Record<string, unknown> {
  return { display: true, text };
}

/** A rounded number for tables and chart data, so the JSON stays short and the table matches the tooltip. */
export function round(value: number, digits = 4): number {
  return Number(formatSignificant(value, digits));
}

/** Interval segments: two points per entry and a null point between entries, so chart.js draws separate bars. */
export function intervalSegments(entries: Array<{ x: number | string; low: number; high: number }>): ChartPoint[] {
  return entries.flatMap((e) => [
    { x: e.x, y: e.low },
    { x: e.x, y: e.high },
    { x: e.x, y: null },
  ]);
}
