/**
 * One direction of flow: the run pipeline (every module directly in labs/harness/src but the package's entries, and its
 * stages in src/cli/, plan/, machine/, supervise/, measure/, run/, analyse/ and write/) never imports the tools built
 * on its results (src/tools/) or the reports (src/report/). Read from the import lines, so a new one fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * Imports that still run upwards, each with what removes it. The test fails on one missing from this list and on an
 * entry that no longer exists (delete it then): the list can only shrink.
 */
const KNOWN: Record<string, string> = {
  // The last stage of a run writes its reports: the one call of the stage sequence into report/ (run-lab.ts lists it).
  'run/write.ts -> report/index.ts': 'the last stage, the reports of a run',
  'cli/bundle.ts -> report/html-page.ts': 'the --all index page: a report of its own',
};

/** `importer -> target` for each relative import (static, dynamic or type-only) of a pipeline module into tools/ or report/. */
export function upwardImports(files: { name: string; source: string }[]): string[] {
  const found = new Set<string>();
  for (const { name, source } of files) {
    for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.\.?\/[^'"]+)['"]/gm)) {
      // Relative to src/: a stage in src/run/ reaches report/ as '../report/...'.
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(name), m[1]!));
      if (target.startsWith('../')) continue;
      if (/^(tools|report)\//.test(target)) found.add(`${name} -> ${target}`);
    }
  }
  return [...found].sort();
}

/** The pipeline's folders: src/ itself (the shared ground and the CLI) and its stages. */
const PIPELINE_DIRS = ['', 'cli/', 'plan/', 'machine/', 'supervise/', 'measure/', 'run/', 'analyse/', 'write/'];

/**
 * The package's entries (package.json "exports"), which stand above every stage and may re-export from any folder:
 * not pipeline modules. What each loads is public-entry.test.ts's to check (the labs' API no tools/, no PNG renderer).
 */
function entryFiles(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(SRC, '../package.json'), 'utf8')) as { exports: Record<string, string> };
  return Object.values(pkg.exports).map((target) => path.posix.relative('./src', target));
}

function pipelineFiles(): { name: string; source: string }[] {
  const entries = entryFiles();
  return PIPELINE_DIRS.flatMap((dir) =>
    readdirSync(path.join(SRC, dir), { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.ts') && !entries.includes(`${dir}${d.name}`))
      .map((d) => ({ name: `${dir}${d.name}`, source: readFileSync(path.join(SRC, dir, d.name), 'utf8') })),
  );
}

test('the entries left out of the pipeline are exactly the package\'s exports, each a file directly in src/', () => {
  assert.deepEqual(entryFiles().sort(), ['index.ts', 'learner.ts', 'site.ts', 'testing.ts']);
});

test('the reader finds static, type-only, side-effect and dynamic imports into tools/ and report/, and nothing else', () => {
  const source = [
    "import { a } from './tools/x.ts';",
    "import type { B } from './report/y.ts';",
    "import './report/side.ts';",
    "const m = await import('./tools/lazy.ts');",
    "import { c } from './results-reader.ts';",
    "import { d } from '../tools/elsewhere.ts';",
    "import { f } from './run/stage.ts';",
    "import { e } from 'node:fs';",
  ].join('\n');
  assert.deepEqual(upwardImports([{ name: 'p.ts', source }]), ['p.ts -> report/side.ts', 'p.ts -> report/y.ts', 'p.ts -> tools/lazy.ts', 'p.ts -> tools/x.ts']);
  // A stage in src/run/ reaches report/ as '../report/...', and its sibling stages are no upward import.
  const stage = "import { g } from '../report/index.ts';\nimport { h } from './open.ts';\nimport { i } from '../cpus.ts';";
  assert.deepEqual(upwardImports([{ name: 'run/write.ts', source: stage }]), ['run/write.ts -> report/index.ts']);
});

test('every folder of src/ is a pipeline stage this test reads, or tools/ or report/ (a new stage folder is not left unread)', () => {
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `${d.name}/`).sort();
  const known = [...PIPELINE_DIRS.filter((d) => d !== ''), 'report/', 'tools/'].sort();
  assert.deepEqual(folders, known, 'a folder of labs/harness/src that this test does not know: add it to PIPELINE_DIRS (a stage of the run) or move its files');
});

test('no module of the run pipeline imports tools/ or report/ beyond the known, shrinking list', () => {
  const found = upwardImports(pipelineFiles());
  assert.ok(pipelineFiles().length > 20, 'the pipeline modules were read');
  const unknown = found.filter((edge) => !(edge in KNOWN));
  assert.deepEqual(unknown, [], 'the run pipeline imports tools/ or report/: move what it needs down into src/ (or the core package) instead');
  const gone = Object.keys(KNOWN).filter((edge) => !found.includes(edge));
  assert.deepEqual(gone, [], 'these imports are gone: delete them from KNOWN in this test');
});
