/**
 * `npm run profile -- <file.cpuprofile> [--top N]`: the functions that took the time in a CPU profile written by
 * `node --cpu-prof`, as two tables (by self time and by total time), for machines with no browser (an HPC node).
 * Exit codes (errors.ts): 0 ok, 2 bad input (no such file, not a CPU profile, no samples, bad flag), 3 internal error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT_OK, UsageError, runCli } from '../errors.ts';
import { ProfileFormatError, parseCpuProfile, summarizeProfile, type CpuProfile } from './profile-analysis.ts';
import { formatProfileReport } from './profile-table.ts';
import { parseCommandLine } from '../cli/command-line.ts';

/** Rows per table when --top is not given. */
const DEFAULT_TOP = 10;

const OPTIONS = {
  top: { type: 'string', help: `rows per table (default ${DEFAULT_TOP})` },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const;

const RECORD = 'node --cpu-prof --cpu-prof-dir=<dir> <script>';

export function helpText(): string {
  return [
    'Usage: npm run profile -- <file.cpuprofile> [--top N]',
    `  Reads a CPU profile written by: ${RECORD}`,
    '  and prints the top functions by self time and by total (inclusive) time.',
    '',
    ...Object.entries(OPTIONS).map(([name, o]) => `  ${`--${name}${o.type === 'string' ? ' <value>' : ''}`.padEnd(20)} ${o.help}`),
  ].join('\n');
}

/** Relative paths are taken from where the learner typed the command (`npm run` changes the working folder). */
function userDir(): string {
  return process.env.INIT_CWD ?? process.cwd();
}

function parseTop(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TOP;
  const top = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(top) || top < 1) {
    throw new UsageError(`--top must be a positive integer (rows per table), got '${text}'; e.g. --top 20`);
  }
  return top;
}

/** Reads and validates the profile; every failure becomes a UsageError naming the file, the problem and the fix. */
function readProfile(file: string, shownAs: string): CpuProfile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new UsageError(
        `cannot read ${shownAs}: no such file (relative paths start in ${userDir()}); ` +
          `${RECORD} writes CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile into <dir>`,
      );
    }
    if (code === 'EISDIR') {
      const inside = readdirSync(file).filter((f) => f.endsWith('.cpuprofile'));
      const hint = inside.length > 0 ? `it holds ${inside.join(', ')}` : 'it holds no .cpuprofile file';
      throw new UsageError(`${shownAs} is a folder; give one .cpuprofile file in it (${hint})`);
    }
    throw new UsageError(`cannot read ${shownAs}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${shownAs} is not JSON (${(error as Error).message}); a .cpuprofile is the JSON file that ${RECORD} writes`);
  }
  try {
    return parseCpuProfile(json);
  } catch (error) {
    if (error instanceof ProfileFormatError) throw new UsageError(`${shownAs}: ${error.problem}; ${error.fix}`);
    throw error;
  }
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv, { top: { type: 'string' } }, helpText(), true);
  if (parsed === null) return EXIT_OK;
  const top = parseTop(parsed.values.top);
  const files = parsed.positionals;
  if (files.length === 0) throw new UsageError(`which profile? Give the .cpuprofile file that ${RECORD} wrote\n\n${helpText()}`);
  if (files.length > 1) throw new UsageError(`one profile at a time, got ${files.length}: ${files.join(', ')}`);
  const shownAs = files[0] as string;
  const profile = readProfile(path.resolve(userDir(), shownAs), shownAs);
  process.stdout.write(`${formatProfileReport(summarizeProfile(profile), top, userDir())}\n`);
  return EXIT_OK;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
