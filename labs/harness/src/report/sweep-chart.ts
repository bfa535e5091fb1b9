/**
 * The chart of one declared sweep (results.sweeps, as the core's sweepCharts plots it, selected by select.ts), for
 * the HTML and Markdown reports: a JSON-safe chart.js configuration and its data table, like every builder in charts.ts.
 */
import { amdahlSpeedup, caseLabel, formatSignificant } from '@parallel-course/core';
import type { ChartConfig, ChartDataset, ChartSpec } from './chart-spec.ts';
import { axisTitle, BASE_OPTIONS, intervalSegments, GUIDE_GREY, round, seriesColour, title } from './chart-spec.ts';
import type { SelectedSweep } from './select.ts';

/**
 * (d) One declared sweep (results.sweeps, drawn by the core's sweepCharts): speedup against the swept param, one
 * curve per variant and setting of its other params, each point with its 95% interval; a log axis where the values
 * are powers of two or span a wide range; the Amdahl fit and the ideal line where the param is the worker count.
 */
export function sweepChartSpec(lab: string, selected: SelectedSweep, index: number): ChartSpec {
  const { chart, workersAreX, fits } = selected;
  const { sweep } = chart;
  const datasets: ChartDataset[] = [];
  const rows: string[][] = [];
  const xs = chart.curves.flatMap((c) => c.points.map((p) => p.x));
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  chart.curves.forEach((curve, i) => {
    const colour = seriesColour(i);
    datasets.push({
      type: 'scatter',
      label: curve.label,
      data: curve.points.map((p) => ({ x: p.x, y: round(p.y) })),
      showLine: true,
      borderColor: colour,
      backgroundColor: colour,
      borderWidth: 2,
      pointRadius: 4,
      pointStyle: curve.points.map((p) => (p.oversubscribed ? 'triangle' : 'circle')),
    });
    datasets.push({
      type: 'line',
      label: `${curve.label} 95% interval`,
      data: intervalSegments(curve.points.map((p) => ({ x: p.x, low: round(p.ci95[0]), high: round(p.ci95[1]) }))),
      borderColor: colour,
      borderWidth: 1.5,
      pointStyle: 'line',
      pointRadius: 5,
      spanGaps: false,
    });
    const fit = fits[i];
    if (fit) {
      const steps = 40;
      const curveXs = Array.from({ length: steps + 1 }, (_, k) => xMin * (xMax / xMin) ** (k / steps));
      datasets.push({ type: 'line', label: `${curve.label} Amdahl fit (serial fraction ${formatSignificant(fit.serialFraction, 2)})`, data: curveXs.map((x) => ({ x: round(x), y: round(amdahlSpeedup(fit.serialFraction, x)) })), borderColor: colour, borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0 });
    }
    for (const p of curve.points) {
      rows.push([curve.label, String(p.x), formatSignificant(p.y), formatSignificant(p.ci95[0]), formatSignificant(p.ci95[1]), caseLabel(p.over), p.oversubscribed ? 'yes' : 'no']);
    }
  });
  if (workersAreX.some(Boolean)) {
    datasets.push({ type: 'line', label: 'ideal (speedup = workers)', data: [{ x: xMin, y: xMin }, { x: xMax, y: xMax }], borderColor: GUIDE_GREY, borderDash: [2, 3], borderWidth: 1.5, pointRadius: 0 });
  }
  const axisText = chart.axis === 'log2' ? `${sweep.param} (log scale: powers of two equally spaced)` : chart.axis === 'log10' ? `${sweep.param} (log scale)` : sweep.param;
  const config: ChartConfig = {
    type: 'scatter',
    data: { datasets },
    options: {
      ...BASE_OPTIONS,
      plugins: { title: title(`${lab}: ${sweep.title}`), legend: { position: 'bottom' } },
      scales: {
        x: chart.axis === 'linear' ? { type: 'linear', title: axisTitle(axisText) } : { type: 'logarithmic', min: xMin / 1.2, max: xMax * 1.2, title: axisTitle(axisText) },
        y: { type: 'linear', beginAtZero: true, title: axisTitle(`${chart.yTitle} (×)`) },
      },
    },
  };
  return {
    // A fixed id from the sweep's position, never from lab data (PNG names come from it).
    id: `sweep-${index + 1}`,
    title: sweep.title,
    description: `${sweep.title}: one curve per ${chart.curves.length === 1 ? 'variant' : 'variant and setting of its other params'}, each point the median speedup with its 95% interval (${chart.yTitle}; the table names the case each is over). Triangles mark oversubscribed cases.`,
    config,
    table: { headers: ['curve', sweep.param, 'speedup', '95% CI low', '95% CI high', 'over', 'oversubscribed'], rows },
  };
}
