/**
 * The harness's public face: package.json exports four entries, each for one kind of importer, and nothing else, so a
 * deep import fails (node: ERR_PACKAGE_PATH_NOT_EXPORTED; tsc: cannot find module) and here, naming the entry to use.
 * Read from the import specifiers of every package beside the harness (labs, site, exercises, solutions, episodes).
 * What each entry loads is checked too, by following its static imports: the labs' API loads none of the judge's
 * stages, and the learner's entry (in every fresh thread or process that runs learner code) not even the core.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The entries ('' is '.'), each with who imports it and why it is an entry of its own (docs/architecture.md). */
const ENTRIES: Record<string, string> = {
  '': "the labs' API: what a lab package imports to define, plan, check and analyse itself",
  'learner.ts': 'learner code and the threads and processes that run it: light, never the core',
  'site.ts': "the site's build-time readers: run folders and <Measured>, which load the tools",
  'testing.ts': "the tests' helpers: runLab and the measure stage, which load the whole judge",
};

const SPECIFIER = /['"]@parallel-course\/harness(?:\/([A-Za-z0-9_./-]+))?['"]/g;

/** The harness subpaths a text imports ('' for the '.' entry). */
export function harnessSubpaths(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? '');
}

function importers(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const dir of ['labs', 'site/src', 'site/test', 'site/scripts', 'exercises', 'solutions', 'episodes']) {
    for (const d of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!d.isFile() || !/\.(ts|mts|mjs|astro|mdx|txt)$/.test(d.name) || d.parentPath.includes('node_modules')) continue;
      const file = path.relative(ROOT, path.join(d.parentPath, d.name)).split(path.sep).join('/');
      // The harness's own modules and test files reach its files by path (these tests name specifiers as text).
      if ((file.startsWith('labs/harness/src/') && !file.endsWith('.txt')) || /^labs\/harness\/test\/[^/]+\.ts$/.test(file)) continue;
      out.push({ file, text: readFileSync(path.join(ROOT, file), 'utf8') });
    }
  }
  return out;
}

const isTest = (file: string) => /(^|\/)test\//.test(file) || /\.test\.ts(\.txt)?$/.test(file);
const isLearnerCode = (file: string) => /^(exercises|solutions)\//.test(file) || /\/fixtures\/[^/]+\/exercises\//.test(file) || file.endsWith('/exercise.ts.txt');

/** Where an importer may take each entry from; null where it may. */
export function misplaced(file: string, sub: string): string | null {
  if (isLearnerCode(file) && sub !== 'learner.ts') return "learner code imports '@parallel-course/harness/learner.ts' only";
  if (sub === 'testing.ts' && !isTest(file)) return "'@parallel-course/harness/testing.ts' is for tests only (it loads the whole judge)";
  if (sub === 'site.ts' && !file.startsWith('site/')) return "'@parallel-course/harness/site.ts' is the site's (a lab imports '@parallel-course/harness')";
  if (file.startsWith('site/src/') && sub !== 'site.ts') return "the site's build imports '@parallel-course/harness/site.ts' only";
  return null;
}

/**
 * The static run-time imports of a source (what loading it loads): `import type` and `export type` are erased and left
 * out; `import { type A }` is kept (verbatimModuleSyntax keeps the statement); dynamic imports load later, left out.
 */
export function runtimeSpecifiers(source: string): string[] {
  return [...source.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^;'"]*?\bfrom\s*)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

/** `@parallel-course/<package>[/sub]` -> the file, through that package's exports; null outside the tree. */
function resolvePackage(spec: string): string | null {
  const m = /^@parallel-course\/([^/]+)(?:\/(.*))?$/.exec(spec);
  if (!m) return null;
  const dir = m[1] === 'site' ? 'site' : `labs/${m[1]}`;
  const exports = (JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as { exports: Record<string, string> }).exports;
  const target = m[2] === undefined ? exports['.'] : (exports[`./${m[2]}`] ?? exports['./*']?.replace('*', m[2]));
  assert.ok(target, `${spec}: not exported by ${dir}/package.json`);
  return path.posix.join(dir, target);
}

/** Every file of the tree that loading `start` loads (relative to the root), and the packages outside it. */
function loads(start: string, stopAt: (file: string) => boolean = () => false): { files: Set<string>; outside: Set<string> } {
  const files = new Set<string>();
  const outside = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    if (stopAt(file)) return;
    for (const spec of runtimeSpecifiers(readFileSync(path.join(ROOT, file), 'utf8'))) {
      const target = spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)) : resolvePackage(spec);
      if (target === null) outside.add(spec);
      else visit(target);
    }
  };
  visit(start);
  return { files, outside };
}

