/**
 * `npm run new-lab -- <name> [--title "..."]`: writes a new lab that runs from the first minute (issue 41): its own
 * test passes, it has the common shape but for its episode, it plans within the run budgets, it type-checks. Files:
 * labs/<name>/ (package.json, tsconfig.json, README.md, src/lab.ts, src/learner-files.ts,
 * src/workload.ts, src/estimates.ts, test/<name>.test.ts), exercises/<name>/<name>.ts (calls notImplemented) and
 * solutions/<name>/<name>.ts (correct). The workload is a placeholder to replace: a sum of squares, the serial loop
 * as the baseline and the learner's function as the headline. It writes no episode: a new file in episodes/ joins
 * the site's schedule, time budget and voice checks, so the episode is the first of the next steps it prints.
 *
 * Every file is new: a name that is not lower-case words joined by single dashes, a reserved name, or a lab,
 * exercise or solution folder that already exists is refused before anything is written (exit 2), and each file is
 * created with the `wx` flag, so nothing is ever overwritten. Exit codes: 0 written, 2 bad input, 3 internal error.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT_OK, UsageError, runCli } from '../errors.ts';
import { ROOT_DIR } from '../lab-registry.ts';
import { parseCommandLine } from '../cli/command-line.ts';

/**
 * The templates (new-lab-template/, plain text so that nothing type-checks or imports them before `{{name}}`, `{{title}}`
 * and `{{titleLiteral}}` are filled in) and where each one goes, relative to the root.
 */
const TEMPLATES: ReadonlyArray<readonly [template: string, target: string]> = [
  ['package.json', 'labs/{{name}}/package.json'],
  ['tsconfig.json', 'labs/{{name}}/tsconfig.json'],
  ['README.md', 'labs/{{name}}/README.md'],
  ['lab.ts', 'labs/{{name}}/src/lab.ts'],
  ['learner-files.ts', 'labs/{{name}}/src/learner-files.ts'],
  ['workload.ts', 'labs/{{name}}/src/workload.ts'],
  ['estimates.ts', 'labs/{{name}}/src/estimates.ts'],
  ['lab.test.ts', 'labs/{{name}}/test/{{name}}.test.ts'],
  ['exercise.ts', 'exercises/{{name}}/{{name}}.ts'],
  ['solution.ts', 'solutions/{{name}}/{{name}}.ts'],
];

const TEMPLATE_DIR = new URL('./new-lab-template/', import.meta.url);

