/**
 * Chart colours readable in both Starlight themes. Series colours are the Okabe-Ito palette (safe for the common
 * colour-vision deficiencies), with the lighter members swapped for darker ones on the light theme.
 * Charts re-read the theme when the learner switches it (Starlight sets data-theme on <html>).
 */
import type { Chart } from 'chart.js';

export interface ChartTheme {
  text: string;
  grid: string;
  series: readonly string[];
  /** The ideal (linear) speedup line. */
  ideal: string;
}

const DARK: ChartTheme = {
  text: '#e8e8ec',
  grid: 'rgba(232, 232, 236, 0.18)',
  series: ['#56B4E9', '#E69F00', '#009E73', '#CC79A7', '#F0E442', '#D55E00'],
  ideal: '#b0b0b8',
};

const LIGHT: ChartTheme = {
  text: '#1f2128',
  grid: 'rgba(31, 33, 40, 0.14)',
  series: ['#0072B2', '#D55E00', '#007A5A', '#AA4499', '#8C6D00', '#4B4B4B'],
  ideal: '#6b6b73',
};

export function currentTheme(): ChartTheme {
  return document.documentElement.dataset['theme'] === 'light' ? LIGHT : DARK;
}

export function seriesColour(theme: ChartTheme, index: number): string {
  return theme.series[index % theme.series.length] as string;
}

/**
 * Calls `restyle` on the chart whenever the site theme changes, then redraws it.
 * Returns the function that stops following: call it before `chart.destroy()`.
 */
export function followTheme(chart: Chart, restyle: (chart: Chart, theme: ChartTheme) => void): () => void {
  const observer = new MutationObserver(() => {
    restyle(chart, currentTheme());
    chart.update();
  });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => observer.disconnect();
}

/** Axis and legend colours for a chart with linear x and y scales. */
export function styleAxes(chart: Chart, theme: ChartTheme): void {
  for (const scale of Object.values(chart.options.scales ?? {})) {
    if (!scale) continue;
    scale.ticks = { ...scale.ticks, color: theme.text };
    scale.grid = { ...scale.grid, color: theme.grid };
    if ('title' in scale && scale.title) scale.title = { ...scale.title, color: theme.text };
  }
  const legend = chart.options.plugins?.legend;
  if (legend) legend.labels = { ...legend.labels, color: theme.text };
}
