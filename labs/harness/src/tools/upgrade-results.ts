/**
 * `node labs/harness/src/tools/upgrade-results.ts <run folder or results.json>...`: rewrites version 2, 3 or 4 results
 * files as the current version through the core's upgrade steps (upgradeResults), with what the lab definition declares
 * that version 2 did not record (its sweeps and what one sample is). Every number stays as the run measured it; the
 * file is validated (schema, correctness, every number recomputed) before it is written. Used once to bring the
 * committed reference runs to version 3; a learner's own old run is better re-run. A current file gets its lab's
 * declared sweeps again (declarations, not measurements: after a lab declares a new sweep).
 */
import { writeFileSync } from 'node:fs';
import { checkResults, parseResultsJson, SCHEMA_VERSION, type LabDeclarations, type Results } from '@parallel-course/core';
import { loadLab } from '../lab-registry.ts';
import { resolveResultsFile } from '../write/results-reader.ts';
import { readResultsText } from '../write/safe-read.ts';

/** The declarations of the lab a results file names, for the upgrade step. */
async function labDeclarations(labName: string): Promise<LabDeclarations> {
  const lab = await loadLab(labName);
  const sampleItems = lab.sampleItems?.bind(lab);
  return {
    baseline: lab.baseline,
    sweeps: lab.sweeps,
    ...(sampleItems ? { sampleItems: (c: Parameters<NonNullable<LabDeclarations['sampleItems']>>[0]) => sampleItems(c.params, c.workPerSample) } : {}),
  };
}

/** The results of `file` at the current version; throws when they do not validate after the upgrade. */
async function upgradeFile(file: string): Promise<Results> {
  const text = readResultsText(file);
  const lab = (JSON.parse(text) as { lab?: unknown }).lab;
  const declared = typeof lab === 'string' ? await labDeclarations(lab) : {};
  const parsed = parseResultsJson(text, file, declared);
  const results = declared.sweeps ? { ...parsed, sweeps: declared.sweeps } : parsed;
  const problems = checkResults(results);
  if (problems.length > 0) throw new Error(`${file} does not validate after the upgrade:\n  ${problems.join('\n  ')}`);
  return results;
}

if (import.meta.main) {
  const targets = process.argv.slice(2);
  if (targets.length === 0) {
    console.error('usage: node labs/harness/src/tools/upgrade-results.ts <run folder or results.json>...');
    process.exit(2);
  }
  for (const target of targets) {
    const file = resolveResultsFile(target);
    const results = await upgradeFile(file);
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`${file}: schema version ${SCHEMA_VERSION}`);
  }
}
