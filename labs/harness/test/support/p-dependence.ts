/**
 * Which test files can see the CPU count P from the environment, so CI reruns only those with COURSE_CPUS=1 and 64
 * (.ci/run: `npm run test:p`). Run as a script, it prints those files, one a line.
 *
 * P reaches lab code through one door: cpuBudget() without a forced count (src/cpus.ts reads COURSE_CPUS there), which
 * runLab, runBundle, checkLab and the CLI call unless given --cpus / `cpus`, and watchLab always calls. A test file
 * depends on P when its text (or that of a test/support file it imports) names COURSE_CPUS (other than to delete it
 * from a child's environment, as the real-Slurm jobs do: their P is Slurm's), calls cpuBudget() bare,
 * calls watchLab, calls runLab, runBundle, checkLab or checkForStatus without `cpus` in the call, or runs
 * src/cli.ts other than with '--cpus' in the argument list. The rule errs towards "depends" (that only costs time);
 * p-dependence.test.ts checks the rule on examples and that no other harness module calls cpuBudget or these entries.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (labs/harness/test/support is four levels down). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Harness functions that plan for P from the environment unless a call pins it with `cpus`. */
export const PINNABLE_ENTRIES = ['runLab', 'runBundle', 'checkLab', 'checkForStatus'] as const;
/** Harness functions that always plan for the environment's P (the checks of --watch). */
export const UNPINNED_ENTRIES = ['watchLab'] as const;

/** The text from `open` (an index of '(' or '[') to its matching closer; strings and comments are not special. */
function balanced(text: string, open: number): string {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c in pairs) stack.push(pairs[c]!);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return text.slice(open, i + 1);
    }
  }
  return text.slice(open);
}

/** The innermost unclosed '[' before `at`, or -1. */
function enclosingBracket(text: string, at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const c = text[i];
    if (c === ']') depth++;
    else if (c === '[') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Why this source can see the environment's P; empty when it cannot. */
export function pReasons(text: string): string[] {
  // Comments say "the CLI" and "runLab" in prose; only code counts.
  // Removing COURSE_CPUS from a child's environment (`delete env.COURSE_CPUS`) keeps P away from it: not a use.
  const source = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\bdelete\s+[\w.]+\.COURSE_CPUS\b;?/g, '');
  const why: string[] = [];
  if (/\bCOURSE_CPUS\b/.test(source)) why.push('names COURSE_CPUS');
  if (/\bcpuBudget\(\s*\)/.test(source)) why.push('calls cpuBudget() without a count');
  for (const name of UNPINNED_ENTRIES) if (new RegExp(`\\b${name}\\(`).test(source)) why.push(`calls ${name} (always the environment's P)`);
  for (const name of PINNABLE_ENTRIES) {
    for (const m of source.matchAll(new RegExp(`\\b${name}\\(`, 'g'))) {
      const call = balanced(source, m.index + name.length);
      if (!/\bcpus\b/.test(call)) why.push(`calls ${name} without cpus`);
    }
  }
  // The CLI: importing its `main`, or running it (a path to src/cli.ts) without '--cpus' in the same argument list.
  const cliImport = source.match(/import\s*\{([^}]*)\}\s*from\s*'[^']*\/src\/cli\.ts'/);
  if (cliImport && /\bmain\b/.test(cliImport[1]!)) why.push("imports the CLI's main");
  const withoutImports = source.replace(/import\s*\{[^}]*\}\s*from\s*'[^']*\/src\/cli\.ts';?/g, '');
  if (/harness\/src\/cli\.ts|\.\.\/src\/cli\.ts/.test(withoutImports)) {
    const binding = withoutImports.match(/const\s+(\w+)\s*=[^;\n]*(?:harness\/src\/cli\.ts|\.\.\/src\/cli\.ts)/);
    const uses = binding ? [...withoutImports.matchAll(new RegExp(`\\b${binding[1]}\\b`, 'g'))].filter((m) => m.index !== binding.index! + binding[0].indexOf(binding[1]!)) : [];
    const stray = (withoutImports.match(/harness\/src\/cli\.ts|\.\.\/src\/cli\.ts/g) ?? []).length > (binding ? 1 : 0);
    if (!binding || stray) why.push('runs src/cli.ts in a way this rule cannot read');
    for (const use of uses) {
      const open = enclosingBracket(withoutImports, use.index);
      if (open < 0 || !balanced(withoutImports, open).includes("'--cpus'")) {
        why.push('runs src/cli.ts without --cpus');
        break;
      }
    }
  }
  return why;
}

/** The test/support files a test imports (relative imports into a `support/` folder), read recursively. */
function withSupport(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  const parts = [source];
  for (const m of source.matchAll(/from\s+'(\.{1,2}\/[^']*support\/[^']+\.ts)'/g)) {
    parts.push(withSupport(path.resolve(path.dirname(file), m[1]!), seen));
  }
  return parts.join('\n');
}

/** Every labs/<lab>/test/*.test.ts, relative to the root, sorted. */
export function labTestFiles(root = ROOT): string[] {
  const labs = readdirSync(path.join(root, 'labs'), { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'node_modules');
  const files: string[] = [];
  for (const lab of labs) {
    const dir = path.join(root, 'labs', lab.name, 'test');
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (name.endsWith('.test.ts')) files.push(path.join('labs', lab.name, 'test', name));
  }
  return files.sort();
}

/** The lab test files that can see the environment's P, with why. */
export function pDependentTests(root = ROOT): { file: string; why: string[] }[] {
  return labTestFiles(root)
    .map((file) => ({ file, why: pReasons(withSupport(path.join(root, file))) }))
    .filter((t) => t.why.length > 0);
}

if (import.meta.main) {
  const files = pDependentTests();
  if (files.length === 0) {
    process.stderr.write('p-dependence: no test file depends on P, which cannot be right (the harness has tests of cpuBudget)\n');
    process.exit(1);
  }
  process.stdout.write(`${files.map((t) => t.file).join('\n')}\n`);
}
