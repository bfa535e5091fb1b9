/**
 * Error bars for chart.js bar charts, which has none built in: a plugin that draws each bar's 95 % interval as a
 * whisker on the bar itself (a line from the interval's low end to its high end, with caps), not as a bar of its own
 * beside it. A bar dataset opts in with `errorBars: [low, high][]` (one per bar, in the data's units, null for none);
 * vertical bars get vertical whiskers on the value scale, horizontal ones (indexAxis 'y') horizontal whiskers.
 * The whiskers' pixel geometry is a pure function (`whiskers`), unit-tested without a canvas.
 */
import type { Chart, ChartDataset, Plugin } from 'chart.js';

export type Interval = readonly [number, number] | null;

/** A bar dataset with its intervals. */
export type BarWithErrors = ChartDataset<'bar', number[]> & { errorBars?: readonly Interval[] };

/** One whisker in canvas pixels: the line from (x1, y1) to (x2, y2), and the caps' half-length across it. */
export interface Whisker {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  cap: number;
}

/**
 * Where each bar's whisker goes: at the bar's centre across, from the interval's low end to its high end along the
 * value scale (`toPixel`). `centres` are the bars' centres across the category axis; `width` the bars' thickness.
 */
export function whiskers(
  intervals: readonly Interval[],
  centres: readonly number[],
  width: number,
  toPixel: (value: number) => number,
  horizontal: boolean,
): Whisker[] {
  const out: Whisker[] = [];
  const cap = Math.max(3, Math.min(10, width / 4));
  intervals.forEach((interval, i) => {
    const centre = centres[i];
    if (interval === null || centre === undefined || !Number.isFinite(interval[0]) || !Number.isFinite(interval[1])) return;
    const low = toPixel(interval[0]);
    const high = toPixel(interval[1]);
    out.push(horizontal ? { x1: low, y1: centre, x2: high, y2: centre, cap } : { x1: centre, y1: low, x2: centre, y2: high, cap });
  });
  return out;
}

/** The plugin; `colour` is read at every draw, so a theme switch recolours the whiskers. */
export function errorBarsPlugin(colour: () => string): Plugin<'bar'> {
  return {
    id: 'courseErrorBars',
    afterDatasetsDraw(chart: Chart<'bar'>) {
      const horizontal = chart.options.indexAxis === 'y';
      const ctx = chart.ctx;
      chart.data.datasets.forEach((dataset, index) => {
        const intervals = (dataset as BarWithErrors).errorBars;
        const meta = chart.getDatasetMeta(index);
        if (!intervals || meta.hidden) return;
        const scale = chart.scales[horizontal ? meta.xAxisID ?? 'x' : meta.yAxisID ?? 'y'];
        if (!scale) return;
        const bars = meta.data as unknown as { x: number; y: number; width?: number; height?: number }[];
        const centres = bars.map((bar) => (horizontal ? bar.y : bar.x));
        const thickness = bars[0] ? (horizontal ? (bars[0].height ?? 12) : (bars[0].width ?? 12)) : 12;
        ctx.save();
        ctx.strokeStyle = colour();
        ctx.lineWidth = 1.5;
        for (const w of whiskers(intervals, centres, thickness, (v) => scale.getPixelForValue(v), horizontal)) {
          ctx.beginPath();
          ctx.moveTo(w.x1, w.y1);
          ctx.lineTo(w.x2, w.y2);
          // The caps, across the whisker at both ends.
          if (horizontal) {
            ctx.moveTo(w.x1, w.y1 - w.cap);
            ctx.lineTo(w.x1, w.y1 + w.cap);
            ctx.moveTo(w.x2, w.y2 - w.cap);
            ctx.lineTo(w.x2, w.y2 + w.cap);
          } else {
            ctx.moveTo(w.x1 - w.cap, w.y1);
            ctx.lineTo(w.x1 + w.cap, w.y1);
            ctx.moveTo(w.x2 - w.cap, w.y2);
            ctx.lineTo(w.x2 + w.cap, w.y2);
          }
          ctx.stroke();
        }
        ctx.restore();
      });
    },
  };
}
