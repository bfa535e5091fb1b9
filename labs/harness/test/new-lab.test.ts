/**
 * `npm run new-lab` (tools/new-lab.ts, issue 41): the lab it writes into a throw-away copy of the repository's
 * layout is real: it has the common shape (support/lab-shape.ts, what lab-shape.test.ts checks of every lab) once
 * its episode exists, it plans within the run budgets at the course machine's rates (what plan.test.ts asks of every
 * lab), it type-checks, a --quick run of its solution checks and measures, its exercise fails with "not implemented"
 * naming the file, and its own generated test passes. Bad input (a taken or malformed name, a bad title) is refused
 * with a message naming the fix, exit code 2, and nothing written.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runScriptSync } from '../src/child-process.ts';
import { exitCodeFor, EXIT_USAGE, UsageError } from '../src/errors.ts';
import { labNames, loadLab, ROOT_DIR } from '../src/lab-registry.ts';
import { planLoadedLab } from '../src/plan/plan-lab.ts';
import { DEFAULT_SEED, runLab } from '../src/run/run-lab.ts';
import { main, scaffoldLab } from '../src/tools/new-lab.ts';
import { checkLabShape } from './support/lab-shape.ts';
import { tempDir } from './support/temp-dir.ts';

const NEW_LAB = path.join(ROOT_DIR, 'labs/harness/src/tools/new-lab.ts');
const TINY = { warmupSamples: 0, rounds: 1, samplesPerRound: 2 };

/**
 * An empty course layout in the OS temp folder: labs/, exercises/, solutions/, episodes/, the root tsconfig.json, a
 * package.json that makes .ts files ES modules, and node_modules linked to this checkout's (so `@parallel-course/*`
 * resolves to this harness).
 */
function emptyRoot(t: Parameters<typeof tempDir>[0]): string {
  const root = tempDir(t, 'new-lab-');
  for (const dir of ['labs', 'exercises', 'solutions', 'episodes']) mkdirSync(path.join(root, dir));
  copyFileSync(path.join(ROOT_DIR, 'tsconfig.json'), path.join(root, 'tsconfig.json'));
  writeFileSync(path.join(root, 'package.json'), '{ "private": true, "type": "module" }\n');
  symlinkSync(path.join(ROOT_DIR, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return root;
}

/** Every file and folder under `root` except node_modules, sorted: to prove that a refusal wrote nothing. */
function tree(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => !path.join(d.parentPath, d.name).includes('node_modules'))
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)))
    .sort();
}

