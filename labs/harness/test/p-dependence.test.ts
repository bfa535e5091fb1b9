/**
 * CI reruns only the test files that can see P (test/support/p-dependence.ts) with COURSE_CPUS=1 and 64. These keep
 * that rule honest: it flags what it must on examples, and P has no door into lab code that the rule does not know.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { labTestFiles, PINNABLE_ENTRIES, pDependentTests, pReasons, UNPINNED_ENTRIES } from './support/p-dependence.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

test('the rule flags each way a test can see P, and passes a pinned run', () => {
  assert.deepEqual(pReasons("await runLab({ lab: 'toy', impl: 'solution', quick: true, sampling: tiny });"), ['calls runLab without cpus']);
  assert.deepEqual(pReasons("await runLab({ lab: 'toy', impl: 'solution', quick: true, cpus: 2 });"), []);
  assert.deepEqual(pReasons("const cpus = 2; await runLab({ lab: 'toy', sampling: f(1), cpus });"), []);
  assert.deepEqual(pReasons("await runBundle({ labs, outRoot, quick: true });"), ['calls runBundle without cpus']);
  assert.deepEqual(pReasons("await runBundle({ labs, cpus: 2 });"), []);
  assert.deepEqual(pReasons('await checkLab({ lab });'), ['calls checkLab without cpus']);
  assert.deepEqual(pReasons('await checkLab({ lab, cpus: 2 });'), []);
  assert.deepEqual(pReasons('watchLab({ lab });'), ["calls watchLab (always the environment's P)"]);
  assert.deepEqual(pReasons("const env = { ...process.env, COURSE_CPUS: '8' };"), ['names COURSE_CPUS']);
  assert.deepEqual(pReasons('const env = { ...process.env };\ndelete env.COURSE_CPUS;'), []);
  assert.deepEqual(pReasons('delete env.COURSE_CPUS;\nif (process.env.COURSE_CPUS) skip();'), ['names COURSE_CPUS']);
  assert.deepEqual(pReasons('const b = cpuBudget();'), ['calls cpuBudget() without a count']);
  assert.deepEqual(pReasons('const b = cpuBudget(undefined, {}, fake);'), []);
  // Comments do not count: "runLab(" in prose is not a call.
  assert.deepEqual(pReasons('// runLab( would plan for P\n/* checkLab( too */\nconst x = 1;'), []);
});

test('the rule reads the CLI: --cpus in the same argument list pins P, anything else does not', () => {
  const cli = "const CLI = fileURLToPath(new URL('../../harness/src/cli.ts', import.meta.url));\n";
  assert.deepEqual(pReasons(`${cli}spawnSync(process.execPath, [CLI, 'toy', '--quick', '--cpus', '2']);`), []);
  assert.deepEqual(pReasons(`${cli}spawnSync(process.execPath, [CLI, 'toy', '--quick']);`), ['runs src/cli.ts without --cpus']);
  assert.deepEqual(pReasons(`${cli}run(CLI, ['toy', '--cpus', '2']);`), ['runs src/cli.ts without --cpus']);
  assert.deepEqual(pReasons("node([path.join(ROOT, 'labs/harness/src/cli.ts'), '--list']);"), ['runs src/cli.ts in a way this rule cannot read']);
  assert.deepEqual(pReasons("import { parseCommand } from '../src/cli.ts';\nparseCommand(['toy']);"), []);
  assert.deepEqual(pReasons("import { main, parseCommand } from '../src/cli.ts';\nawait main(['toy']);"), ["imports the CLI's main"]);
});

test('P has no other door: COURSE_CPUS is read in cpus.ts alone, cpuBudget and the run entries are called where the rule expects', () => {
  const sources = sourceFiles(path.join(ROOT, 'labs')).filter((file) => /^labs\/[^/]+\/src\//.test(path.relative(ROOT, file))).map((file) => ({ file: path.relative(ROOT, file), code: readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '') }));
  assert.ok(sources.length > 50, 'the lab sources were found');
  const callers = (pattern: RegExp) => sources.filter((s) => pattern.test(s.code)).map((s) => s.file).sort();
  const fix = 'a new way for P to reach a test: add it to test/support/p-dependence.ts, then here';
  assert.deepEqual(callers(/process\.env(\.COURSE_CPUS|\[['"]COURSE_CPUS)|env\.COURSE_CPUS/), ['labs/harness/src/machine/cpus.ts'], fix);
  // cli.ts: --status keys its cache by P (a run through the CLI without --cpus is P-dependent already).
  assert.deepEqual(callers(/\bcpuBudget\(/), ['labs/harness/src/cli.ts', 'labs/harness/src/machine/cpus.ts', 'labs/harness/src/run/open.ts', 'labs/harness/src/run/run-lab.ts'], fix);
  const entries = new RegExp(`\\b(${[...PINNABLE_ENTRIES, ...UNPINNED_ENTRIES].join('|')})\\(`);
  assert.deepEqual(
    callers(entries),
    ['labs/harness/src/cli.ts', 'labs/harness/src/cli/bundle.ts', 'labs/harness/src/cli/status.ts', 'labs/harness/src/cli/watch.ts', 'labs/harness/src/run/run-lab.ts'],
    fix,
  );
});

test("the files CI reruns at P = 1 and 64 are the lab tests that can see P, and the labs' real runs are not among them", () => {
  // npm test's glob is labs/*/test/**/*.test.ts: the rule reads every file it runs.
  const nested = sourceFiles(path.join(ROOT, 'labs')).filter((f) => f.endsWith('.test.ts') && !/^labs\/[^/]+\/test\/[^/]+$/.test(path.relative(ROOT, f)));
  assert.deepEqual(nested, [], 'a test below labs/<lab>/test/ itself: labTestFiles must read it too');
  const dependent = pDependentTests().map((t) => t.file);
  assert.ok(dependent.length < labTestFiles().length, 'not every file');
  for (const file of ['labs/harness/test/cpus.test.ts', 'labs/harness/test/status.test.ts', 'labs/harness/test/watch.test.ts']) {
    assert.ok(dependent.includes(file), `${file} reads P`);
  }
  // Each of these runs a real lab and plans it for 2 CPUs itself: running it again at P = 1 and 64 repeats it.
  for (const file of ['labs/event-loop/test/event-loop.test.ts', 'labs/gpu-batching/test/lab.test.ts', 'labs/native-kernel/test/smoke.test.ts', 'labs/task-granularity/test/smoke.test.ts', 'labs/task-granularity/test/supervised.test.ts', 'labs/task-graph/test/smoke.test.ts', 'labs/harness/test/supervision.test.ts']) {
    assert.ok(!dependent.includes(file), `${file} pins P`);
  }
});

/** Every .ts file under `dir`, skipping node_modules and test fixtures (copies of lab folders, not tests). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'fixtures') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}
