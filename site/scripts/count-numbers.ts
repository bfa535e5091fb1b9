/**
 * `node site/scripts/count-numbers.ts [episodes folder] [--list]`: how many hand-typed measurements each episode
 * holds (a number with a unit of time, rate or size, or a speedup factor, outside code and outside <Measured> and
 * <Given>), by the same rule the build check applies (src/lib/number-check.ts), for issue 20's before and after.
 * Default folder: the repository's episodes/. --list prints each one with its line. Exit code 0 (it only counts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { mdxToMdast } from 'satteri';
import { findHandTypedMeasurements, type Finding, type MdNode } from '../src/lib/number-check.ts';

/** The findings of one MDX source, parsed as the site parses it (Sätteri, GFM tables). */
export function countSource(source: string): Finding[] {
  return findHandTypedMeasurements(mdxToMdast(source, { position: true }) as unknown as MdNode);
}

/** Findings per .mdx file of `dir`, sorted by name. */
export function countFolder(dir: string): { file: string; findings: Finding[] }[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.mdx'))
    .sort()
    .map((file) => ({ file, findings: countSource(readFileSync(path.join(dir, file), 'utf8')) }));
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { list: { type: 'boolean' } } });
  const cwd = process.env['INIT_CWD'] ?? process.cwd();
  const dir = positionals[0] ? path.resolve(cwd, positionals[0]) : fileURLToPath(new URL('../../episodes/', import.meta.url));
  let total = 0;
  for (const { file, findings } of countFolder(dir)) {
    total += findings.length;
    console.log(`${String(findings.length).padStart(5)}  ${file}`);
    if (values.list) for (const f of findings) console.log(`         ${f.line}:${f.column}  "${f.text}"  …${f.context}…`);
  }
  console.log(`${String(total).padStart(5)}  total hand-typed measurements in ${dir}`);
}