/** The new lab's files, relative path -> text, in the order they are written. */
function labFiles(name: string, title: string): Array<[file: string, text: string]> {
  // {{titleLiteral}}: the title as a single-quoted TypeScript string (quotes and backslashes escaped).
  const literal = `'${title.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  // Replacement functions, not strings: a `$&` in a title is text, not a pattern.
  const fill = (text: string) => text.replaceAll('{{name}}', () => name).replaceAll('{{titleLiteral}}', () => literal).replaceAll('{{title}}', () => title);
  return TEMPLATES.map(([template, target]) => [fill(target), fill(readFileSync(new URL(`${template}.txt`, TEMPLATE_DIR), 'utf8'))]);
}

const USAGE = 'Usage: npm run new-lab -- <name> [--title "<title>"]   (name: lower-case words joined by dashes, e.g. prefix-sums)';

/** A lab's name: lower-case letters and digits, words joined by single dashes, starting with a letter. */
const NAME_RULE = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** Longest name accepted: it becomes a folder, a package name and part of every run folder's path. */
const MAX_NAME_LENGTH = 40;

/** Folders under labs/ that are not labs, and workspace names already taken (@parallel-course/site). */
const RESERVED = new Set(['harness', 'core', 'site']);

export interface NewLabOptions {
  name: string;
  /** The lab's title (LabDefinition.title); default the name's words, capitalised ("prefix-sums" -> "Prefix sums"). */
  title?: string;
  /** The repository root the lab is written into; default this checkout's. */
  rootDir?: string;
}

export interface NewLab {
  /** The files written, relative to the root, in the order they were written. */
  files: string[];
  /** What the maintainer does next, one numbered step a line. */
  nextSteps: string[];
}

/** Throws UsageError naming the problem and the fix when `name` cannot be a new lab in `rootDir`. */
function checkNewLabName(name: string, rootDir: string): void {
  if (!NAME_RULE.test(name)) {
    throw new UsageError(
      `'${name}' is not a lab name: use lower-case letters and digits, words joined by single dashes, starting with a letter (e.g. prefix-sums)\n${USAGE}`,
    );
  }
  if (name.length > MAX_NAME_LENGTH) throw new UsageError(`'${name}' is ${name.length} characters long: a lab name has at most ${MAX_NAME_LENGTH}; choose a shorter one`);
  if (RESERVED.has(name)) throw new UsageError(`'${name}' is reserved (labs/harness, labs/core and the site's package use it): choose another name`);
  for (const folder of ['labs', 'exercises', 'solutions']) {
    const taken = path.join(rootDir, folder, name);
    if (existsSync(taken)) {
      throw new UsageError(`${folder}/${name} already exists: choose another name, or remove ${folder}/${name} first if it is left over from an earlier try (nothing was written)`);
    }
  }
}

/** The default title: "prefix-sums" -> "Prefix sums". */
export function titleOf(name: string): string {
  const words = name.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Writes the new lab's files into `rootDir`; refuses (UsageError, nothing written) on a bad or taken name. */
export function scaffoldLab(options: NewLabOptions): NewLab {
  const rootDir = options.rootDir ?? ROOT_DIR;
  const name = options.name;
  checkNewLabName(name, rootDir);
  const title = (options.title ?? titleOf(name)).trim();
  if (title === '' || /[\r\n]/.test(title)) throw new UsageError(`--title must be one non-empty line (got ${JSON.stringify(options.title)}): e.g. --title "Prefix sums on a pool"`);
  const files = labFiles(name, title);
  for (const dir of ['labs', 'exercises', 'solutions']) {
    if (!existsSync(path.join(rootDir, dir))) throw new UsageError(`${path.join(rootDir, dir)} does not exist: run this from the course's repository root`);
  }
  const written: string[] = [];
  for (const [file, text] of files) {
    const target = path.join(rootDir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text, { flag: 'wx' }); // never overwrite: EEXIST if something appeared since the check
    written.push(file);
  }
  return { files: written, nextSteps: nextSteps(name) };
}

/** What a maintainer does after the scaffold, in order. */
export function nextSteps(name: string): string[] {
  return [
    `Write the lab's episode: episodes/NN-<slug>.mdx with \`lab: ${name}\` in its frontmatter (or a <RunLab lab="${name}" /> in an episode that teaches it), and set \`episode\` in labs/${name}/src/lab.ts to it; for the learner file, a hint, a stronger hint and the solution, folded (exercises-hide-solutions.test.ts). Not written for you: every file in episodes/ joins the site's schedule, time budget and voice checks. Until then lab-shape.test.ts fails on "its episode ... exists".`,
    `Replace the placeholder workload (a sum of squares): labs/${name}/src/workload.ts, the variants, inputs and cases in src/lab.ts, the learner file exercises/${name}/${name}.ts (keep its TODO(learner) and notImplemented call) and solutions/${name}/${name}.ts (same exports), labs/${name}/README.md.`,
    `Time the new workload on the course machine (labs/${name}/src/estimates.ts: COURSE_MACHINE_RATES and each case's estimate); \`npm run plan\` shows the planned run times.`,
    `Add the solution's key lines for '${name}' to KEY_LINES in labs/harness/test/exercises-hide-solutions.test.ts.`,
    'npm install   (records the new workspace in package-lock.json)',
    'npm run typecheck',
    `node --test labs/${name}/test/${name}.test.ts labs/harness/test/lab-shape.test.ts`,
    `npm run lab -- ${name} --impl solution, then npm run reference -- results --lab ${name}   (its committed reference run)`,
    'node labs/harness/src/tools/readme-commands.ts --write   (the README\'s commands block)',
  ];
}

export async function main(argv: string[], rootDir = ROOT_DIR): Promise<number> {
  const parsed = parseCommandLine(argv, { title: { type: 'string' } }, USAGE, true);
  if (!parsed) return EXIT_OK;
  const [name, ...extra] = parsed.positionals;
  if (name === undefined) throw new UsageError(`name the new lab\n${USAGE}`);
  if (extra.length > 0) throw new UsageError(`one lab at a time: got ${parsed.positionals.join(', ')}\n${USAGE}`);
  const made = scaffoldLab({ name, rootDir, ...(parsed.values.title !== undefined ? { title: parsed.values.title } : {}) });
  process.stdout.write(`Wrote the lab '${name}' (${made.files.length} files):\n${made.files.map((f) => `  ${f}`).join('\n')}\n\n`);
  process.stdout.write(`It runs now: npm run lab -- ${name} --quick   (the exercise fails with "not implemented"; --impl solution passes)\n\nNext steps:\n`);
  process.stdout.write(`${made.nextSteps.map((s, i) => `  ${i + 1}. ${s}`).join('\n')}\n`);
  return EXIT_OK;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
