/**
 * `npm run report -- <run folder>...`: the learner's optimisation report from one or more lab runs.
 * `npm run report -- validate <results.json>...`: an instructor's check of submissions.
 * Exit codes (errors.ts): 0 ok, 1 a run failed its check or a submission is invalid, 2 bad input (also a file refused
 * unread: a FIFO, a link to a device, a file over the cap; safe-read.ts), 3 internal error.
 * Text quoted from files (problems, reasons) is passed through terminalText before it is printed.
 */
import path from 'node:path';
import { EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, UsageError, runCli } from '../errors.ts';
import { ROOT_DIR } from '../lab-registry.ts';
import { ReportRefusedError } from './learner-report.ts';
import { SELF_REPORTED } from './gradebook.ts';
import { validateFile } from './validate.ts';
import { writeLearnerReport } from './write-learner-report.ts';
import { plausibilityFlags, terminalText } from '@parallel-course/core';
import { parseCommandLine } from '../cli/command-line.ts';

const OPTIONS = {
  out: { type: 'string', help: 'parent folder of the report (default: results/); the report goes to <out>/reports/<timestamp>/' },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const;

export function helpText(): string {
  return [
    'Usage: npm run report -- <run folder>... [--out DIR]   the optimisation report of your runs (oldest first)',
    '       npm run report -- validate <results.json>...    check submissions: schema, correctness, every number',
    '',
    ...Object.entries(OPTIONS).map(([name, o]) => `  ${`--${name}${o.type === 'string' ? ' <value>' : ''}`.padEnd(20)} ${o.help}`),
  ].join('\n');
}

function fromUser(target: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), target);
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv, { out: { type: 'string' } }, helpText(), true);
  if (parsed === null) return EXIT_OK;
  const [first, ...rest] = parsed.positionals;
  if (first === undefined) throw new UsageError(`which runs? Give one or more run folders, e.g. results/event-loop/<timestamp>\n\n${helpText()}`);

  if (first === 'validate') {
    if (rest.length === 0) throw new UsageError('validate needs a file: npm run report -- validate path/to/results.json');
    let invalid = 0;
    let refused = 0;
    for (const target of rest) {
      let result;
      try {
        result = validateFile(fromUser(target));
      } catch (error) {
        // One file that breaks the check must not stop the others: it is invalid, with the reason (never its text).
        invalid++;
        process.stdout.write(`INVALID  ${terminalText(target)}:\n  - could not be checked: ${terminalText((error as Error).message.split('\n')[0] ?? '')}\n`);
        continue;
      }
      const name = terminalText(target);
      if (result.valid) {
        process.stdout.write(`valid    ${name}: schema, correctness and every recomputed number agree\n`);
        // Valid arithmetic on an implausible measurement: said, so nobody reads it as a result (plausibility.ts).
        for (const flag of result.results ? plausibilityFlags(result.results) : []) process.stdout.write(`  warning: implausible: ${terminalText(flag.message)}\n`);
        if (result.results?.runtime === 'browser') process.stdout.write(`  ${SELF_REPORTED}\n`);
      } else if (result.refused) {
        refused++;
        process.stdout.write(`REFUSED  ${name}: ${terminalText(result.refused.message)}\n`);
      } else {
        invalid++;
        process.stdout.write(`INVALID  ${name}:\n${result.problems.map((p) => `  - ${terminalText(p)}`).join('\n')}\n`);
      }
    }
    // A refused file is bad input (exit 2) and outranks an invalid one (exit 1); the other files are still checked.
    return refused > 0 ? EXIT_USAGE : invalid > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  }

  const outRoot = parsed.values.out ? fromUser(parsed.values.out) : path.join(ROOT_DIR, 'results');
  try {
    const written = await writeLearnerReport(parsed.positionals.map(fromUser), outRoot);
    const lines = [
      `Report:  ${written.markdown}`,
      `         ${written.html}`,
      `         ${written.json} (machine-readable)`,
    ];
    for (const notes of written.notesCreated) lines.push(`Notes:   ${notes} was created: write your hypothesis and interpretation there, then run this again.`);
    const missing = written.report.runs.filter((r) => Object.values(r.notes).every((v) => v === null));
    if (missing.length > 0 && written.notesCreated.length === 0) lines.push(`Your own words are missing in ${missing.map((r) => path.join(r.runDir, 'notes.md')).join(', ')}.`);
    process.stdout.write(`${terminalText(lines.join('\n'), { multiline: true })}\n`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ReportRefusedError) {
      process.stderr.write(`error: ${terminalText(error.message, { multiline: true })}\n`);
      return EXIT_CHECK_FAILED;
    }
    // Schema problems and refusals quote the file too; runCli prints the message as it is.
    if (error instanceof Error) error.message = terminalText(error.message, { multiline: true });
    throw error;
  }
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
