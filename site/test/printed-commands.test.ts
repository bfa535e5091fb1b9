/**
 * Every `npm run ...` command the site's pages (episodes/, the site's components, scripts and libraries, the results
 * viewer among them) and the harness's printed messages tell a learner to type exists: its script is in the package's
 * package.json, and each option after `--` is one its CLI declares (the option table in its source). Issue 44: the
 * viewer printed `npm run report -- --compare`, which does not exist (the real one is `npm run lab -- <lab> --compare
 * <run>`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where commands are printed for a learner: the pages, the site's code, and the harness's and labs' messages. */
const SOURCES = ['episodes', 'site/src', 'labs/harness/src', 'labs/event-loop/src', 'labs/task-granularity/src', 'labs/native-kernel/src', 'labs/gpu-batching/src'];
const EXTENSIONS = /\.(ts|mts|astro|mdx|md)$/;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (EXTENSIONS.test(name)) out.push(full);
    }
  };
  walk(path.join(ROOT, dir));
  return out;
}

export interface PrintedCommand {
  file: string;
  line: number;
  text: string;
  /** The npm script ('start' and 'test' included), and the workspace folder given with -w, if any. */
  script: string;
  workspace: string | null;
  /** Tokens before and after the `--` that hands them to the script. */
  npmArgs: string[];
  scriptArgs: string[];
}

/**
 * The commands in a text: from "npm run <script>" (or npm start / npm test) to the end of the command, which ends at
 * a quote, a backtick, the end of the line, or a token that closes a sentence or a parenthesis.
 */
