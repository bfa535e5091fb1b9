/**
 * `npm run lab -- ...`: the command line of the harness. One option table drives parsing and the help text.
 * Exit codes: 0 ok, 1 the implementation failed its check or is not implemented, 2 bad input, 3 internal error.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { exitCodeFor, EXIT_OK, UsageError } from './errors.ts';
import type { Impl } from './lab-definition.ts';
import { labNames, loadLab, ROOT_DIR } from './lab-registry.ts';
import { runLab } from './run-lab.ts';

const OPTIONS = {
  impl: { type: 'string', default: 'exercise', help: 'exercise (your code, the default) or solution (the reference)' },
  quick: { type: 'boolean', default: false, help: 'fewer samples and a smaller sweep: about a minute' },
  out: { type: 'string', help: 'folder for results (default: results/); each run gets <out>/<lab>/<timestamp>/' },
  seed: { type: 'string', help: 'seed of the inputs and of the bootstrap (an integer)' },
  list: { type: 'boolean', default: false, help: 'list the labs' },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const;

export function helpText(): string {
  const rows = Object.entries(OPTIONS).map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ' <value>' : ''}`;
    return `  ${flag.padEnd(20)} ${o.help}`;
  });
  return [
    'Usage: npm run lab -- <lab> [--impl exercise|solution] [--quick] [--out DIR] [--seed N]',
    '       npm run lab -- --list',
    '',
    ...rows,
  ].join('\n');
}

export interface ParsedCommand {
  kind: 'help' | 'list' | 'run';
  lab?: string;
  impl: Impl;
  quick: boolean;
  out?: string;
  seed?: number;
}

/** Parses and validates argv; throws UsageError with the fix for anything wrong. */
export function parseCommand(argv: string[]): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries(
        Object.entries(OPTIONS).map(([k, o]) => [k, { type: o.type, ...('short' in o ? { short: o.short } : {}) }]),
      ),
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${helpText()}`);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const impl = (values.impl as string | undefined) ?? 'exercise';
  if (impl !== 'exercise' && impl !== 'solution') {
    throw new UsageError(`--impl must be 'exercise' or 'solution', not '${impl}'`);
  }
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed must be an integer, not '${values.seed}'`);
  }
  const base = { impl: impl as Impl, quick: values.quick === true, ...(values.out ? { out: values.out as string } : {}), ...(seed !== undefined ? { seed } : {}) };
  if (values.help) return { kind: 'help', ...base };
  if (values.list) return { kind: 'list', ...base };
  if (parsed.positionals.length === 0) {
    throw new UsageError(`which lab? The labs are: ${labNames().join(', ')}\n\n${helpText()}`);
  }
  if (parsed.positionals.length > 1) {
    throw new UsageError(`one lab at a time, got: ${parsed.positionals.join(' ')}`);
  }
  return { kind: 'run', lab: parsed.positionals[0], ...base };
}

export async function main(argv: string[]): Promise<number> {
  const command = parseCommand(argv);
  if (command.kind === 'help') {
    process.stdout.write(`${helpText()}\n`);
    return EXIT_OK;
  }
  if (command.kind === 'list') {
    for (const name of labNames()) {
      const lab = await loadLab(name);
      process.stdout.write(`${name.padEnd(20)} ${lab.summary}\n`);
    }
    return EXIT_OK;
  }
  const outcome = await runLab({
    lab: command.lab as string,
    impl: command.impl,
    quick: command.quick,
    ...(command.out ? { outDir: path.resolve(process.env.INIT_CWD ?? process.cwd(), command.out) } : {}),
    ...(command.seed !== undefined ? { seed: command.seed } : {}),
    command: `npm run lab -- ${argv.join(' ')}`,
    rootDir: ROOT_DIR,
  });
  return outcome.exitCode;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const code = exitCodeFor(error);
      const message = error instanceof Error ? (code === 3 ? (error.stack ?? error.message) : error.message) : String(error);
      process.stderr.write(`error: ${message}\n`);
      process.exitCode = code;
    },
  );
}
