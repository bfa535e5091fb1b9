/**
 * No import circles: the source of the labs (labs/<package>/src, exercises/, solutions/) and of the site (site/src)
 * imports in one direction only, so every file stands on a floor above all it imports and a reader can start at
 * the ground (labs/core/src/results-schema.ts) and climb. Read from the import lines (static, type-only, side-effect
 * and dynamic with a literal path), with `@parallel-course/<package>` resolved through each package's exports.
 * A circle fails the test with its files and the arrows that close it; docs/architecture.md shows the floors.
 */
import assert from 'node:assert/strict';
import { existsSync, globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The source files whose imports are read: code only (tests and fixtures may import what they like). */
const SOURCE_GLOBS = ['labs/*/src/**/*.{ts,mts,mjs}', 'exercises/**/*.{ts,mts,mjs}', 'solutions/**/*.{ts,mts,mjs}', 'site/src/**/*.{ts,mts,mjs,astro}'];

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|^\s*export\s+\*\s+from\s*)['"]([^'"]+)['"]/gm;

/** Each workspace package's name -> its folder and exports ("." and "./*"), from its package.json. */
function workspacePackages(root: string): Map<string, { dir: string; exports: Record<string, string> }> {
  const packages = new Map<string, { dir: string; exports: Record<string, string> }>();
  for (const file of globSync(['labs/*/package.json', 'site/package.json'], { cwd: root })) {
    const json = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as { name?: string; exports?: Record<string, string> | string };
    if (!json.name) continue;
    const exports = typeof json.exports === 'string' ? { '.': json.exports } : (json.exports ?? {});
    packages.set(json.name, { dir: path.dirname(file), exports });
  }
  return packages;
}

/** The file (relative to the root) an import specifier names, or null for a package outside the tree (node:, zod...). */
export function resolveImport(from: string, spec: string, packages: ReturnType<typeof workspacePackages>): string | null {
  const clean = spec.replace(/\?.*$/, '');
  if (clean.startsWith('.')) return path.posix.normalize(path.posix.join(path.posix.dirname(from), clean));
  const match = /^(@parallel-course\/[^/]+)(?:\/(.*))?$/.exec(clean);
  const pkg = match ? packages.get(match[1]!) : undefined;
  if (!match || !pkg) return null;
  const sub = match[2];
  const target = sub === undefined ? pkg.exports['.'] : (pkg.exports[`./${sub}`] ?? pkg.exports['./*']?.replace('*', sub));
  return target === undefined ? null : path.posix.normalize(path.posix.join(pkg.dir, target));
}

/** The import graph: file -> the files of the tree it imports (files outside `files` are dropped). */
export function importGraph(files: { name: string; source: string }[], resolve: (from: string, spec: string) => string | null): Map<string, string[]> {
  const known = new Set(files.map((f) => f.name));
  const graph = new Map<string, string[]>();
  for (const { name, source } of files) {
    const targets = new Set<string>();
    for (const m of source.matchAll(IMPORT)) {
      const target = resolve(name, m[1]!);
      if (target !== null && known.has(target) && target !== name) targets.add(target);
    }
    graph.set(name, [...targets].sort());
  }
  return graph;
}

/** The circles of a graph: its strongly connected components with more than one file (Tarjan's algorithm). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indexOf.has(v)) visit(v);
  return found;
}

/** A circle in words: its files, then each arrow between two of them. */
function describe(circle: string[], graph: Map<string, string[]>): string {
  const inside = new Set(circle);
  const arrows = circle.flatMap((a) => (graph.get(a) ?? []).filter((b) => inside.has(b)).map((b) => `    ${a} -> ${b}`));
  return `  ${circle.length} files: ${circle.join(', ')}\n${arrows.join('\n')}`;
}

test('the cycle finder finds a circle of three, a pair, and nothing in a chain', () => {
  const files = [
    { name: 'a/x.ts', source: "import { y } from './y.ts';" },
    { name: 'a/y.ts', source: "import type { Z } from './z.ts';" },
    { name: 'a/z.ts', source: "export { x } from './x.ts';\nconst lazy = await import('./x.ts');" },
    { name: 'b/p.ts', source: "import './q.ts';" },
    { name: 'b/q.ts', source: "import { p } from './p.ts';\nimport { readFileSync } from 'node:fs';" },
    { name: 'c/chain1.ts', source: "import { c } from './chain2.ts';" },
    { name: 'c/chain2.ts', source: "import { z } from '../a/z.ts';" },
  ];
  const graph = importGraph(files, (from, spec) => resolveImport(from, spec, new Map()));
  assert.deepEqual(circles(graph), [['a/x.ts', 'a/y.ts', 'a/z.ts'], ['b/p.ts', 'b/q.ts']]);
});

test('a workspace package import resolves through its exports', () => {
  const packages = new Map<string, { dir: string; exports: Record<string, string> }>([
    ['@parallel-course/core', { dir: 'labs/core', exports: { '.': './src/index.ts' } }],
    ['@parallel-course/harness', { dir: 'labs/harness', exports: { '.': './src/index.ts', './*': './src/*' } }],
  ]);
  assert.equal(resolveImport('site/src/a.ts', '@parallel-course/core', packages), 'labs/core/src/index.ts');
  assert.equal(resolveImport('labs/x/src/a.ts', '@parallel-course/harness/report/png.ts', packages), 'labs/harness/src/report/png.ts');
  assert.equal(resolveImport('site/src/a.ts', '../wasm/m.wasm?url', packages), 'site/wasm/m.wasm');
  assert.equal(resolveImport('site/src/a.ts', 'zod', packages), null);
});

test('no import circle in labs/, exercises/, solutions/ or site/src', () => {
  const packages = workspacePackages(ROOT);
  const files = globSync(SOURCE_GLOBS, { cwd: ROOT })
    .filter((f) => !/(^|\/)(test|fixtures|node_modules)\//.test(f) && !f.endsWith('.d.ts'))
    .map((name) => ({ name: name.split(path.sep).join('/'), source: readFileSync(path.join(ROOT, name), 'utf8') }));
  assert.ok(files.length > 200, `the source files were read (${files.length})`);
  assert.ok(existsSync(path.join(ROOT, 'labs/core/src/index.ts')));
  const graph = importGraph(files, (from, spec) => resolveImport(from, spec, packages));
  assert.ok([...graph.values()].reduce((n, t) => n + t.length, 0) > 300, 'the imports were read');
  const found = circles(graph);
  assert.deepEqual(
    found.map((c) => describe(c, graph)),
    [],
    'files import each other in a circle: move what both need into a file below both (a type into a model file, a helper down a floor)',
  );
});
