/**
 * The core runs in a browser page, a Web Worker and Node: its source imports nothing but itself and zod (no node:
 * modules, no harness), and only the public entry is imported from outside (checked over the whole tree).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CORE_SRC = fileURLToPath(new URL('../src/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|astro|mjs)$/.test(d.name) && !d.parentPath.includes('node_modules') && !d.parentPath.includes(`${path.sep}dist`))
    .map((d) => path.join(d.parentPath, d.name));
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

test('core source imports only itself and zod: no node: modules, nothing from the harness', () => {
  for (const file of tsFiles(CORE_SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
      const inside = spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(CORE_SRC);
      assert.ok(inside || spec === 'zod', `${path.relative(ROOT, file)} imports '${spec}': the core may import only its own files and zod`);
    }
  }
});

test('outside the core, only the public entries are imported: @parallel-course/core, and its light rng.ts for code that starts in fresh workers', () => {
  for (const dir of ['labs', 'site/src', 'site/test', 'site/scripts', 'exercises', 'solutions']) {
    for (const file of tsFiles(path.join(ROOT, dir))) {
      if (file.startsWith(CORE_SRC) || file.includes(`${path.sep}labs${path.sep}core${path.sep}test`)) continue;
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2]!;
        if (spec === '@parallel-course/core/rng.ts') continue;
        assert.ok(!/labs\/core\/|@parallel-course\/core\//.test(spec), `${path.relative(ROOT, file)} imports '${spec}': import '@parallel-course/core' (or its light '@parallel-course/core/rng.ts') instead`);
      }
    }
  }
});
