/**
 * A run's last stage: the run folder, made now, with results.json and the reports (a temporary folder if that failed
 * us), the lab's own analysis from the results value alone (as `npm run analyse -- <run folder>`), and the summary.
 * In: RunStart, Results, the interrupt guard (told of each folder made). Out: RunLabOutcome.
 */
import path from 'node:path';
import type { Results } from '@parallel-course/core';
import { errorText, EXIT_CHECK_FAILED, EXIT_OK, ReportWriteError } from '../errors.ts';
import { ANALYSIS_FILE, writeAnalysis } from '../analyse/lab-analysis.ts';
import { formatTerminalSummary, HTML_FILE, MARKDOWN_FILE, renderReports } from '../report/index.ts';
import { writeRunFolder } from '../write/results-writer.ts';
import { stdoutSummaryWidth } from '../text-table.ts';
import type { LastStagesGuard } from './interrupt.ts';
import type { RunLabOutcome, RunStart } from './open.ts';

export async function writeRun(start: RunStart, results: Results, guard: Pick<LastStagesGuard, 'made' | 'written'>): Promise<RunLabOutcome> {
  const { outRoot, startedAt, print, definition } = start;
  const lab = start.options.lab;
  start.progress.stage('Writing reports...');
  // Every report rendered first, with nothing on disk (report/: select, draw, render); then the run folder made and
  // written at once (write/). A reporter that throws is a bug in the harness: the results are still written, alone.
  const rendered = await renderReports(results).then((files) => ({ files, failure: null }), (failure: unknown) => ({ files: [], failure }));
  const written = writeRunFolder({ outRoot, lab, startedAt }, results, rendered.files, guard.made);
  // The run is whole on disk from here: a signal during the lab's analysis keeps it (run/interrupt.ts).
  if (!rendered.failure) guard.written(written.dir);
  if (written.fellBack) print(`warning: could not write under ${path.join(outRoot, lab)} (${written.problem}); the results are in ${written.dir} instead.`);
  if (rendered.failure) {
    throw new ReportWriteError(`the reports could not be rendered (${errorText(rendered.failure)}); the results are kept in ${written.dir}`, { cause: rendered.failure });
  }
  // The same loaded definition and the results value: nothing is loaded or read back from the folder just written.
  let analysisLine: string | null = null;
  try {
    const analysis = definition.labAnalysis ? await definition.labAnalysis(results) : null;
    if (analysis) analysisLine = `Analysis: ${path.join(writeAnalysis(written.dir, analysis, results).dir, ANALYSIS_FILE)}`;
  } catch (error) {
    analysisLine = `Analysis: the lab's analysis failed (${(error as Error).message}); the results are kept. Retry with: npm run analyse -- ${written.dir}`;
  }
  const summary = [
    formatTerminalSummary(results, { width: stdoutSummaryWidth() }),
    '',
    `Results: ${path.join(written.dir, 'results.json')}`,
    `Report:  ${path.join(written.dir, HTML_FILE)}`,
    `         ${path.join(written.dir, MARKDOWN_FILE)}`,
    ...(analysisLine ? [analysisLine] : []),
  ].join('\n');
  print(summary);
  const { correctness } = results;
  const anyFailed = correctness.some((e) => !e.passed) || (results.grade !== null && !results.grade.passed);
  return { exitCode: anyFailed ? EXIT_CHECK_FAILED : EXIT_OK, results, runDir: written.dir, correctness, summary };
}
