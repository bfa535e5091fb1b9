/**
 * Entry point of the reporting stage, one way down: select what the charts show (select.ts), draw the charts once
 * (charts.ts), render every file reporter from the same Results and charts, and check where each file may go
 * (reporter.ts). Nothing is written here: the write stage writes the files with results.json.
 */
import type { Results } from '@parallel-course/core';
import { chartSpecs } from './charts.ts';
import { renderHtmlReport } from './html.ts';
import { renderMarkdownReport } from './markdown.ts';
import { renderChartPng } from './png.ts';
import { chartFileName, HTML_FILE, MARKDOWN_FILE, type ReportFile, type Reporter, reportPath } from './reporter.ts';
import { selectCharts } from './select.ts';
import { ReportWriteError } from '../errors.ts';

export { formatTerminalSummary } from './terminal.ts';
export { renderHtmlReport } from './html.ts';
export { renderMarkdownReport } from './markdown.ts';
export { renderChartPng } from './png.ts';
export { buildCharts } from './charts.ts';
export { ReportWriteError };
export type { ChartSpec, DataTable } from './chart-spec.ts';
export type { Reporter, ReportFile, ReportInput } from './reporter.ts';

export { HTML_FILE, MARKDOWN_FILE } from './reporter.ts';

/** Size of each chart PNG in CSS pixels (the file is twice as large per side, see png.ts). */
export const CHART_WIDTH = 900;
export const CHART_HEIGHT = 520;

export const pngReporter: Reporter = {
  name: 'png',
  async render({ charts }) {
    const files: ReportFile[] = [];
    for (const spec of charts) {
      files.push({ relativePath: chartFileName(spec.id), contents: await renderChartPng(spec.config, CHART_WIDTH, CHART_HEIGHT) });
    }
    return files;
  },
};

export const markdownReporter: Reporter = {
  name: 'markdown',
  async render({ results, charts, chartFiles }) {
    return [{ relativePath: MARKDOWN_FILE, contents: renderMarkdownReport(results, chartFiles, charts) }];
  },
};

export const htmlReporter: Reporter = {
  name: 'html',
  async render({ results, charts }) {
    return [{ relativePath: HTML_FILE, contents: renderHtmlReport(results, charts) }];
  },
};

/** The file reporters renderReports runs, in order. The terminal summary is separate: it goes to stdout. */
export const fileReporters: readonly Reporter[] = [htmlReporter, pngReporter, markdownReporter];

/**
 * Renders every report for `results`: select what the charts show, draw them once, and render each file reporter
 * from the same results and charts; every path checked (reportPath). Nothing is written: the write stage puts the
 * files in the run folder with results.json (write/results-writer.ts writeRunFolder), so a rendering error leaves
 * no half-written folder. `reporters` is for tests; the harness uses the default set.
 */
export async function renderReports(results: Results, reporters: readonly Reporter[] = fileReporters): Promise<ReportFile[]> {
  // Select, then draw, once: every reporter renders the same charts.
  const selection = selectCharts(results);
  const charts = chartSpecs(selection);
  const chartFiles = Object.fromEntries(charts.map((spec) => [spec.id, chartFileName(spec.id)]));
  const files: ReportFile[] = [];
  for (const reporter of reporters) {
    for (const file of await reporter.render({ results, charts, chartFiles })) {
      files.push({ relativePath: reportPath(reporter.name, file.relativePath), contents: file.contents });
    }
  }
  return files;
}
