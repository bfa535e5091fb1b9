/**
 * `npm run class -- <folder of submissions> [--out DIR]`: the class page, written to <out>/class/<timestamp>/class.html
 * (default out: results/). Exit codes (errors.ts): 0 page written (also with invalid submissions), 2 bad input.
 */
import path from 'node:path';
import { EXIT_OK, UsageError, runCli } from '../errors.ts';
import { ROOT_DIR } from '../lab-registry.ts';
import { createRunDir, writeFileAtomic } from '../write/results-writer.ts';
import { MAX_RESULTS_BYTES } from '../write/safe-read.ts';
import { loadSubmissions, renderClassPage } from './class-page.ts';
import { isFolder } from '../write/results-reader.ts';
import { gradebookCsv, gradebookRow } from './gradebook.ts';
import { formatBytes, terminalText } from '@parallel-course/core';
import { parseCommandLine } from '../cli/command-line.ts';

const HELP = [
  'Usage: npm run class -- <folder of submissions> [--out DIR]',
  '  Every *.json under the folder is validated; the page shows a table and the scaling curves of the valid ones',
  '  and lists every invalid one with its reasons. The learner is named by the file path (alice/results.json -> alice).',
  `  A *.json that is not a regular file (a FIFO, a link to a device) or is over ${formatBytes(MAX_RESULTS_BYTES)} is refused unread and listed.`,
  '',
  '  --out <value>        parent folder of the page (default: results/); the page goes to <out>/class/<timestamp>/',
  '  --course <dir>       the course checkout whose solutions/<lab> every grade must have been measured against',
  '                       (default: this one); a grade measured against a changed solution is refused',
  '  --help               show this help',
].join('\n');

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv, { out: { type: 'string' }, course: { type: 'string' } }, HELP, true);
  if (parsed === null) return EXIT_OK;
  if (parsed.positionals.length !== 1) throw new UsageError(`give one folder of submissions\n\n${HELP}`);
  const base = process.env.INIT_CWD ?? process.cwd();
  const dir = path.resolve(base, parsed.positionals[0] as string);
  if (!isFolder(dir)) throw new UsageError(`${parsed.positionals[0]} is not a folder: give the folder that holds the learners' results.json files`);
  const validation = { courseRoot: parsed.values.course ? path.resolve(base, parsed.values.course) : ROOT_DIR };
  const submissions = loadSubmissions(dir, validation);
  if (submissions.length === 0) throw new UsageError(`no .json files under ${dir}: collect the learners' results.json files there (one folder or file name per learner)`);
  const outRoot = parsed.values.out ? path.resolve(base, parsed.values.out) : path.join(ROOT_DIR, 'results');
  const now = new Date();
  const runDir = createRunDir(outRoot, 'class', now);
  const file = path.join(runDir, 'class.html');
  writeFileAtomic(file, renderClassPage(dir, submissions, now, validation));
  // The gradebook: one row per learner and lab, for an LMS (class-page.ts shows the same table).
  const csv = path.join(runDir, 'gradebook.csv');
  writeFileAtomic(csv, gradebookCsv(submissions.map((s) => gradebookRow(s.name, s.file, validation))));
  const refused = submissions.filter((s) => s.refused !== null);
  const invalid = submissions.filter((s) => s.results === null && s.refused === null);
  const valid = submissions.length - invalid.length - refused.length;
  // Names and problems quote the files (variant names, reasons): sanitised so no escape sequence reaches the terminal.
  const lines = [`${valid} valid, ${invalid.length} invalid submissions${refused.length > 0 ? `, ${refused.length} file${refused.length === 1 ? '' : 's'} refused unread` : ''}`];
  for (const s of invalid) lines.push(`  invalid: ${terminalText(s.name)}: ${terminalText(s.problems[0] ?? '')}${s.problems.length > 1 ? ` (+${s.problems.length - 1} more)` : ''}`);
  for (const s of refused) lines.push(`  refused: ${terminalText(s.name)}: ${terminalText(s.refused ?? '')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(`Class page: ${file}\nGradebook:  ${csv}\n`);
  return EXIT_OK;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
