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
 * Identifiers with "reference" that may stay, each with its one meaning. Only reference runs (the committed runs in
 * reference/) should be left in the end; the others are the graded-run protocol the referee work is rewriting
 * (`impl: 'reference'`, the solution's graded copies).
 */
const ALLOWED: Record<string, string> = {
  // The reference runs: the committed runs in reference/ (npm run reference).
  REFERENCE_FILES: 'reference runs: the files npm run reference copies',
  ReferenceEntry: 'reference runs: one run npm run reference copies',
  currentReference: 'reference runs: the run reference/ holds now',
  makeReference: 'reference runs: npm run reference',
  referenceReadme: 'reference runs: reference/README.md',
  referenceDir: 'reference runs: the reference/ folder',
  referenceRuns: 'reference runs: the runs in reference/',
  // The graded run's protocol (params impl: 'reference'), which the referee work is rewriting: the solution's copies.
  REFERENCE: "graded runs: the protocol value impl: 'reference' (the solution's copy of a graded case)",
  REFERENCE_PARAM: "graded runs: the param that carries impl: 'reference'",
  referenceParams: "graded runs: a graded case's params with impl: 'reference'",
  referenceCases: "graded runs: the solution's copies of the graded cases",
  referenceCtx: "graded runs: the context the solution's copies are set up with",
  // The solution's build outputs a grade is a ratio to (LabDefinition, run-protocol.ts, supervisor.ts: the referee's files).
  referenceBuild: "the solution's build outputs (the supervisor's check)",
  referenceBuildOutputs: "LabDefinition: the solution's build outputs a grade checks",
};

/** The identifiers of a TypeScript source, without its comments and the text of its strings and templates. */
export function identifiersOf(source: string): string[] {
  let code = '';
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
      code += ' ';
      i = j + 1;
    } else {
      code += c;
      i++;
    }
  }
  return code.match(/[A-Za-z_$][\w$]*/g) ?? [];
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

/** labs/<lab>/src of every lab, the harness and the core; and the learner's side, exercises/ and solutions/. */
function labSources(): Array<{ file: string; text: string }> {
  const labsDir = path.join(ROOT_DIR, 'labs');
  const labs = readdirSync(labsDir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'node_modules');
  return [
    ...labs.flatMap((lab) => sourcesUnder(path.join(labsDir, lab.name, 'src'))),
    ...sourcesUnder(path.join(ROOT_DIR, 'exercises')),
    ...sourcesUnder(path.join(ROOT_DIR, 'solutions')),
  ];
}

test('identifiersOf leaves out comments and strings', () => {
  assert.deepEqual(identifiersOf("const a = 'the reference'; // reference\n/* reference */ b(`x ${'y'}`, \"it's\")"), ['const', 'a', 'b']);
});

test('no identifier in labs/*/src, exercises/ or solutions/ names "reference" but the meanings listed with why', () => {
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

test('no identifier in labs/*/src, exercises/ or solutions/ spells "analyse": core statistics analyze, a lab\'s own is labAnalysis', () => {
  const found: string[] = [];
  for (const { file, text } of labSources()) {
    for (const name of identifiersOf(text)) if (/[Aa]nalys(e|ed|ing)(?![a-z])|ANALYS(E|ED|ING)(?![A-Z])/.test(name)) found.push(`${name} (${file})`);
  }
  assert.deepEqual([...new Set(found)], []);
});
