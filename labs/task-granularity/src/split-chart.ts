/**
 * The chart of the pool's curve split in two: efficiency, workers busy (utilisation) and speed ratio for each chunk
 * size, one category per size. Built from analysis.ts's numbers as a harness ChartSpec, so the PNG renderer and the
 * colours are the run report's.
 */
import { type ChartSpec, GUIDE_GREY, PALETTE } from '@parallel-course/harness';
import type { Sweep } from './sweep-model.ts';
import { formatCount, formatSignificant } from '@parallel-course/core';

/** The efficiency the course aims for at the headline size: a dashed guide line. */
export const TARGET_EFFICIENCY = 0.85;

function rounded(value: number | null): number | null {
  return value === null ? null : Number(formatSignificant(value, 3));
}

/**
 * The curve of sweep `g` (the pool at W = P) as a chart, or null when it has no points. `machine` labels the chart
 * (an episode quoting it must say where it was measured), e.g. "AMD EPYC, P = 2, 2026-12-02 17:23 UTC".
 */
export function efficiencySplitChart(g: Pick<Sweep, 'curve' | 'points' | 'workers'>, machine: string): ChartSpec | null {
  const curve = g.curve;
  if (!curve || curve.length === 0) return null;
  const series = [
    { label: 'efficiency (speedup / workers)', values: curve.map((p) => p.efficiency), colour: PALETTE[5], width: 3 },
    { label: 'workers busy (utilisation)', values: curve.map((p) => p.utilisation), colour: PALETTE[0], width: 2 },
    { label: 'speed ratio (serial ns/point ÷ workers’)', values: curve.map((p) => p.speedRatio), colour: PALETTE[2], width: 2 },
  ];
  // Categories in chunk order, small tasks on the left, as in the analysis's table: the "too small" side of the U first.
  const labels = curve.map((p) => `${formatCount(p.chunk)} (${formatCount(p.tasks)})`);
  return {
    id: 'efficiency-split',
    title: 'Efficiency = workers busy × speed ratio',
    description:
      'For each chunk size of the pool (x: points per task, and tasks per run in brackets): the efficiency, the share ' +
      "of the workers' time spent computing, and how fast they computed compared with the serial loop.",
    config: {
      type: 'bar',
      data: {
        labels,
        datasets: [
          ...series.map((s) => ({
            type: 'line' as const,
            label: s.label,
            data: curve.map((_, i) => ({ x: labels[i]!, y: rounded(s.values[i] ?? null) })),
            spanGaps: false,
            borderColor: s.colour,
            backgroundColor: s.colour,
            borderWidth: s.width,
            pointRadius: 4,
          })),
          {
            type: 'line' as const,
            label: `target efficiency ${TARGET_EFFICIENCY}`,
            data: labels.map((label) => ({ x: label, y: TARGET_EFFICIENCY })),
            borderColor: GUIDE_GREY,
            borderDash: [6, 4],
            borderWidth: 1.5,
            pointRadius: 0,
          },
        ],
      },
      options: {
        animation: false,
        responsive: false,
        maintainAspectRatio: false,
        plugins: {
          title: { display: true, text: `task-granularity: where the pool's efficiency went (${machine})`, font: { size: 16 } },
          legend: { position: 'bottom' },
        },
        scales: {
          x: { type: 'category', title: { display: true, text: `points per task (tasks per run of ${formatCount(g.points)} points, ${g.workers} workers)` } },
          y: { min: 0, suggestedMax: 1.1, title: { display: true, text: 'fraction (1 = ideal)' } },
        },
      },
    },
    table: {
      headers: ['chunk', 'tasks', 'efficiency', 'workers busy', 'speed ratio'],
      rows: curve.map((p) => [
        String(p.chunk),
        String(p.tasks),
        p.efficiency === null ? 'n/a' : formatSignificant(p.efficiency, 2),
        p.utilisation === null ? 'n/a' : formatSignificant(p.utilisation, 2),
        p.speedRatio === null ? 'n/a' : formatSignificant(p.speedRatio, 2),
      ]),
    },
  };
}
