/**
 * Entry point of the reporting stage, one way down: select what the charts show (select.ts), draw the charts once
 * (charts.ts), render every file reporter from the same Results and charts, then write their files into the run folder
 * (reporter.ts: each with the harness's one atomic writer, never replacing a file). results.json is never written here.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Results } from '@parallel-course/core';
import { chartSpecs } from './charts.ts';
import { renderHtmlReport } from './html.ts';
import { renderMarkdownReport } from './markdown.ts';
import { renderChartPng } from './png.ts';
import { chartFileName, HTML_FILE, MARKDOWN_FILE, type ReportFile, type Reporter, reportTarget, writeReportFile } from './reporter.ts';
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

/** The file reporters writeReports runs, in order. The terminal summary is separate: it goes to stdout. */
export const fileReporters: readonly Reporter[] = [htmlReporter, pngReporter, markdownReporter];

/**
 * Renders every report for `results` and writes report.html, report.md and charts/*.png into `runDir`, which
 * must exist (the harness creates it and writes results.json first). Everything is rendered before anything is
 * written, so a rendering error leaves no half-written report. Returns the absolute paths written.
 * `reporters` is for tests; the harness uses the default set.
 */
export async function writeReports(
  results: Results,
  runDir: string,
  reporters: readonly Reporter[] = fileReporters,
): Promise<{ html: string; markdown: string; pngs: string[] }> {
  const dir = path.resolve(runDir);
  const info = await stat(dir).catch(() => null);
  if (info === null || !info.isDirectory()) {
    throw new ReportWriteError(`run folder ${dir} does not exist: the harness creates it (and results.json) before writing reports`);
  }

  // Select, then draw, once: every reporter renders the same charts.
  const selection = selectCharts(results);
  const charts = chartSpecs(selection);
  const chartFiles = Object.fromEntries(charts.map((spec) => [spec.id, chartFileName(spec.id)]));
  const rendered: Array<{ reporter: string; file: ReportFile }> = [];
  for (const reporter of reporters) {
    for (const file of await reporter.render({ results, charts, chartFiles })) rendered.push({ reporter: reporter.name, file });
  }

  // Check every target before writing the first, so a bad path leaves the folder as it was.
  const targets = rendered.map(({ reporter, file }) => ({ target: reportTarget(dir, reporter, file.relativePath), file }));
  const written: string[] = [];
  for (const { target, file } of targets) {
    await mkdir(path.dirname(target), { recursive: true });
    writeReportFile(target, file.contents);
    written.push(target);
  }
  return {
    html: path.join(dir, HTML_FILE),
    markdown: path.join(dir, MARKDOWN_FILE),
    pngs: written.filter((file) => file.endsWith('.png')),
  };
}
