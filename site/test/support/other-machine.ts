/**
 * Runs "from a different machine" for the COURSE_RUNS tests (issue 20): copies of the reference runs of some labs,
 * laid out as an `npm run lab -- --all` bundle, with `environment.cpuModel` set to a distinctive name. The CPU model is
 * not among the numbers `npm run report -- validate` recomputes, so the copies still validate.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRunFolders } from '@parallel-course/harness/site.ts';

export const REFERENCE = fileURLToPath(new URL('../../../reference/', import.meta.url));
export const OTHER_CPU = 'Imaginary Test CPU 9000 (COURSE_RUNS test)';

/** `<dir>/results/all/<time>/<lab>/<time>/` for each of `labs`; returns `<dir>/results`. */
export function otherMachineRuns(dir: string, labs: readonly string[], cpuModel = OTHER_CPU): string {
  const root = path.join(dir, 'results');
  const bundle = path.join(root, 'all', '2030-01-01T00-00-00-000Z');
  for (const lab of labs) {
    const from = findRunFolders(REFERENCE, lab).at(-1);
    if (!from) throw new Error(`no reference run of ${lab} in ${REFERENCE}`);
    const to = path.join(bundle, lab, path.basename(from));
    cpSync(from, to, { recursive: true });
    const file = path.join(to, 'results.json');
    const results = JSON.parse(readFileSync(file, 'utf8'));
    results.environment.cpuModel = cpuModel;
    writeFileSync(file, JSON.stringify(results));
  }
  return root;
}
