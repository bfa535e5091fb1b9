/**
 * Which files of a class folder are submissions. `class-array.sbatch` keeps whole run folders
 * (<name>/<lab>/<time>/results.json with analysis/values.json beside it); `npm run class` on that folder must see one
 * submission per run, not the analysis values as invalid ones (found on a real Slurm: 3 runs read as 1 valid, 3 invalid).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findSubmissionFiles } from '../src/tools/class-page.ts';
import { tempDir } from './support/temp-dir.ts';

test('a run folder is one submission: its analysis/values.json, report.json and prediction.json are not', (t) => {
  const dir = tempDir(t, 'harness-class-files-');
  const run = path.join(dir, 'alice', 'sums', '2026-12-03T21-02-19-393Z');
  mkdirSync(path.join(run, 'analysis'), { recursive: true });
  for (const file of ['results.json', 'analysis/values.json', 'report.json', 'prediction.json']) writeFileSync(path.join(run, file), '{}');
  // A learner who hands in a file named values.json outside a run's analysis folder still counts.
  writeFileSync(path.join(dir, 'values.json'), '{}');
  assert.deepEqual(findSubmissionFiles(dir), [path.join(run, 'results.json'), path.join(dir, 'values.json')]);
});