test('new-lab writes a lab that has the common shape, plans within budget, type-checks and runs', { timeout: 120_000 }, async (t) => {
  const root = emptyRoot(t);
  const made = scaffoldLab({ name: 'prefix-sums', title: "Prefix sums: Blelloch's scan, $& \\ kept", rootDir: root });
  assert.deepEqual(made.files, [
    'labs/prefix-sums/package.json',
    'labs/prefix-sums/tsconfig.json',
    'labs/prefix-sums/README.md',
    'labs/prefix-sums/src/lab.ts',
    'labs/prefix-sums/src/learner-files.ts',
    'labs/prefix-sums/src/workload.ts',
    'labs/prefix-sums/src/estimates.ts',
    'labs/prefix-sums/test/prefix-sums.test.ts',
    'exercises/prefix-sums/prefix-sums.ts',
    'solutions/prefix-sums/prefix-sums.ts',
  ]);
  assert.deepEqual(labNames(root), ['prefix-sums']);
  const lab = await loadLab('prefix-sums', root);
  assert.equal(lab.title, "Prefix sums: Blelloch's scan, $& \\ kept", 'a quote, a backslash and a $& in the title survive as a string literal');

  // The shape: everything but the episode, which the scaffold leaves to the maintainer (its first next step).
  await assert.rejects(checkLabShape('prefix-sums', root), { message: /^its episode episodes\/prefix-sums\.mdx exists/ });
  assert.match(made.nextSteps[0]!, /^Write the lab's episode: .*`lab: prefix-sums` in its frontmatter/);
  writeFileSync(path.join(root, 'episodes', 'prefix-sums.mdx'), '---\ntitle: Prefix sums\nlab: prefix-sums\n---\n');
  await checkLabShape('prefix-sums', root);

  // The plan at the course machine's rates, as plan.test.ts asks of every lab: every case estimated, within budget.
  for (const quick of [false, true]) {
    for (const p of [1, 2, 64]) {
      const plan = planLoadedLab(lab, { lab: 'prefix-sums', impl: 'solution', quick, p, seed: DEFAULT_SEED, rootDir: root, rates: 'course' });
      assert.ok(plan, 'the lab declares planning');
      assert.deepEqual(plan.fit.asked.unestimated, [], `P=${p}: every case has an estimate`);
      assert.ok(plan.fit.withinBudget, `P=${p} ${quick ? 'quick' : 'full'}: within the run budget`);
    }
  }

  // It type-checks under the course's compiler settings (the copied root tsconfig.json).
  const tsc = runScriptSync({ script: path.join(ROOT_DIR, 'node_modules/typescript/bin/tsc'), args: ['--noEmit', '-p', root], cwd: root, timeoutMs: 60_000 });
  assert.equal(tsc.exitCode, 0, `tsc: ${tsc.stdout}${tsc.stderrTail}`);

  // A --quick run of the solution checks and measures both variants; the exercise fails kindly, naming its file.
  const solution = await runLab({ lab: 'prefix-sums', impl: 'solution', quick: true, rootDir: root, outDir: path.join(root, 'results'), sampling: TINY, silent: true, cpus: 2 });
  assert.equal(solution.exitCode, 0, solution.summary);
  assert.deepEqual(solution.results?.cases.map((c) => c.variant).sort(), ['learner', 'serial']);
  assert.ok(solution.results?.cases.every((c) => c.samplesMs.length === 2), 'two timed samples a case');
  const exercise = await runLab({ lab: 'prefix-sums', impl: 'exercise', quick: true, rootDir: root, outDir: path.join(root, 'results'), sampling: TINY, silent: true, cpus: 2 });
  assert.equal(exercise.exitCode, 1);
  const failed = exercise.correctness.filter((c) => !c.passed);
  assert.ok(failed.length > 0 && failed.every((c) => c.variant === 'learner'), JSON.stringify(exercise.correctness));
  for (const c of failed) assert.match(c.reason ?? '', /^not implemented: sumOfSquares in exercises\/prefix-sums\/prefix-sums\.ts \(/);

  // The lab's own generated test passes where it was written (run as a script, outside this runner's context).
  const env = { ...process.env };
  delete env['NODE_TEST_CONTEXT'];
  const own = runScriptSync({ script: path.join(root, 'labs/prefix-sums/test/prefix-sums.test.ts'), cwd: root, env, timeoutMs: 100_000 });
  assert.equal(own.exitCode, 0, `${own.stdout}${own.stderrTail}`);
  assert.match(own.stdout, /^\S* ?pass 2$/m);
  assert.match(own.stdout, /^\S* ?fail 0$/m);
});

test('new-lab refuses a taken or malformed name and a bad title with exit code 2, and writes nothing', (t) => {
  const root = emptyRoot(t);
  mkdirSync(path.join(root, 'labs', 'taken'));
  mkdirSync(path.join(root, 'exercises', 'half-done'));
  writeFileSync(path.join(root, 'exercises', 'half-done', 'half-done.ts'), '// an earlier try\n');
  const before = tree(root);
  const refusals: Array<[name: string, title: string | undefined, message: RegExp]> = [
    ['taken', undefined, /^labs\/taken already exists: choose another name, or remove labs\/taken first/],
    ['half-done', undefined, /^exercises\/half-done already exists: choose another name/],
    ['Prefix-Sums', undefined, /^'Prefix-Sums' is not a lab name: use lower-case letters and digits, words joined by single dashes/],
    ['prefix_sums', undefined, /^'prefix_sums' is not a lab name/],
    ['prefix--sums', undefined, /^'prefix--sums' is not a lab name/],
    ['-x', undefined, /^'-x' is not a lab name/],
    ['2d-stencil', undefined, /^'2d-stencil' is not a lab name: .*starting with a letter/],
    ['../escape', undefined, /^'\.\.\/escape' is not a lab name/],
    ['harness', undefined, /^'harness' is reserved .*: choose another name/],
    ['site', undefined, /^'site' is reserved/],
    [`a${'-b'.repeat(20)}`, undefined, /is 41 characters long: a lab name has at most 40; choose a shorter one/],
    ['fine-name', '   ', /^--title must be one non-empty line .*: e\.g\. --title "/],
    ['fine-name', 'two\nlines', /^--title must be one non-empty line/],
  ];
  for (const [name, title, message] of refusals) {
    assert.throws(() => scaffoldLab({ name, rootDir: root, ...(title !== undefined ? { title } : {}) }), (error: unknown) => {
      assert.ok(error instanceof UsageError, `${name}: a UsageError`);
      assert.equal(exitCodeFor(error), EXIT_USAGE);
      assert.match(error.message, message);
      return true;
    });
  }
  assert.deepEqual(tree(root), before, 'nothing was written');

  // A folder that is not the course's root (no exercises/ and solutions/ beside labs/).
  const elsewhere = tempDir(t, 'new-lab-elsewhere-');
  mkdirSync(path.join(elsewhere, 'labs'));
  assert.throws(() => scaffoldLab({ name: 'fine-name', rootDir: elsewhere }), { name: 'UsageError', message: /exercises does not exist: run this from the course's repository root$/ });
  assert.deepEqual(tree(elsewhere), ['labs'], 'nothing was written');
});

test('new-lab on the command line: --help, a missing name, and an existing lab of this checkout (exit 2, nothing written)', async () => {
  const labDir = path.join(ROOT_DIR, 'labs', 'task-graph');
  const before = tree(labDir);
  const taken = runScriptSync({ script: NEW_LAB, args: ['task-graph'], timeoutMs: 30_000 });
  assert.equal(taken.exitCode, 2);
  assert.match(taken.stderrTail, /^error: labs\/task-graph already exists: choose another name/);
  assert.equal(taken.stdout, '');
  assert.deepEqual(tree(labDir), before, 'nothing was written into labs/task-graph');

  const help = runScriptSync({ script: NEW_LAB, args: ['--help'], timeoutMs: 30_000 });
  assert.equal(help.exitCode, 0);
  assert.match(help.stdout, /^Usage: npm run new-lab -- <name> \[--title "<title>"\]/);

  await assert.rejects(main([]), { name: 'UsageError', message: /^name the new lab\nUsage: npm run new-lab/ });
  await assert.rejects(main(['one', 'two']), { name: 'UsageError', message: /^one lab at a time: got one, two/ });
  await assert.rejects(main(['x', '--colour', 'red']), { name: 'UsageError', message: /Unknown option '--colour'/ });
});
