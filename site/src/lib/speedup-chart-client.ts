/**
 * The browser side of <SpeedupChart> (src/components/SpeedupChart.astro): draws one variant's speedups with their
 * 95% intervals against a parameter, from the data the build embedded in the figure (data-speedup-chart, JSON: the
 * run's numbers, never markup). The table under the chart holds the same numbers as text.
 */
import { Filler, type ChartDataset } from 'chart.js';
import { Chart } from './chart-setup.ts';

// The interval band is a filled area between its two edges: chart-setup.ts does not register the filler.
Chart.register(Filler);
import { currentTheme, followTheme, seriesColour, styleAxes, type ChartTheme } from './chart-theme.ts';

export interface SpeedupChartData {
  variant: string;
  param: string;
  baseline: string;
  points: { x: number; speedup: number; low: number; high: number; oversubscribed: boolean }[];
  /** Draw the parameter on a logarithmic axis (chunk sizes, matrix sizes). */
  log?: boolean;
}

type Point = { x: number; y: number };

/** The datasets: the speedups, the interval ends as a shaded band, and the line S = 1 (as fast as the baseline). */
function speedupDatasets(data: SpeedupChartData): ChartDataset<'line', Point[]>[] {
  const xs = data.points.map((p) => p.x);
  const span = xs.length > 0 ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
  return [
    { label: `${data.variant}: speedup over ${data.baseline}`, data: data.points.map((p) => ({ x: p.x, y: p.speedup })), borderWidth: 2, pointRadius: 4 },
    { label: '95% interval (high)', data: data.points.map((p) => ({ x: p.x, y: p.high })), borderWidth: 0, pointRadius: 0, fill: '+1' },
    { label: '95% interval (low)', data: data.points.map((p) => ({ x: p.x, y: p.low })), borderWidth: 0, pointRadius: 0, fill: false },
    { label: `as fast as ${data.baseline} (S = 1)`, data: [{ x: span[0]!, y: 1 }, { x: span[1]!, y: 1 }], borderWidth: 1, borderDash: [4, 4], pointRadius: 0 },
  ];
}

function restyle(chart: Chart, theme: ChartTheme): void {
  styleAxes(chart, theme);
  const [main, high, low, one] = chart.data.datasets as ChartDataset<'line', Point[]>[];
  const colour = seriesColour(theme, 0);
  if (main) Object.assign(main, { borderColor: colour, backgroundColor: colour });
  for (const band of [high, low]) if (band) Object.assign(band, { borderColor: 'transparent', backgroundColor: `${colour}33` });
  if (one) Object.assign(one, { borderColor: theme.ideal, backgroundColor: theme.ideal });
}

export function mountSpeedupChart(root: HTMLElement): void {
  const canvas = root.querySelector<HTMLCanvasElement>('canvas');
  const json = root.dataset['speedupChart'];
  if (!canvas || !json) return;
  const data = JSON.parse(json) as SpeedupChartData;
  const chart = new Chart(canvas, {
    type: 'line',
    data: { datasets: speedupDatasets(data) },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: false,
      scales: {
        // On a log axis, ticks at the swept values themselves (powers of two read as 1, 2, 4, ..., not 1, 2, 5, 10).
        x: data.log
          ? { type: 'logarithmic', title: { display: true, text: data.param }, afterBuildTicks: (scale: { ticks: { value: number }[] }) => { scale.ticks = data.points.map((p) => ({ value: p.x })); } }
          : { type: 'linear', title: { display: true, text: data.param } },
        y: { type: 'linear', min: 0, title: { display: true, text: `speedup over ${data.baseline}` } },
      },
      plugins: { legend: { position: 'bottom', labels: { filter: (item) => !item.text.startsWith('95% interval (low)') } } },
    },
  });
  restyle(chart, currentTheme());
  chart.update();
  followTheme(chart, restyle);
}
