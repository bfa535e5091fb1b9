/**
 * The roofline chart as a self-contained SVG (log-log: arithmetic intensity in flop/byte against Gflop/s), with
 * the 1-thread and all-threads roofs from the measured peaks and one marker per rung at its largest size, and the
 * triad at each thread count (squares at its intensity of 2 flop per 24 bytes: on the sloped roof by construction,
 * since the bandwidth roofs are its own measurements). A pure function of the analysis: no canvas, no browser,
 * viewable in any report or browser.
 */
import type { Peaks, RooflinePoint } from './analysis.ts';
import { escapeHtml, formatShare, formatSignificant } from '@parallel-course/core';

/** The triad's arithmetic intensity: a multiply and an add (2 flop) per 24 bytes moved. */
const TRIAD_INTENSITY = 2 / 24;

/**
 * Drawn for a text column: 480 units wide with 13-unit text, so the smallest label is about 10 px on a 390 px phone
 * (the figure is 358 px there) and 15 px on a desktop's column; the legend sits under the plot, not beside it, so the
 * plot keeps the width. (It was 720 wide with 10-12 unit text and the legend at the right: 5 px labels on a phone.)
 */
const WIDTH = 480;
const PLOT_HEIGHT = 280;
const MARGIN = { left: 52, right: 14, top: 30, bottom: 46 };
const FONT = 13;
const LINE = 20;
/** Eight colours (ColorBrewer Dark2) and, past eight series, a second marker shape: every series has its own pair. */
const COLORS = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d', '#666666'];

/** A series' marker at (x, y): a circle for the first eight series, a triangle for the next eight, then a diamond. */
function marker(index: number, x: number, y: number, title: string | null): string {
  const color = COLORS[index % COLORS.length] as string;
  const tip = title === null ? '' : `<title>${escapeHtml(title)}</title>`;
  const shape = Math.floor(index / COLORS.length) % 3;
  if (shape === 0) return `<circle cx="${x}" cy="${y}" r="4" fill="${color}">${tip}</circle>`;
  const d =
    shape === 1
      ? `M${x},${y - 5.5} L${x + 5},${y + 3.5} L${x - 5},${y + 3.5} Z`
      : `M${x},${y - 5.5} L${x + 5},${y} L${x},${y + 5.5} L${x - 5},${y} Z`;
  return `<path d="${d}" fill="${color}">${tip}</path>`;
}

/** Powers of ten covering [low, high]. */
export function decades(low: number, high: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(low)); e <= Math.ceil(Math.log10(high)); e++) out.push(10 ** e);
  return out;
}

