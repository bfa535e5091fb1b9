/**
 * The one interface every file reporter implements (as in Criterion.rs's report.rs): fed the same validated
 * Results, it returns the files it wants written, and never measures or reads anything back from the run.
 */
import type { Results } from '@parallel-course/core';

/** A file a reporter produced, with its path relative to the run folder (forward slashes). */
export interface ReportFile {
  relativePath: string;
  contents: string | Uint8Array;
}

export interface ReportInput {
  results: Results;
  /** Chart id -> PNG path relative to the run folder, so text reports can link images the PNG reporter writes. */
  chartFiles: Readonly<Record<string, string>>;
}

export interface Reporter {
  /** Short name for error messages: "html", "markdown", "png". */
  readonly name: string;
  render(input: ReportInput): Promise<ReportFile[]>;
}

/** Folder of the chart images inside the run folder. */
export const CHARTS_DIR = 'charts';

/** Where the PNG of chart `id` goes, relative to the run folder. Ids are fixed strings from charts.ts. */
export function chartFileName(id: string): string {
  return `${CHARTS_DIR}/${id}.png`;
}
