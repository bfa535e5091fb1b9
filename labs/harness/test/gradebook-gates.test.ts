/**
 * What the gradebook never calls a pass (issue 42): a graded run in which a case failed its check (the gradebook
 * showed "pass" on such a row), and a results file from a browser page, whose clock belongs to the page's scripts
 * (a page script that slowed performance.now turned 0.27x into 1.87x, and the file validated). Both tests failed on
 * the code before (checked: grade 'pass' with status 'check-failed'; status 'ok' for the browser file, and a grade
 * added to it raised no problem).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runLab } from '../src/run/run-lab.ts';
import { gradebookRow } from '../src/tools/gradebook.ts';
import { validateSubmission } from '../src/tools/validate.ts';
import { tempRoot } from './support/temp-root.ts';
import { replaceOnce } from './support/replace-once.ts';

const BROWSER = fileURLToPath(new URL('./fixtures/results-browser-native-kernel.json', import.meta.url));

test('a graded run with a case that failed its check is never a pass in the gradebook', async (t) => {
  const root = tempRoot('faults-root', 'harness-gradebook-', t);
  const lab = path.join(root, 'labs', 'faulty', 'src', 'lab.ts');
  // The second correct variant answers wrong: its check fails; the graded learner case is the reference's own code.
  writeFileSync(lab, replaceOnce(readFileSync(lab, 'utf8'), "variant('steady', (xs) => [xs.reduce((s, x) => s + x * x, 0)])", "variant('steady', (xs) => [xs.reduce((s, x) => s + x * x, 1)])"));
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), readFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), 'utf8'));
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: { warmupSamples: 1, rounds: 3, samplesPerRound: 3 }, silent: true, rootDir: root, grade: true, forks: 2 });
  assert.ok(outcome.runDir, 'the run was written');
  assert.equal(outcome.correctness.find((e) => e.variant === 'steady')?.passed, false);
  const row = gradebookRow('ada', path.join(outcome.runDir, 'results.json'), { courseRoot: root });
  assert.equal(row.status, 'check-failed');
  assert.equal(row.grade, 'fail');
});

test('a browser results file is self-reported in the gradebook, and a grade in it is a problem', () => {
  const row = gradebookRow('ada', BROWSER);
  assert.equal(row.status, 'self-reported');
  assert.equal(row.grade, 'none');
  assert.match(row.problem, /^self-reported: measured in a browser page/);
  const data = JSON.parse(readFileSync(BROWSER, 'utf8'));
  data.grade = { target: 0.9, targetText: 't', entries: [], passed: true, oversubscribed: false };
  const check = validateSubmission(data, 'graded browser run');
  assert.ok(check.problems.some((p) => p.startsWith('grade: a run in a browser page is self-reported')), check.problems.join('\n'));
});