test('the readers find the entries and deep imports (static, dynamic, type-only) and only run-time imports', () => {
  const text = "import { a } from '@parallel-course/harness';\nimport type { B } from '@parallel-course/harness/tools/doctor.ts';\nawait import(\"@parallel-course/harness/seal.ts\");\nimport { c } from '@parallel-course/core';";
  assert.deepEqual(harnessSubpaths(text), ['', 'tools/doctor.ts', 'seal.ts']);
  const source = "import type { A } from './a.ts';\nimport { type B } from './b.ts';\nimport {\n  c,\n  d,\n} from './c.ts';\nexport * from './e.ts';\nexport type { F } from './f.ts';\nimport './g.ts';\nconst h = await import('./h.ts');";
  assert.deepEqual(runtimeSpecifiers(source), ['./b.ts', './c.ts', './e.ts', './g.ts']);
  assert.equal(misplaced('exercises/x/a.ts', ''), "learner code imports '@parallel-course/harness/learner.ts' only");
  assert.equal(misplaced('labs/x/src/lab.ts', 'testing.ts'), "'@parallel-course/harness/testing.ts' is for tests only (it loads the whole judge)");
  assert.equal(misplaced('labs/x/test/lab.test.ts', 'testing.ts'), null);
  assert.equal(misplaced('site/src/lib/a.ts', ''), "the site's build imports '@parallel-course/harness/site.ts' only");
  assert.deepEqual(pathImports("import a from '../../labs/x/src/a.ts';\nimport type { B } from './b.ts';\nconst c = await import('../c.ts');\nimport { d } from '@parallel-course/x/d.ts';"), ['../../labs/x/src/a.ts', './b.ts', '../c.ts']);
  assert.deepEqual(['labs/task-graph/src/matrix.ts', 'site/src/lib/a.ts', 'episodes/01-setup.mdx', 'exercises/x/a.ts'].map(packageOf), ['labs/task-graph', 'site', 'site', null]);
});

test('package.json exports exactly the four entries, each imported, and every import names one of them from its place', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'labs/harness/package.json'), 'utf8')) as { exports: Record<string, string> };
  const expected = Object.fromEntries(Object.keys(ENTRIES).map((sub) => (sub === '' ? ['.', './src/index.ts'] : [`./${sub}`, `./src/${sub}`])));
  assert.deepEqual(pkg.exports, expected, 'labs/harness/package.json "exports" must be the four entries of ENTRIES in this test, no "./*" and no file of a stage');
  const used = new Map<string, string>();
  const wrong: string[] = [];
  for (const { file, text } of importers()) {
    for (const sub of harnessSubpaths(text)) {
      if (!used.has(sub)) used.set(sub, file);
      if (!(sub in ENTRIES)) wrong.push(`${file}: '@parallel-course/harness/${sub}' is not an entry: import from '@parallel-course/harness' (a lab), './learner.ts' (learner code), './site.ts' (the site) or './testing.ts' (a test)`);
      else if (misplaced(file, sub)) wrong.push(`${file}: ${misplaced(file, sub)}`);
    }
  }
  assert.deepEqual(wrong, [], 'a deep or misplaced import of the harness');
  assert.deepEqual(Object.keys(ENTRIES).filter((sub) => !used.has(sub)), [], 'no package imports these entries any more: delete them from package.json and ENTRIES');
});

test("the labs' API loads none of the judge's stages: no run/, supervise/, measure/ or tools/ module, no PNG renderer", () => {
  const { files } = loads('labs/harness/src/index.ts', (file) => !file.startsWith('labs/harness/'));
  const harness = [...files].filter((file) => file.startsWith('labs/harness/'));
  assert.ok(harness.includes('labs/harness/src/lab-definition.ts'), 'the reader followed the entry');
  const judge = harness.filter((file) => /^labs\/harness\/src\/(run|supervise|measure|tools)\/|\/report\/png\.ts$|\/(testing|site)\.ts$/.test(file));
  assert.deepEqual(judge, [], "src/index.ts loads these: a lab's runner would load them too; re-export them from testing.ts or site.ts, or load them on first use");
});

