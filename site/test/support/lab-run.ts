/**
 * Produces a real results.json for the results-viewer test by running the harness the way a learner does:
 * `npm run lab -- event-loop --impl solution --quick --out <tmp>` from the repository root (about a minute).
 * SITE_TEST_RESULTS=<path to a results.json> skips the run and uses that file (for quick local iterations).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface LabRunFile {
  /** Path of the results.json. */
  file: string;
  /** Removes the run's temporary folder (a no-op for a file given by SITE_TEST_RESULTS). */
  cleanup(): void;
}

export function realResultsFile(lab = 'event-loop'): LabRunFile {
  const given = process.env['SITE_TEST_RESULTS'];
  if (given) return { file: given, cleanup: () => {} };
  const out = mkdtempSync(join(tmpdir(), 'site-test-results-'));
  const cleanup = (): void => rmSync(out, { recursive: true, force: true });
  const run = spawnSync('npm', ['run', 'lab', '--', lab, '--impl', 'solution', '--quick', '--out', out], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 5 * 60_000,
  });
  if (run.status !== 0) {
    cleanup();
    throw new Error(
      `the lab run for the results-viewer test failed (exit ${run.status}, signal ${run.signal}):\n` +
        `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`,
    );
  }
  const labDir = join(out, lab);
  const runs = existsSync(labDir) ? readdirSync(labDir).sort() : [];
  const latest = runs.at(-1);
  const file = latest === undefined ? '' : join(labDir, latest, 'results.json');
  if (!existsSync(file)) {
    cleanup();
    throw new Error(`the lab run exited 0 but wrote no results.json under ${labDir}`);
  }
  return { file, cleanup };
}
