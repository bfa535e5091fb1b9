/**
 * One direction of flow: the run pipeline (every module directly in labs/harness/src, and its stages in src/cli/, plan/,
 * machine/, run/, analyse/ and write/) never imports the tools built
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

/** The pipeline's folders: src/ itself (the entries and the shared ground) and its stages. */
const PIPELINE_DIRS = ['', 'cli/', 'plan/', 'machine/', 'supervise/', 'measure/', 'run/', 'analyse/', 'write/'];

function pipelineFiles(): { name: string; source: string }[] {
  return PIPELINE_DIRS.flatMap((dir) =>
    readdirSync(path.join(SRC, dir), { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.ts'))
      .map((d) => ({ name: `${dir}${d.name}`, source: readFileSync(path.join(SRC, dir, d.name), 'utf8') })),
  );
}

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
