/**
 * The course's reference runs (reference/, issue 20): every number the site shows is rendered from them, so every
 * committed run must pass what `npm run report -- validate` checks (schema, correctness, every number recomputed from
 * the samples) and carry a valid analysis/values.json of the same run; and the tool that makes them
 * (`npm run reference`) copies only what it should, regenerates the analysis and refuses a run that does not validate.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { runLabAnalysis } from '../src/analyse/lab-analysis.ts';
import { buildAnalysisValues } from '@parallel-course/core';
import { ROOT_DIR, labNames } from '../src/lab-registry.ts';
import { checkRunFolder, findRunFolders, labsWithRuns } from '../src/tools/run-folders.ts';
import { recomputeValuesInChild } from '../src/tools/recompute-values.ts';
import { currentReference, makeReference, referenceReadme } from '../src/tools/reference-cli.ts';
import { tempDir } from './support/temp-dir.ts';

const REFERENCE = path.join(ROOT_DIR, 'reference');

// Checking a run folder recomputes every number from the samples (seconds per run): once per folder for this file.
const checkedRuns = new Map<string, ReturnType<typeof checkRunFolder>>();
function checkedRun(dir: string): ReturnType<typeof checkRunFolder> {
  let checked = checkedRuns.get(dir);
  if (!checked) {
    checked = checkRunFolder(dir, { requireValues: true });
    checkedRuns.set(dir, checked);
  }
  return checked;
}

test('every lab has a reference run, and every committed run validates with its values.json', () => {
  assert.deepEqual(labsWithRuns(REFERENCE), labNames(), 'reference/ holds a run of every lab (npm run reference -- <bundle>)');
  for (const lab of labNames()) {
    const runs = findRunFolders(REFERENCE, lab);
    assert.equal(runs.length, 1, `reference/${lab} holds one run`);
    for (const dir of runs) {
      const checked = checkedRun(dir);
      assert.deepEqual(checked.problems, [], `${path.relative(ROOT_DIR, dir)} validates`);
      assert.equal(checked.results?.lab, lab);
      assert.equal(checked.results?.impl, 'solution', `${path.relative(ROOT_DIR, dir)} is a run of the solution`);
      const files = readdirSync(dir).sort();
      assert.deepEqual(
        files.filter((f) => !['analysis', 'notes.md', 'report.md', 'results.json'].includes(f)),
        [],
        `${path.relative(ROOT_DIR, dir)} keeps only results.json, notes.md, report.md and analysis/`,
      );
    }
  }
  const readme = readFileSync(path.join(REFERENCE, 'README.md'), 'utf8');
  for (const run of currentReference(REFERENCE)) assert.ok(readme.includes(path.relative(REFERENCE, run.dir)), `reference/README.md names ${run.dir}`);
});

/** Issue 45: a reference run starts on a settled machine, its 1-minute load average below this (reference/README.md). */
const QUIET_LOAD = 0.5;

test('every reference run started on a quiet machine (1-minute load average under 0.5 at its start)', () => {
  for (const lab of labNames()) {
    for (const dir of findRunFolders(REFERENCE, lab)) {
      const load = checkedRun(dir).results?.environment.loadAverage?.[0];
      assert.ok(load !== undefined, `${path.relative(ROOT_DIR, dir)} records no load average`);
      assert.ok(
        load < QUIET_LOAD,
        `${path.relative(ROOT_DIR, dir)} started at a 1-minute load of ${load}: remake it on a settled machine as reference/README.md says`,
      );
    }
  }
});

test("every reference run's values.json is what the lab's analysis gives now (regenerated after each change)", async () => {
  for (const lab of labNames()) {
    for (const dir of findRunFolders(REFERENCE, lab)) {
      const checked = checkedRun(dir);
      const fresh = buildAnalysisValues(checked.results!, await runLabAnalysis(checked.results!, ROOT_DIR));
      assert.deepEqual(
        checked.values,
        JSON.parse(JSON.stringify(fresh)),
        `${path.relative(ROOT_DIR, dir)}/analysis/values.json is out of date with labs/${lab}'s analysis: run "npm run reference -- reference --lab ${lab}" and commit reference/${lab}`,
      );
    }
  }
});

test('npm run reference: copies the newest valid run of each lab, regenerates analysis/ with values.json, leaves the rest', async (t) => {
  const tmp = tempDir(t, 'course-reference-');
  const source = path.join(tmp, 'results');
  const out = path.join(tmp, 'reference');
  const from = findRunFolders(REFERENCE, 'event-loop').at(-1)!;
  const good = path.join(source, 'all', '2026-01-01T00-00-00-000Z', 'event-loop', '2026-01-01T00-00-00-001Z');
  cpSync(from, good, { recursive: true });
  mkdirSync(path.join(good, 'charts'));
  writeFileSync(path.join(good, 'charts', 'speedup.png'), 'png');
  writeFileSync(path.join(good, 'report.html'), '<html>');
  // A newer run whose numbers were edited: it must be skipped, with its reason.
  const edited = path.join(source, 'event-loop', '2026-01-02T00-00-00-000Z');
  mkdirSync(edited, { recursive: true });
  const results = JSON.parse(readFileSync(path.join(from, 'results.json'), 'utf8'));
  results.headline.speedup *= 2;
  writeFileSync(path.join(edited, 'results.json'), JSON.stringify(results));

  const entries = await makeReference(source, out, ROOT_DIR, ['event-loop']);
  assert.equal(entries.length, 1);
  const [entry] = entries;
  assert.deepEqual(entry!.problems, []);
  assert.equal(entry!.from, good);
  assert.equal(entry!.to, path.join(out, 'event-loop', '2026-01-01T00-00-00-001Z'));
  const copied = readdirSync(entry!.to!).sort();
  assert.ok(copied.includes('results.json') && copied.includes('analysis'), copied.join(', '));
  assert.ok(!copied.includes('charts') && !copied.includes('report.html'), `no charts/ or report.html: ${copied.join(', ')}`);
  assert.ok(existsSync(path.join(entry!.to!, 'analysis', 'values.json')));
  assert.deepEqual(checkRunFolder(entry!.to!, { requireValues: true }).problems, []);

  const readme = referenceReadme(entries, out, currentReference(out));
  assert.match(readme, /npm run reference -- results\/all\/<time>\//);
  assert.match(readme, /\| event-loop \| `event-loop\/2026-01-01T00-00-00-001Z` \|/);
  // The model as text, not a pattern: Intel's carries '(R)', which a RegExp reads as a group.
  assert.ok(readme.includes(`Machine: ${entry!.results!.environment.cpuModel}`), readme);

  // Only an edited run left: nothing valid, the earlier reference stays as it was.
  const source2 = path.join(tmp, 'only-edited');
  cpSync(edited, path.join(source2, 'event-loop', path.basename(edited)), { recursive: true });
  const [again] = await makeReference(source2, out, ROOT_DIR, ['event-loop']);
  assert.equal(again!.to, null);
  assert.match(again!.problems.join('\n'), /headline\.speedup is .* but the samples give/);
  assert.ok(existsSync(entry!.to!), 'the earlier reference run is kept');
});

test("every reference run's values.json is what this version of its lab's analysis computes (rerun `npm run reference` when an analysis changes)", () => {
  for (const lab of labNames()) {
    for (const dir of findRunFolders(REFERENCE, lab)) {
      const inFile = checkedRun(dir).values;
      assert.notEqual(inFile, null);
      assert.deepEqual(inFile, recomputeValuesInChild(dir), `${path.relative(ROOT_DIR, dir)}: values.json and its recomputation`);
    }
  }
});
