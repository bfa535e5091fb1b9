/**
 * Entry point of the reporting stage: runs every file reporter on the same Results and writes their files into
 * the run folder, each with the harness's one atomic writer (never replacing a file). results.json is never written here.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Results } from '@parallel-course/core';
import { writeFileAtomic } from '../results-writer.ts';
import { buildCharts } from './charts.ts';
import { renderHtmlReport } from './html.ts';
import { renderMarkdownReport } from './markdown.ts';
import { renderChartPng } from './png.ts';
import { chartFileName, type ReportFile, type Reporter } from './reporter.ts';
import { ReportWriteError } from '../errors.ts';

export { formatTerminalSummary } from './terminal.ts';
export { renderHtmlReport } from './html.ts';
export { renderMarkdownReport } from './markdown.ts';
export { renderChartPng } from './png.ts';
export { buildCharts } from './charts.ts';
export { ReportWriteError };
export type { ChartSpec, DataTable } from './chart-spec.ts';
export type { Reporter, ReportFile, ReportInput } from './reporter.ts';

export const HTML_FILE = 'report.html';
export const MARKDOWN_FILE = 'report.md';
/** The file the harness writes; reporters must never replace it. */
const RESULTS_FILE = 'results.json';

/** Size of each chart PNG in CSS pixels (the file is twice as large per side, see png.ts). */
export const CHART_WIDTH = 900;
export const CHART_HEIGHT = 520;

export const pngReporter: Reporter = {
  name: 'png',
  async render({ results }) {
    const files: ReportFile[] = [];
    for (const spec of buildCharts(results)) {
      files.push({ relativePath: chartFileName(spec.id), contents: await renderChartPng(spec.config, CHART_WIDTH, CHART_HEIGHT) });
    }
    return files;
  },
};

export const markdownReporter: Reporter = {
  name: 'markdown',
  async render({ results, chartFiles }) {
    return [{ relativePath: MARKDOWN_FILE, contents: renderMarkdownReport(results, chartFiles) }];
  },
};

export const htmlReporter: Reporter = {
  name: 'html',
  async render({ results }) {
    return [{ relativePath: HTML_FILE, contents: renderHtmlReport(results) }];
  },
};

/** The file reporters writeReports runs, in order. The terminal summary is separate: it goes to stdout. */
export const fileReporters: readonly Reporter[] = [htmlReporter, pngReporter, markdownReporter];

/** Writes one report file with the harness's atomic writer; it never replaces a file that is there. */
function writeReportFile(target: string, contents: string | Uint8Array): void {
  try {
    writeFileAtomic(target, contents);
  } catch (error) {
    throw new ReportWriteError(`could not write ${target}: ${(error as Error).message}`, { cause: error });
  }
}

/** Resolves a reporter's relative path inside `runDir`, refusing paths that leave it or name results.json. */
function targetPath(runDir: string, reporter: string, relativePath: string): string {
  const target = path.resolve(runDir, relativePath);
  const relative = path.relative(runDir, target);
  if (relative.startsWith('..') || path.isAbsolute(relative) || relative === '') {
    throw new ReportWriteError(`the ${reporter} reporter asked to write ${relativePath}, which is outside the run folder`);
  }
  if (relative === RESULTS_FILE) {
    throw new ReportWriteError(`the ${reporter} reporter asked to write ${RESULTS_FILE}; only the harness writes that file`);
  }
  return target;
}

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

  const chartFiles = Object.fromEntries(buildCharts(results).map((spec) => [spec.id, chartFileName(spec.id)]));
  const rendered: Array<{ reporter: string; file: ReportFile }> = [];
  for (const reporter of reporters) {
    for (const file of await reporter.render({ results, chartFiles })) rendered.push({ reporter: reporter.name, file });
  }

  // Check every target before writing the first, so a bad path leaves the folder as it was.
  const targets = rendered.map(({ reporter, file }) => ({ target: targetPath(dir, reporter, file.relativePath), file }));
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
