/**
 * The one interface every file reporter implements (as in Criterion.rs's report.rs): fed the same validated
 * Results and the same charts, it returns the files it wants written, and never measures or reads anything back from
 * the run; and where those files may go (inside the run folder, never results.json). The write stage writes them
 * (write/results-writer.ts), with results.json, atomically.
 */
import path from 'node:path';
import type { Results } from '@parallel-course/core';
import { ReportWriteError } from '../errors.ts';
import type { ChartSpec } from './chart-spec.ts';

export const HTML_FILE = 'report.html';
export const MARKDOWN_FILE = 'report.md';
/** The file the harness writes; reporters must never replace it. */
const RESULTS_FILE = 'results.json';

/** A file a reporter produced, with its path relative to the run folder (forward slashes). */
export interface ReportFile {
  relativePath: string;
  contents: string | Uint8Array;
}

export interface ReportInput {
  results: Results;
  /** The run's charts, drawn once (select.ts, then charts.ts) for every reporter. */
  charts: readonly ChartSpec[];
  /** Chart id -> PNG path relative to the run folder, so text reports can link images the PNG reporter writes. */
  chartFiles: Readonly<Record<string, string>>;
}

export interface Reporter {
  /** Short name for error messages: "html", "markdown", "png". */
  readonly name: string;
  render(input: ReportInput): Promise<ReportFile[]>;
}

/** Folder of the chart images inside the run folder. */
const CHARTS_DIR = 'charts';

/** Where the PNG of chart `id` goes, relative to the run folder. Ids are fixed strings from charts.ts. */
export function chartFileName(id: string): string {
  return `${CHARTS_DIR}/${id}.png`;
}

/**
 * A reporter's path, checked and normalised: relative to the run folder, inside it (no `..`, not absolute), never
 * results.json. Checked when the file is rendered, before the run folder exists.
 */
export function reportPath(reporter: string, relativePath: string): string {
  const folder = path.resolve('/run-folder');
  const relative = path.relative(folder, path.resolve(folder, relativePath));
  if (relative.startsWith('..') || path.isAbsolute(relative) || relative === '') {
    throw new ReportWriteError(`the ${reporter} reporter asked to write ${relativePath}, which is outside the run folder`);
  }
  if (relative === RESULTS_FILE) {
    throw new ReportWriteError(`the ${reporter} reporter asked to write ${RESULTS_FILE}; only the harness writes that file`);
  }
  return relative.split(path.sep).join('/');
}
