/**
 * The one way the harness's commands read their flags (cli.ts and every tools/*-cli.ts): node:util's parseArgs,
 * strict, with `-h/--help` added to every table. A flag it does not know, or a value of the wrong kind, becomes a
 * UsageError (exit code 2) with the parser's message and then the command's help; `--help` prints the help and the
 * caller returns EXIT_OK.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.ts';

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

type Options = NonNullable<ParseArgsConfig['options']>;
type Config<O extends Options, P extends boolean> = { args: string[]; strict: true; allowPositionals: P; options: O & typeof HELP_OPTION };

/** What parseArgs returns for these options: `values` typed by the option table, `positionals` when allowed. */
export type CommandLine<O extends Options, P extends boolean = false> = ReturnType<typeof parseArgs<Config<O, P>>>;

/**
 * Parses `argv` against `options` (plus --help), printing nothing: --help is `values.help`, for a caller that decides
 * itself what it does (cli.ts's parseCommand, a pure function). Throws UsageError ("<what is wrong>\n\n<help>") on a
 * flag it cannot read.
 */
export function readCommandLine<const O extends Options, const P extends boolean = false>(
  argv: string[],
  options: O,
  help: string,
  allowPositionals?: P,
): CommandLine<O, P> {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: (allowPositionals ?? false) as P, options: { ...options, ...HELP_OPTION } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${help}`);
  }
}

/**
 * Parses `argv` against `options` (plus --help). Returns null when --help was given, after printing `help` to stdout;
 * throws UsageError ("<what is wrong>\n\n<help>") on a flag it cannot read.
 */
export function parseCommandLine<const O extends Options, const P extends boolean = false>(
  argv: string[],
  options: O,
  help: string,
  allowPositionals?: P,
): CommandLine<O, P> | null {
  const parsed = readCommandLine(argv, options, help, allowPositionals);
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${help}\n`);
    return null;
  }
  return parsed;
}