test('the learner entry loads four small files and never the core, and every fresh thread or process imports the harness through it', () => {
  const { files, outside } = loads('labs/harness/src/learner.ts');
  assert.deepEqual([...files].sort(), ['labs/harness/src/child-process.ts', 'labs/harness/src/errors.ts', 'labs/harness/src/lab-definition.ts', 'labs/harness/src/learner-module.ts', 'labs/harness/src/learner.ts']);
  assert.ok([...outside].every((spec) => spec.startsWith('node:')), `the learner entry loads ${[...outside].join(', ')}: only node: built-ins`);
  // The files a lab or learner code starts as a thread or process (new URL('./x.ts', import.meta.url)), and the
  // learner's own files; what each loads of the labs, exercises and solutions must reach the harness only through
  // learner.ts.
  const starts = new Set<string>();
  for (const dir of ['labs', 'exercises', 'solutions']) {
    for (const d of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      const file = path.relative(ROOT, path.join(d.parentPath, d.name)).split(path.sep).join('/');
      if (!d.isFile() || !file.endsWith('.ts') || file.includes('node_modules') || /^labs\/(harness|core)\//.test(file) || (dir === 'labs' && !/^labs\/[^/]+\/src\//.test(file))) continue;
      if (dir !== 'labs') starts.add(file);
      for (const m of readFileSync(path.join(ROOT, file), 'utf8').matchAll(/new URL\('(\.\/[^']+\.ts)', import\.meta\.url\)/g)) starts.add(path.posix.join(path.posix.dirname(file), m[1]!));
    }
  }
  assert.ok(starts.has('labs/event-loop/src/server-main.ts') && starts.has('exercises/event-loop/worker.ts'), 'the reader found the started files');
  const wrong = new Set<string>();
  for (const start of starts) {
    const { files: loaded } = loads(start, (file) => /^labs\/(harness|core)\//.test(file));
    for (const file of loaded) {
      if (/^labs\/(harness|core)\//.test(file)) continue;
      for (const spec of runtimeSpecifiers(readFileSync(path.join(ROOT, file), 'utf8'))) {
        if (spec.startsWith('@parallel-course/harness') && spec !== '@parallel-course/harness/learner.ts') wrong.add(`${file} (loaded by ${start}): ${spec}`);
      }
    }
  }
  assert.deepEqual([...wrong].sort(), [], "a file loaded in a fresh thread or process imports the harness beyond '@parallel-course/harness/learner.ts': that thread would load the labs' API and the core (a type-only import is fine)");
});

/** The relative specifiers of a text's imports (static, type-only, dynamic). */
export function pathImports(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.\.?\/[^'"]+)['"]/gm)].map((m) => m[1]!);
}

/**
 * The workspace package a path of the tree belongs to (labs/<name>, or site: the episodes are its pages, loaded from
 * ../episodes), null for the learner's folders and the rest.
 */
export function packageOf(file: string): string | null {
  if (file.startsWith('episodes/')) return 'site';
  return /^(labs\/[^/]+|site)\//.exec(file)?.[1] ?? null;
}

/**
 * The lab packages' faces. A lab exports by name exactly the files of its src/ that learner code (and the lab's tests
 * and fixtures) import, no "./*" and no '.': the harness loads a lab's definition by path (lab-registry.ts), and
 * nothing imports the package whole. Why not one entry each: the learner's files load in fresh threads and processes
 * whose start-up some labs measure (task-granularity's tally worker loads monte-carlo.ts alone), and a barrel would
 * load every other learner file into each.
 */
test("each lab package exports by name exactly the files other packages import from it, and the core its entry and its light rng.ts", () => {
  const labs = readdirSync(path.join(ROOT, 'labs')).filter((d) => !['core', 'harness', 'node_modules'].includes(d) && existsSync(path.join(ROOT, 'labs', d, 'package.json')));
  assert.ok(labs.length >= 5, 'the lab packages were found');
  const imported = new Map<string, Set<string>>(labs.map((lab) => [lab, new Set()]));
  const byPath: string[] = [];
  for (const { file, text } of importers()) {
    for (const m of text.matchAll(/['"]@parallel-course\/([a-z0-9-]+)(?:\/([A-Za-z0-9_./-]+))?['"]/g)) {
      if (imported.has(m[1]!)) imported.get(m[1]!)!.add(m[2] ?? '.');
    }
    if (!isLearnerCode(file) && isTest(file)) continue;
    for (const spec of pathImports(text)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (packageOf(target) !== null && packageOf(target) !== packageOf(file)) byPath.push(`${file}: ${spec}`);
    }
  }
  assert.deepEqual(byPath, [], "source reaches into another package's files by path: import '@parallel-course/<package>/<file>.ts' (a lab exports it by name in its package.json)");
  for (const lab of labs) {
    const { exports } = JSON.parse(readFileSync(path.join(ROOT, 'labs', lab, 'package.json'), 'utf8')) as { exports?: Record<string, string> };
    assert.ok(exports, `labs/${lab}/package.json has no "exports": every file of the package could be imported`);
    for (const [key, target] of Object.entries(exports)) {
      assert.ok(key !== './*' && key !== '.', `labs/${lab}/package.json exports ${key}: name each file learner code imports instead`);
      assert.equal(target, `./src/${key.slice(2)}`, `labs/${lab}/package.json: ${key} -> ${target}, a subpath is the file of src/ with its name`);
      assert.ok(existsSync(path.join(ROOT, 'labs', lab, target)), `labs/${lab}/package.json: ${key} -> ${target}: no such file`);
    }
    assert.deepEqual(Object.keys(exports).map((key) => key.slice(2)).sort(), [...imported.get(lab)!].sort(), `labs/${lab}/package.json "exports" must name exactly the files other packages import from @parallel-course/${lab}`);
  }
  const core = JSON.parse(readFileSync(path.join(ROOT, 'labs/core/package.json'), 'utf8')) as { exports: unknown };
  // The core's one entry, and its seeded generators alone for code that starts in fresh threads and processes (a lab's
  // workers, whose start-up the lab measures: the whole core takes about a second to load there).
  assert.deepEqual(core.exports, { '.': './src/index.ts', './rng.ts': './src/statistics/rng.ts' }, 'the core has its entry, src/index.ts, and the light rng.ts');
});