export function rooflineSvg(
  points: RooflinePoint[],
  peaks: Peaks,
  title: string,
  triad: readonly { threads: number; gbps: number }[] = [],
): string {
  const triadGflops = triad.map((t) => t.gbps * TRIAD_INTENSITY);
  const xs = [...points.map((p) => p.intensity), 0.1, 100, ...(triad.length > 0 ? [TRIAD_INTENSITY] : [])];
  const ys = [...points.map((p) => p.gflops), peaks.gflopsAll, 0.01, ...triadGflops];
  const xTicks = decades(Math.min(...xs), Math.max(...xs));
  const yTicks = decades(Math.min(...ys), Math.max(...ys) * 1.5);
  const [x0, x1] = [xTicks[0] as number, xTicks[xTicks.length - 1] as number];
  const [y0, y1] = [yTicks[0] as number, yTicks[yTicks.length - 1] as number];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PLOT_HEIGHT;
  const sx = (x: number) => MARGIN.left + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * plotW;
  const sy = (y: number) => MARGIN.top + plotH - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * plotH;
  const variants = [...new Set(points.map((p) => `${p.variant}${p.threads ? ` x${p.threads}` : ''}`))];
  // The legend under the plot: the two roofs on a line each, then the series (and the triad) in two columns.
  const legendTop = MARGIN.top + plotH + MARGIN.bottom;
  const entries = variants.length + (triad.length > 0 ? 1 : 0);
  const height = legendTop + 2 * LINE + Math.ceil(entries / 2) * LINE + 8;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="${FONT}">`);
  parts.push(`<rect width="${WIDTH}" height="${height}" fill="white"/>`);
  parts.push(`<text x="8" y="18" font-size="14">${escapeHtml(title)}</text>`);
  for (const t of xTicks) {
    parts.push(`<line x1="${sx(t)}" y1="${MARGIN.top}" x2="${sx(t)}" y2="${MARGIN.top + plotH}" stroke="#ddd"/>`);
    parts.push(`<text x="${sx(t)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${t}</text>`);
  }
  for (const t of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" y1="${sy(t)}" x2="${MARGIN.left + plotW}" y2="${sy(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${MARGIN.left - 5}" y="${sy(t) + 4}" text-anchor="end">${t}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${MARGIN.top + plotH + 36}" text-anchor="middle">flop per byte (compulsory traffic n/12; triad 1/12)</text>`);
  parts.push(`<text transform="translate(13 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">Gflop/s</text>`);
  // Roofs: bandwidth slope up to the ridge point (peak / bandwidth), then flat at the compute peak. Their numbers
  // are in the legend, so no label lies over the points near the roof.
  const roof = (gflops: number, gbps: number, dash: string) => {
    const ridge = gflops / gbps;
    const left = Math.max(x0, y0 / gbps);
    parts.push(
      `<polyline fill="none" stroke="black" stroke-width="2" stroke-dasharray="${dash}" points="${sx(left)},${sy(left * gbps)} ${sx(ridge)},${sy(gflops)} ${sx(x1)},${sy(gflops)}"/>`,
    );
  };
  roof(peaks.gflops1, peaks.gbps1, '');
  roof(peaks.gflopsAll, peaks.gbpsAll, '6 4');
  points.forEach((p) => {
    const key = `${p.variant}${p.threads ? ` x${p.threads}` : ''}`;
    parts.push(marker(variants.indexOf(key), sx(p.intensity), sy(p.gflops), `${key} n=${p.size}: ${formatSignificant(p.gflops)} Gflop/s, ${formatShare(p.fractionOfPeak, 1)} of the roof`));
  });
  triad.forEach((t, i) => {
    const [x, y] = [sx(TRIAD_INTENSITY), sy(triadGflops[i] as number)];
    parts.push(`<rect x="${x - 4}" y="${y - 4}" width="8" height="8" fill="none" stroke="black"><title>${escapeHtml(`triad x${t.threads}: ${formatSignificant(t.gbps)} GB/s`)}</title></rect>`);
  });
  // One label for the triad's squares, under the lowest (they sit a few px apart on the slope: a label each overprinted).
  if (triad.length > 0) {
    const lowest = Math.max(...triadGflops.map((g) => sy(g)));
    parts.push(`<text x="${sx(TRIAD_INTENSITY)}" y="${lowest + 20}" text-anchor="middle">triad ${triad.map((t) => `x${t.threads}`).join(', ')}</text>`);
  }
  const roofKey = (row: number, dash: string, label: string) => {
    const y = legendTop + row * LINE;
    parts.push(`<line x1="8" y1="${y - 4}" x2="34" y2="${y - 4}" stroke="black" stroke-width="2" stroke-dasharray="${dash}"/>`);
    parts.push(`<text x="40" y="${y}">${escapeHtml(label)}</text>`);
  };
  roofKey(0, '', `roof, 1 thread: ${formatSignificant(peaks.gflops1)} Gflop/s, ${formatSignificant(peaks.gbps1)} GB/s`);
  roofKey(1, '6 4', `roof, all threads: ${formatSignificant(peaks.gflopsAll)} Gflop/s, ${formatSignificant(peaks.gbpsAll)} GB/s`);
  const slot = (i: number) => ({ x: 8 + (i % 2) * (WIDTH / 2), y: legendTop + (2 + Math.floor(i / 2)) * LINE });
  variants.forEach((v, i) => {
    const { x, y } = slot(i);
    parts.push(marker(i, x + 8, y - 4, null));
    parts.push(`<text x="${x + 18}" y="${y}">${escapeHtml(v)}</text>`);
  });
  if (triad.length > 0) {
    const { x, y } = slot(variants.length);
    parts.push(`<rect x="${x + 4}" y="${y - 8}" width="8" height="8" fill="none" stroke="black"/>`);
    parts.push(`<text x="${x + 18}" y="${y}">triad (x threads)</text>`);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