export function extractCommands(text: string, file = ''): PrintedCommand[] {
  const found: PrintedCommand[] = [];
  for (const match of text.matchAll(/\bnpm (?:run ([a-z][\w:-]*)|(start|test))\b([^`"'\n]*)/g)) {
    const script = match[1] ?? match[2]!;
    const tokens: string[] = [];
    for (const raw of (match[3] ?? '').trim().split(/\s+/)) {
      if (raw === '' || raw.startsWith('(')) break;
      // Optional parts in brackets ("[--quick]") are still options of the command; a template's ${...} is a value.
      const token = raw.replace(/^\[+/, '').replace(/\]+$/, '');
      const ends = /[).,;:]$/.test(token) && !/^\$\{.*\}$/.test(token);
      const clean = ends ? token.replace(/[).,;:]+$/, '') : token;
      if (clean !== '') tokens.push(clean);
      if (ends || /^(and|or|then|to|for|with|from|in|on|is|the|a)$/i.test(clean)) break;
    }
    const separator = tokens.indexOf('--');
    const npmArgs = separator < 0 ? tokens.filter((t) => t.startsWith('-')) : tokens.slice(0, separator);
    const scriptArgs = separator < 0 ? [] : tokens.slice(separator + 1);
    const w = npmArgs.findIndex((t) => t === '-w' || t === '--workspace');
    const workspace = w >= 0 ? (tokens[tokens.indexOf(npmArgs[w]!) + 1] ?? null) : null;
    found.push({ file, line: text.slice(0, match.index).split('\n').length, text: match[0].trim(), script, workspace, npmArgs, scriptArgs });
  }
  return found;
}

interface Package {
  dir: string;
  scripts: Record<string, string>;
}

function readPackage(dir: string): Package {
  const json = JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return { dir, scripts: json.scripts ?? {} };
}

/** The options a script's CLI declares: the keys of its parseArgs option table (`name: { type: ... }`) in its source. */
function declaredOptions(pkg: Package, script: string): Set<string> | null {
  const command = pkg.scripts[script] ?? '';
  const file = [...command.matchAll(/\bnode (?:--\S+ )*(\S+\.(?:ts|mjs|js))/g)].at(-1)?.[1];
  if (file === undefined) return null;
  const source = readFileSync(path.join(ROOT, pkg.dir, file), 'utf8');
  const options = new Set<string>();
  for (const m of source.matchAll(/['"]?([a-z][\w-]*)['"]?\s*:\s*\{\s*type:\s*'(string|boolean)'/g)) options.add(m[1]!);
  for (const m of source.matchAll(/short:\s*'([a-z])'/g)) options.add(m[1]!);
  // The harness's one flag parser (command-line.ts) adds -h and --help to every tool's table.
  if (/\bparseCommandLine\(/.test(source)) for (const o of ['help', 'h']) options.add(o);
  return options;
}

/** What is wrong with one printed command, or null when it would run. */
export function commandProblem(command: PrintedCommand, root: Package, workspaces: ReadonlyMap<string, Package>): string | null {
  let pkg = root;
  if (command.workspace !== null) {
    const found = workspaces.get(command.workspace.replace(/\/$/, ''));
    if (!found) return `no workspace ${command.workspace}`;
    pkg = found;
  }
  if (!(command.script in pkg.scripts)) return `${pkg.dir === '.' ? 'package.json' : `${pkg.dir}/package.json`} has no script "${command.script}"`;
  const stray = command.npmArgs.filter((t) => t.startsWith('--') && t !== '--workspace' && t !== '--silent');
  if (stray.length > 0) return `${stray.join(' ')} before "--" goes to npm, not to the script: write npm run ${command.script} -- ${stray.join(' ')}`;
  const options = declaredOptions(pkg, command.script);
  if (options === null) return null;
  for (const token of command.scriptArgs) {
    const option = /^--([a-z][\w-]*)(=.*)?$/.exec(token)?.[1] ?? /^-([a-z])$/.exec(token)?.[1];
    if (option !== undefined && !options.has(option)) return `npm run ${command.script} has no option ${token} (its options: ${[...options].sort().join(', ')})`;
  }
  return null;
}

const WORKSPACES = ['site', 'labs/harness', 'labs/core', 'labs/event-loop', 'labs/task-granularity', 'labs/native-kernel', 'labs/gpu-batching'];

test('the extractor finds a command, its script, its workspace and its options, and stops at the end of the command', () => {
  const [a, b, c, d] = [
    ...extractCommands('then run `npm run lab -- <lab> --compare results/<lab>/<earlier>` and read'),
    ...extractCommands('as "npm run report -- --compare" judges it'),
    ...extractCommands('(or npm run memory-plan -w labs/gpu-batching).'),
    ...extractCommands('npm run lab -- --all [--quick] (no lab name)'),
  ];
  assert.deepEqual([a!.script, a!.scriptArgs], ['lab', ['<lab>', '--compare', 'results/<lab>/<earlier>']]);
  assert.deepEqual([b!.script, b!.scriptArgs], ['report', ['--compare']]);
  assert.deepEqual([c!.script, c!.workspace, c!.scriptArgs], ['memory-plan', 'labs/gpu-batching', []]);
  assert.deepEqual(d!.scriptArgs, ['--all', '--quick']);
  const root = readPackage('.');
  const ws = new Map(WORKSPACES.map((w) => [w, readPackage(w)]));
  // The command the viewer printed before (issue 44) is caught, with the reason.
  assert.match(commandProblem(b!, root, ws) ?? '', /^npm run report has no option --compare \(its options: h, help, out\)$/);
  assert.equal(commandProblem(a!, root, ws), null);
  assert.match(commandProblem(extractCommands('npm run repot -- x')[0]!, root, ws) ?? '', /has no script "repot"/);
  assert.match(commandProblem(extractCommands('npm run lab --quick')[0]!, root, ws) ?? '', /goes to npm, not to the script/);
});

test('every npm command the site and the harness print exists, with options its CLI declares (issue 44)', () => {
  const root = readPackage('.');
  const ws = new Map(WORKSPACES.map((w) => [w, readPackage(w)]));
  const commands = SOURCES.flatMap((dir) => filesUnder(dir)).flatMap((file) => extractCommands(readFileSync(file, 'utf8'), path.relative(ROOT, file)));
  assert.ok(commands.length > 50, `only ${commands.length} commands found: is the extractor broken?`);
  assert.ok(commands.some((c) => c.file === 'site/src/scripts/results-viewer/comparison.ts'), 'the viewer prints commands');
  const problems = commands.flatMap((c) => {
    const problem = commandProblem(c, root, ws);
    return problem === null ? [] : [`${c.file}:${c.line}: ${c.text}\n    ${problem}`];
  });
  assert.deepEqual(problems, []);
});
