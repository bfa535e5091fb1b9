/**
 * Writes the learner's report for some run folders into a new folder `<outRoot>/reports/<timestamp>/`:
 * report.md + charts/*.png, report.html (self-contained) and report.json. Nothing existing is replaced.
 * Each run folder gets its notes.md template if it has none yet (written once, never overwritten).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { CHART_HEIGHT, CHART_WIDTH } from '../report/index.ts';
import { buildCharts } from '../report/charts.ts';
import { renderChartPng } from '../report/png.ts';
import { readResults } from '../write/results-reader.ts';
import { createRunDir, writeFileAtomic } from '../write/results-writer.ts';
import { buildLearnerReport, toMachineReadable, type LearnerReport, type RunInput } from './learner-report.ts';
import { ensureNotes, readNotes } from '../write/notes.ts';
import { readPrediction } from '../write/prediction.ts';
import { chartPath, renderHtml, renderMarkdown } from './render-report.ts';
import { reportDocument } from './report-document.ts';

export interface WrittenReport {
  dir: string;
  markdown: string;
  html: string;
  json: string;
  pngs: string[];
  /** notes.md files created now (empty templates the learner should fill in). */
  notesCreated: string[];
  report: LearnerReport;
}

/** Reads each run (validated), builds the report (or refuses with the reasons), renders and writes it. */
export async function writeLearnerReport(runTargets: string[], outRoot: string, now = new Date()): Promise<WrittenReport> {
  const notesCreated: string[] = [];
  const inputs: RunInput[] = runTargets.map((target) => {
    const { runDir, results } = readResults(target);
    return { runDir, results, notes: readNotes(runDir), prediction: readPrediction(runDir) };
  });
  // Build (and so validate) everything before writing anything.
  const report = buildLearnerReport(inputs, now);
  const blocks = reportDocument(report);
  const pngs = new Map<string, Uint8Array>();
  for (const [i, run] of report.runs.entries()) {
    for (const spec of buildCharts(run.results)) {
      pngs.set(chartPath(i, spec.id), await renderChartPng(spec.config, CHART_WIDTH, CHART_HEIGHT));
    }
  }
  const markdown = renderMarkdown(blocks);
  const html = renderHtml(blocks, pngs);

  for (const input of inputs) {
    const notes = ensureNotes(input.runDir, input.results.lab, input.results.startedAt);
    if (notes.created) notesCreated.push(notes.file);
  }
  const dir = createRunDir(outRoot, 'reports', now);
  mkdirSync(path.join(dir, 'charts'));
  const written: string[] = [];
  for (const [relative, bytes] of pngs) {
    const file = path.join(dir, relative);
    writeFileAtomic(file, bytes);
    written.push(file);
  }
  const files = { markdown: path.join(dir, 'report.md'), html: path.join(dir, 'report.html'), json: path.join(dir, 'report.json') };
  writeFileAtomic(files.markdown, markdown);
  writeFileAtomic(files.html, html);
  writeFileAtomic(files.json, `${JSON.stringify(toMachineReadable(report), null, 2)}\n`);
  return { dir, ...files, pngs: written, notesCreated, report };
}
