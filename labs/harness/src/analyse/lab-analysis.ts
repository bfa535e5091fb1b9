/**
 * Stage 7, the lab's own analysis of a finished run (LabDefinition.labAnalysis), the same for every lab: at the end of
 * `npm run lab`, and again whenever asked with `npm run analyse -- <run folder>`. It reads the validated results,
 * never the learner's code, and writes into a NEW folder of the run (analysis/, then analysis-2/, ...): a run folder's
 * files are never replaced. (Not the statistics stage, whose medians and intervals every lab gets alike: this is the
 * lab's own reading of them.)
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { buildAnalysisValues, VALUES_FILE } from '@parallel-course/core';
import type { LabAnalysis } from '../lab-definition.ts';
import { loadLab } from '../lab-registry.ts';
import { readResults } from '../write/results-reader.ts';
import type { Results } from '@parallel-course/core';
import { writeFileAtomic } from '../write/results-writer.ts';

export const ANALYSIS_FILE = 'analysis.md';

/** A new, empty analysis folder in `runDir`: `analysis`, else `analysis-2`, `analysis-3`... */
function createAnalysisDir(runDir: string): string {
  for (let n = 1; n < 1000; n++) {
    const dir = path.join(runDir, n === 1 ? 'analysis' : `analysis-${n}`);
    try {
      mkdirSync(dir); // not recursive: EEXIST instead of reusing a folder
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`could not create a new analysis folder in ${runDir}`);
}

/**
 * Writes an analysis into a new folder of the run; returns the folder and every file written: analysis.md, the
 * lab's files, and always values.json (core's analysis-values.ts: the lab's values and tables, empty records when it gives
 * none), validated before anything is written. `run` is the run's lab and startedAt; read from the run folder's
 * results.json when not given.
 */
export function writeAnalysis(runDir: string, analysis: LabAnalysis, run?: Pick<Results, 'lab' | 'startedAt'>): { dir: string; files: string[] } {
  for (const file of analysis.files) {
    if (file.name !== path.basename(file.name) || file.name === ANALYSIS_FILE || file.name === VALUES_FILE || file.name.startsWith('.')) {
      throw new Error(`a lab's analysis may not write '${file.name}': plain file names only, and not ${ANALYSIS_FILE} or ${VALUES_FILE}`);
    }
  }
  const values = buildAnalysisValues(run ?? readResults(runDir).results, analysis);
  const dir = createAnalysisDir(runDir);
  const files = [path.join(dir, ANALYSIS_FILE), path.join(dir, VALUES_FILE), ...analysis.files.map((f) => path.join(dir, f.name))];
  writeFileAtomic(files[0]!, `${analysis.text.trimEnd()}\n`);
  writeFileAtomic(files[1]!, `${JSON.stringify(values, null, 2)}\n`);
  for (const [i, f] of analysis.files.entries()) writeFileAtomic(files[i + 2]!, f.contents);
  return { dir, files };
}

/** Runs the lab's analysis of `results`; null when the lab declares none. */
export async function runLabAnalysis(results: Results, rootDir?: string): Promise<LabAnalysis | null> {
  const lab = await loadLab(results.lab, rootDir);
  return lab.labAnalysis ? lab.labAnalysis(results) : null;
}
