/**
 * The roofline chart as a self-contained SVG (log-log: arithmetic intensity in flop/byte against Gflop/s), with
 * the 1-thread and all-threads roofs from the measured peaks and one marker per rung at its largest size, and the
 * triad at each thread count (squares at its intensity of 2 flop per 24 bytes: on the sloped roof by construction,
 * since the bandwidth roofs are its own measurements). A pure function of the analysis: no canvas, no browser,
 * viewable in any report or browser.
 */
import type { Peaks, RooflinePoint } from './analysis.ts';
import { escapeHtml } from '@parallel-course/core';

/** The triad's arithmetic intensity: a multiply and an add (2 flop) per 24 bytes moved. */
export const TRIAD_INTENSITY = 2 / 24;

const WIDTH = 720;
const HEIGHT = 440;
const MARGIN = { left: 70, right: 180, top: 30, bottom: 50 };
const COLORS = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d', '#666666'];


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
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number) => MARGIN.left + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * plotW;
  const sy = (y: number) => MARGIN.top + plotH - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * plotH;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`);
  parts.push(`<text x="${MARGIN.left}" y="18" font-size="14">${escapeHtml(title)}</text>`);
  for (const t of xTicks) {
    parts.push(`<line x1="${sx(t)}" y1="${MARGIN.top}" x2="${sx(t)}" y2="${MARGIN.top + plotH}" stroke="#ddd"/>`);
    parts.push(`<text x="${sx(t)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${t}</text>`);
  }
  for (const t of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" y1="${sy(t)}" x2="${MARGIN.left + plotW}" y2="${sy(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${sy(t) + 4}" text-anchor="end">${t}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 10}" text-anchor="middle">arithmetic intensity (flop/byte, compulsory traffic n/12; triad 1/12)</text>`);
  parts.push(`<text transform="translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">Gflop/s</text>`);
  // Roofs: bandwidth slope up to the ridge point (peak / bandwidth), then flat at the compute peak.
  // Labels: the all-threads roof's above its line, the 1-thread roof's below, so close peaks do not overprint.
  const roof = (gflops: number, gbps: number, dash: string, label: string, below = false) => {
    const ridge = gflops / gbps;
    const left = Math.max(x0, y0 / gbps);
    parts.push(
      `<polyline fill="none" stroke="black" stroke-width="2" stroke-dasharray="${dash}" points="${sx(left)},${sy(left * gbps)} ${sx(ridge)},${sy(gflops)} ${sx(x1)},${sy(gflops)}"/>`,
    );
    parts.push(`<text x="${sx(x1) - 4}" y="${sy(gflops) + (below ? 15 : -6)}" text-anchor="end">${escapeHtml(label)}</text>`);
  };
  roof(peaks.gflops1, peaks.gbps1, '', `1 thread: ${peaks.gflops1.toFixed(0)} Gflop/s, ${peaks.gbps1.toFixed(0)} GB/s`, true);
  roof(peaks.gflopsAll, peaks.gbpsAll, '6 4', `all threads: ${peaks.gflopsAll.toFixed(0)} Gflop/s, ${peaks.gbpsAll.toFixed(0)} GB/s`);
  const variants = [...new Set(points.map((p) => `${p.variant}${p.threads ? ` x${p.threads}` : ''}`))];
  points.forEach((p) => {
    const key = `${p.variant}${p.threads ? ` x${p.threads}` : ''}`;
    const color = COLORS[variants.indexOf(key) % COLORS.length];
    parts.push(`<circle cx="${sx(p.intensity)}" cy="${sy(p.gflops)}" r="4" fill="${color}"><title>${escapeHtml(`${key} n=${p.size}: ${p.gflops.toFixed(2)} Gflop/s, ${(100 * p.fractionOfPeak).toFixed(1)}% of the roof`)}</title></circle>`);
  });
  triad.forEach((t, i) => {
    const [x, y] = [sx(TRIAD_INTENSITY), sy(triadGflops[i] as number)];
    parts.push(`<rect x="${x - 4}" y="${y - 4}" width="8" height="8" fill="none" stroke="black"><title>${escapeHtml(`triad x${t.threads}: ${t.gbps.toFixed(2)} GB/s`)}</title></rect>`);
    parts.push(`<text x="${x + 7}" y="${y + 4}" font-size="10">x${t.threads}</text>`);
  });
  variants.forEach((v, i) => {
    const y = MARGIN.top + 40 + i * 16;
    parts.push(`<circle cx="${WIDTH - MARGIN.right + 12}" cy="${y - 4}" r="4" fill="${COLORS[i % COLORS.length]}"/>`);
    parts.push(`<text x="${WIDTH - MARGIN.right + 20}" y="${y}">${escapeHtml(v)}</text>`);
  });
  if (triad.length > 0) {
    const y = MARGIN.top + 40 + variants.length * 16;
    parts.push(`<rect x="${WIDTH - MARGIN.right + 8}" y="${y - 8}" width="8" height="8" fill="none" stroke="black"/>`);
    parts.push(`<text x="${WIDTH - MARGIN.right + 20}" y="${y}">triad (x threads)</text>`);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
