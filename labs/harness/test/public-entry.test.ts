/**
 * The harness's public face: package.json names each subpath another package may import (no "./*"), so a new deep
 * import fails (node: ERR_PACKAGE_PATH_NOT_EXPORTED; tsc: cannot find module) until it is added here with why.
 * Read from the import specifiers of every package beside the harness (labs, site, exercises, solutions, episodes).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The subpaths beside '.', each with who needs it. Shrinking is the plan (docs/architecture.md): the labs' API into
 * the '.' entry, the site's build-time readers into one './site.ts'. A subpath no one imports any more fails: delete it.
 */
const SUBPATHS: Record<string, string> = {
  'lab-definition.ts': "every lab's LabDefinition, and the exercises' notImplemented",
  'comparators.ts': "the labs' output checks",
  'learner-module.ts': "the labs' loading of learner files",
  'child-process.ts': "the labs' worker processes",
  'calibration.ts': "the labs' plan calibrations",
  'sweep.ts': "the labs' sweeps",
  'probe.ts': "the labs' bounded external commands",
  'topology.ts': "the labs' cache sizes",
  'webgpu-adapters.ts': 'gpu-batching',
  'testing.ts': "the labs' tests",
  'check.ts': "event-loop's property tests",
  'runner.ts': "event-loop's fresh-inputs test and native-kernel's cached-answer test",
  'run-lab.ts': "the labs' supervised tests",
  'seal.ts': "forgery.test.ts's child, by name",
  'results-writer.ts': "gpu-batching's model file (the one atomic writer)",
  'lab-registry.ts': 'the site and gpu-batching: the lab list and the root',
  'plan.ts': "the site's planned times",
  'measured.ts': "the site's <Measured>",
  'safe-read.ts': "the site's run figures",
  'report/png.ts': "the labs' analysis charts",
  'report/chart-spec.ts': "the labs' analysis charts",
  'tools/run-folders.ts': "the site's course runs",
  'tools/doctor.ts': "native-kernel's doctor probe (a type)",
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
      if (!d.isFile() || !/\.(ts|mts|mjs|astro|mdx)$/.test(d.name) || d.parentPath.includes('node_modules')) continue;
      const file = path.relative(ROOT, path.join(d.parentPath, d.name)).split(path.sep).join('/');
      if (file.startsWith('labs/harness/src/')) continue;
      out.push({ file, text: readFileSync(path.join(ROOT, file), 'utf8') });
    }
  }
  return out;
}

test('the reader finds the public entry and deep imports, static, dynamic and type-only', () => {
  const text = "import { a } from '@parallel-course/harness';\nimport type { B } from '@parallel-course/harness/tools/doctor.ts';\nawait import(\"@parallel-course/harness/seal.ts\");\nimport { c } from '@parallel-course/core';";
  assert.deepEqual(harnessSubpaths(text), ['', 'tools/doctor.ts', 'seal.ts']);
});

test('package.json exports "." and the named subpaths, no "./*", and every deep import is one of them', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'labs/harness/package.json'), 'utf8')) as { exports: Record<string, string> };
  assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', ...Object.keys(SUBPATHS).map((s) => `./${s}`)].sort(), 'labs/harness/package.json "exports" and SUBPATHS in this test must name the same subpaths');
  // A subpath keeps its file's name; the file may sit in its stage's folder (./plan.ts -> ./src/plan/plan.ts).
  for (const [key, target] of Object.entries(pkg.exports)) {
    if (key === '.') assert.equal(target, './src/index.ts');
    else assert.ok(target === `./src/${key.slice(2)}` || (target.startsWith('./src/') && !key.slice(2).includes('/') && target.split('/').length === 4 && target.endsWith(`/${key.slice(2)}`)), `${key} -> ${target}: a subpath points at ./src/<name> or ./src/<stage>/<name>`);
    assert.ok(existsSync(path.join(ROOT, 'labs/harness', target)), `${key} -> ${target}: no such file`);
  }
  const used = new Map<string, string>();
  for (const { file, text } of importers()) for (const sub of harnessSubpaths(text)) if (sub !== '' && !used.has(sub)) used.set(sub, file);
  const unknown = [...used].filter(([sub]) => !(sub in SUBPATHS)).map(([sub, file]) => `${sub} (${file})`);
  assert.deepEqual(unknown, [], "a new deep import of the harness: import from '@parallel-course/harness' (src/index.ts), or add the subpath to package.json's exports and SUBPATHS here, with who needs it");
  const unused = Object.keys(SUBPATHS).filter((sub) => !used.has(sub));
  assert.deepEqual(unused, [], 'no package imports these subpaths any more: delete them from package.json exports and SUBPATHS');
});
