/**
 * One name, one meaning (issue 41). "reference" once meant five things: the correct output of a case, the course's
 * solution, the machine the plans assume, the committed runs in reference/ and a chart colour. Now they are
 * `expected` (LabDefinition.expected, expectedAt), the solution, the course machine (COURSE_MACHINE), the reference
 * runs, and GUIDE_GREY; and a lab's own analysis is `labAnalysis`, never an identifier spelled "analyse" beside the
 * core's `analyzeRun`. These tests read the identifiers of labs/<lab>/src, exercises/ and solutions/ (comments and
 * strings left out) and fail on a new identifier with "reference" in it that is not listed below with its meaning,
 * and on any "analyse" spelling.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT_DIR } from '../src/lab-registry.ts';

/**
 * Identifiers with "reference" that may stay, each with its one meaning: the reference runs (the committed runs in
 * reference/). The graded run's copy of the solution is `impl: 'solution'` (core grade.ts SOLUTION_COPY), its build
 * outputs `solutionBuildOutputs`; a new REFERENCE meaning the solution fails here.
 */
const ALLOWED: Record<string, string> = {
  REFERENCE_FILES: 'reference runs: the files npm run reference copies',
  ReferenceEntry: 'reference runs: one run npm run reference copies',
  currentReference: 'reference runs: the run reference/ holds now',
  makeReference: 'reference runs: npm run reference',
  referenceReadme: 'reference runs: reference/README.md',
  referenceDir: 'reference runs: the reference/ folder',
  referenceRuns: 'reference runs: the runs in reference/',
};

/**
 * The files of labs/<lab>/src where the string 'reference' may be written, with its meaning: the reference/ folder, and
 * the value older graded results files carry for the solution's copy (read, never written: core grade.ts).
 */
const REFERENCE_STRINGS: Record<string, string> = {
  'labs/harness/src/tools/reference-cli.ts': 'reference runs: the reference/ folder',
  'labs/harness/src/tools/readme-commands.ts': 'reference runs: the reference/ folder',
  'labs/core/src/grade.ts': "RECORDED_SOLUTION_COPY: impl: 'reference' in graded files of schema 4, read as the solution's copy",
};

/** A TypeScript source split into its identifiers and the text of its quoted strings, comments left out. */
export function tokensOf(source: string): { identifiers: string[]; strings: string[] } {
  let code = '';
  const strings: string[] = [];
  for (let i = 0; i < source.length; ) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      strings.push(source.slice(i + 1, j));
      code += ' ';
      i = j + 1;
    } else {
      code += c;
      i++;
    }
  }
  return { identifiers: code.match(/[A-Za-z_$][\w$]*/g) ?? [], strings };
}

/** The identifiers of a TypeScript source, without its comments and the text of its strings and templates. */
export function identifiersOf(source: string): string[] {
  return tokensOf(source).identifiers;
}

/** Every TypeScript file under `dir` (recursively), read. */
function sourcesUnder(dir: string): Array<{ file: string; text: string }> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && /\.(ts|mts)$/.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file: path.relative(ROOT_DIR, file), text: readFileSync(file, 'utf8') };
    });
}

/**
 * labs/<lab>/src of every lab, the harness and the core; the learner's side, exercises/ and solutions/; and the
 * in-page lab (site/src/browser-lab), which checks its cases against expected outputs as the harness does.
 */
function labSources(): Array<{ file: string; text: string }> {
  const labsDir = path.join(ROOT_DIR, 'labs');
  const labs = readdirSync(labsDir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'node_modules');
  return [
    ...labs.flatMap((lab) => sourcesUnder(path.join(labsDir, lab.name, 'src'))),
    ...sourcesUnder(path.join(ROOT_DIR, 'exercises')),
    ...sourcesUnder(path.join(ROOT_DIR, 'solutions')),
    ...sourcesUnder(path.join(ROOT_DIR, 'site', 'src', 'browser-lab')),
  ];
}

test('identifiersOf leaves out comments and strings', () => {
  assert.deepEqual(identifiersOf("const a = 'the reference'; // reference\n/* reference */ b(`x ${'y'}`, \"it's\")"), ['const', 'a', 'b']);
});

test('tokensOf keeps the text of quoted strings apart', () => {
  assert.deepEqual(tokensOf("x = 'reference'; y(\"a\\\"b\") // 'no'").strings, ['reference', 'a\\"b']);
});

test('no identifier in labs/*/src, exercises/, solutions/ or the in-page lab names "reference" but the meanings listed with why', () => {
  const found = new Map<string, string>();
  for (const { file, text } of labSources()) {
    for (const name of identifiersOf(text)) {
      if (/reference/i.test(name) && !(name in ALLOWED) && !found.has(name)) found.set(name, file);
    }
  }
  assert.deepEqual(
    [...found].map(([name, file]) => `${name} (${file})`),
    [],
    'say which of the five it is: the expected output (expected, expectedAt), the solution, the course machine (COURSE_MACHINE), ' +
      'GUIDE_GREY, or the reference runs (then list it in ALLOWED with why)',
  );
});

test('every identifier ALLOWED is still in use (the list only shrinks)', () => {
  const used = new Set(labSources().flatMap(({ text }) => identifiersOf(text)));
  assert.deepEqual(Object.keys(ALLOWED).filter((name) => !used.has(name)), []);
});

test("the string 'reference' is written only where it names the reference runs, or in the one reader of older graded files", () => {
  const found = labSources()
    .filter(({ file, text }) => tokensOf(text).strings.includes('reference') && !(file in REFERENCE_STRINGS))
    .map(({ file }) => file);
  assert.deepEqual(found, [], "a graded run's copy of the solution is impl: 'solution' (core grade.ts SOLUTION_COPY); list a new reference-runs use in REFERENCE_STRINGS with why");
});

test('no identifier in labs/*/src, exercises/ or solutions/ spells "analyse": core statistics analyze, a lab\'s own is labAnalysis', () => {
  const found: string[] = [];
  for (const { file, text } of labSources()) {
    for (const name of identifiersOf(text)) if (/[Aa]nalys(e|ed|ing)(?![a-z])|ANALYS(E|ED|ING)(?![A-Z])/.test(name)) found.push(`${name} (${file})`);
  }
  assert.deepEqual([...new Set(found)], []);
});
