/**
 * `npm run lab -- ...`: the command line of the harness. One option table drives parsing and the help text.
 * Exit codes: 0 ok, 1 the implementation failed its check or is not implemented, 2 bad input, 3 internal error.
 */
import path from 'node:path';
import { formatSeconds } from '@parallel-course/core';
import { comparabilityCaveats, compareRuns, formatComparison } from './analyse/compare.ts';
import { stdoutSummaryWidth } from './text-table.ts';
import { cpuBudget, parseForcedCpus } from './machine/cpus.ts';
import { EXIT_OK, UsageError, runCli } from './errors.ts';
import type { Impl } from './lab-definition.ts';
import { labNames, loadLab, ROOT_DIR } from './lab-registry.ts';
import { listRuns, readResults } from './write/results-reader.ts';
import { runLab } from './run/run-lab.ts';
import { checkForStatus, designedFailuresOf, formatStatus, labStatus } from './cli/status.ts';
import { cachedCheck, statusCachePath } from './cli/status-cache.ts';
import { ensureNotes } from './write/notes.ts';
import { parsePrediction, savePrediction, type Prediction } from './write/prediction.ts';
import { writeBesideResults } from './write/results-writer.ts';
import { watchLab } from './cli/watch.ts';
import { bundleExitCode, runBundle } from './cli/bundle.ts';
import { recordCommandLine } from './write/safe-read.ts';
import { readCommandLine } from './cli/command-line.ts';

/**
 * The options: their type, short flag and default go to the flag reader as they are, and the help is made from the rows
 * (a default is printed after the option's text). A flag left out is false (undefined).
 */
export const OPTIONS = {
  impl: { type: 'string', default: 'exercise', help: 'exercise (your code) or solution (the course\'s)' },
  quick: { type: 'boolean', help: 'fewer samples and a smaller sweep (README.md lists each lab\'s planned time)' },
  out: { type: 'string', help: 'folder for results (default: results/); each run gets <out>/<lab>/<timestamp>/' },
  seed: { type: 'string', help: 'seed of the inputs and of the bootstrap (an integer)' },
  cpus: { type: 'string', help: 'run with P forced to N instead of the CPUs this job may use: sweep and pools sized for N (flagged as forced)' },
  list: { type: 'boolean', help: 'list the labs' },
  all: { type: 'boolean', help: 'run every lab in turn into one bundle folder <out>/all/<timestamp>/ with an index page' },
  watch: { type: 'boolean', help: 're-run the correctness check on every save of your code (no timing)' },
  measure: { type: 'boolean', help: 'with --watch: also measure (--quick) after each passing check' },
  compare: { type: 'string', help: 'an earlier run folder: a faster / slower / within-noise verdict per case' },
  predict: { type: 'string', help: 'the headline speedup you expect (e.g. 1.8), kept with the run for the report' },
  why: { type: 'string', help: 'with --predict: why you expect it, in one sentence' },
  status: { type: 'boolean', help: "each lab's state (not started, failing, passing, measured) and what to do next; rechecks only labs whose files changed" },
  grade: { type: 'boolean', help: "measure your code beside the solution in one run and grade it against the lab's target" },
  'trusted-code': { type: 'boolean', help: "instructors: with --grade, grade where no OS sandbox (bubblewrap) can start; only for code you trust" },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const;

export function helpText(): string {
  const rows = Object.entries(OPTIONS).map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ' <value>' : ''}`;
    return `  ${flag.padEnd(20)} ${o.help}${'default' in o ? ` (default: ${o.default})` : ''}`;
  });
  return [
    'Usage: npm run lab -- <lab> [--impl exercise|solution] [--quick] [--out DIR] [--seed N] [--cpus N]',
    '                           [--compare RUN_FOLDER] [--predict SPEEDUP --why TEXT]',
    '       npm run lab -- <lab> --grade [--quick]',
    '       npm run lab -- <lab> --watch [--measure]',
    '       npm run lab -- --all [--quick] [--impl solution] [--cpus N]',
    '       npm run lab -- --status',
    '       npm run lab -- --list',
    '',
    ...rows,
  ].join('\n');
}

export interface ParsedCommand {
  kind: 'help' | 'list' | 'run' | 'watch' | 'status' | 'all';
  lab?: string;
  impl: Impl;
  quick: boolean;
  out?: string;
  seed?: number;
  /** --cpus: the CPU count to plan the sweep for. */
  cpus?: number;
  /** --grade: measure the solution beside the learner's code and grade it. */
  grade?: boolean;
  /** --trusted-code: grade without an OS sandbox (supervisor.ts TRUSTED_CODE_FLAG). */
  trustedCode?: boolean;
  /** --watch --measure: measure after each passing check. */
  measure?: boolean;
  /** --compare: the earlier run folder (or results.json), as given. */
  compare?: string;
  /** --predict / --why, validated. */
  prediction?: Prediction;
}

/** Parses and validates argv; throws UsageError with the fix for anything wrong. */
export function parseCommand(argv: string[]): ParsedCommand {
  const options = Object.fromEntries(
    Object.entries(OPTIONS).map(([k, o]) => [k, { type: o.type, ...('short' in o ? { short: o.short } : {}), ...('default' in o ? { default: o.default } : {}) }]),
  ) as Record<string, { type: 'string' | 'boolean'; short?: string; default?: string }>;
  const parsed = readCommandLine(argv, options, helpText(), true);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const impl = values.impl as string;
  if (impl !== 'exercise' && impl !== 'solution') {
    throw new UsageError(`--impl must be 'exercise' or 'solution', not '${impl}'`);
  }
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed must be an integer, not '${values.seed}'`);
  }
  let cpus: number | undefined;
  if (values.cpus !== undefined) {
    try {
      cpus = parseForcedCpus(values.cpus as string, '--cpus');
    } catch (error) {
      throw new UsageError(`${(error as Error).message}: e.g. --cpus 8 (see episode 05 on oversubscription)`);
    }
  }
  const base = {
    impl: impl as Impl,
    quick: values.quick === true,
    ...(values.out ? { out: values.out as string } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(cpus !== undefined ? { cpus } : {}),
  };
  if (values.help) return { kind: 'help', ...base };
  if (values.list) return { kind: 'list', ...base };
  if (values.measure && !values.watch) {
    throw new UsageError('--measure goes with --watch (a normal run always measures): npm run lab -- <lab> --watch --measure');
  }
  if (values.why !== undefined && values.predict === undefined) {
    throw new UsageError('--why goes with --predict: npm run lab -- <lab> --predict 1.8 --why "..."');
  }
  if (values.all) {
    if (parsed.positionals.length > 0) throw new UsageError('--all runs every lab: npm run lab -- --all [--quick] (no lab name)');
    if (values.watch || values.compare !== undefined || values.predict !== undefined) throw new UsageError('--all goes with --quick, --impl, --out, --seed and --cpus only');
    return { kind: 'all', ...base };
  }
  if (values.status) {
    if (parsed.positionals.length > 0) throw new UsageError('--status shows every lab: npm run lab -- --status (no lab name)');
    return { kind: 'status', ...base };
  }
  if (values.watch && (values.compare !== undefined || values.predict !== undefined)) {
    throw new UsageError('--watch only checks your code; use --compare and --predict with a normal run: npm run lab -- <lab> --compare DIR');
  }
  const extra = {
    ...(values.compare !== undefined ? { compare: values.compare as string } : {}),
    ...(values.predict !== undefined ? { prediction: parsePrediction(values.predict as string, values.why as string | undefined) } : {}),
  };
  if (parsed.positionals.length === 0) {
    throw new UsageError(`which lab? The labs are: ${labNames().join(', ')}\n\n${helpText()}`);
  }
  if (parsed.positionals.length > 1) {
    throw new UsageError(`one lab at a time, got: ${parsed.positionals.join(' ')}`);
  }
  if (values.watch) {
    if (values.grade) throw new UsageError('--grade measures; use it with a normal run: npm run lab -- <lab> --grade');
    return { kind: 'watch', lab: parsed.positionals[0], ...base, ...(values.measure ? { measure: true } : {}) };
  }
  if (values['trusted-code'] && !values.grade) throw new UsageError('--trusted-code only changes a grade: use it with --grade (npm run lab -- <lab> --grade --trusted-code)');
  return { kind: 'run', lab: parsed.positionals[0], ...base, ...extra, ...(values.grade ? { grade: true } : {}), ...(values['trusted-code'] ? { trustedCode: true } : {}) };
}

/** Paths on the command line are relative to where the learner typed `npm run` (npm changes into the root). */
function fromUser(target: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), target);
}

async function showStatus(command: ParsedCommand): Promise<number> {
  const outRoot = command.out ? fromUser(command.out) : path.join(ROOT_DIR, 'results');
  const statuses = [];
  const reused = new Set<string>();
  for (const lab of labNames()) {
    const { value, reused: fromCache } = await cachedCheck({
      lab,
      rootDir: ROOT_DIR,
      cacheFile: statusCachePath(ROOT_DIR),
      extra: { p: cpuBudget().p },
      async compute() {
        // The first --status checks every lab (a fresh clone: a minute or more, most of it the labs' expected outputs on their
        // check inputs): each line says which and how long, so the wait is explained.
        process.stderr.write(`checking ${lab}'s exercise against its expected outputs (new or changed since the last --status)...`);
        const started = performance.now();
        const check = await checkForStatus({ lab, impl: 'exercise', rootDir: ROOT_DIR });
        process.stderr.write(` ${formatSeconds(performance.now() - started)}\n`);
        if ('error' in check) return { check, designedFailures: [] };
        return { check: check.correctness, designedFailures: designedFailuresOf(await loadLab(lab), ROOT_DIR) };
      },
    });
    if (fromCache) reused.add(lab);
    statuses.push(labStatus(lab, value.check, listRuns(outRoot, lab), value.designedFailures));
  }
  process.stdout.write(`${formatStatus(statuses, reused)}\n`);
  return EXIT_OK;
}

/** Runs until Ctrl+C; each save of the learner's files starts a check. */
async function watch(command: ParsedCommand): Promise<number> {
  await loadLab(command.lab as string); // an unknown lab is a usage error now, not in the child
  const handle = watchLab({
    lab: command.lab as string,
    impl: command.impl,
    rootDir: ROOT_DIR,
    ...(command.seed !== undefined ? { seed: command.seed } : {}),
    ...(command.measure ? { measure: true, measureArgs: command.out ? ['--out', fromUser(command.out)] : [] } : {}),
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await handle.close();
  return EXIT_OK;
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
  if (command.kind === 'status') return showStatus(command);
  if (command.kind === 'all') {
    const { dir, entries } = await runBundle({
      labs: labNames(),
      impl: command.impl,
      quick: command.quick,
      outRoot: command.out ? fromUser(command.out) : path.join(ROOT_DIR, 'results'),
      rootDir: ROOT_DIR,
      ...(command.seed !== undefined ? { seed: command.seed } : {}),
      ...(command.cpus !== undefined ? { cpus: command.cpus } : {}),
      onLab: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`\nAll labs: ${path.join(dir, 'index.html')}\n`);
    for (const e of entries) process.stdout.write(`  ${e.lab.padEnd(18)} exit ${e.exitCode}  ${e.message}\n`);
    return bundleExitCode(entries);
  }
  if (command.kind === 'watch') return watch(command);
  // Read the earlier run before this one starts, so a wrong folder fails in a second, not after the run.
  const earlier = command.compare !== undefined ? readResults(fromUser(command.compare)) : null;
  if (earlier && earlier.results.lab !== command.lab) {
    throw new UsageError(`--compare ${command.compare} is a run of '${earlier.results.lab}', not '${command.lab}': give a run folder under results/${command.lab}/`);
  }
  if (earlier) comparabilityCaveats(earlier.results, 'earlier'); // a run that does not recompute is refused now, not after this run
  const outcome = await runLab({
    lab: command.lab as string,
    impl: command.impl,
    quick: command.quick,
    ...(command.out ? { outDir: path.resolve(process.env.INIT_CWD ?? process.cwd(), command.out) } : {}),
    ...(command.seed !== undefined ? { seed: command.seed } : {}),
    ...(command.cpus !== undefined ? { cpus: command.cpus } : {}),
    ...(command.grade ? { grade: true } : {}),
    ...(command.trustedCode ? { trustedCode: true } : {}),
    command: recordCommandLine('npm run lab --', argv),
    rootDir: ROOT_DIR,
  });
  if (outcome.runDir !== null && outcome.results !== null) {
    // The results are written: a full disk now costs the small files beside them a warning, not the run its exit code.
    const runDir = outcome.runDir;
    const results = outcome.results;
    const prediction = command.prediction;
    if (prediction && writeBesideResults('prediction.json', runDir, () => savePrediction(runDir, prediction))) {
      process.stdout.write(`Prediction: ${prediction.speedup}x, kept in ${path.join(runDir, 'prediction.json')}\n`);
    }
    let notesFile = '';
    if (writeBesideResults('notes.md', runDir, () => (notesFile = ensureNotes(runDir, results.lab, results.startedAt).file))) {
      process.stdout.write(`Your notes: ${notesFile} (your hypothesis and interpretation; then npm run report -- ${runDir})\n`);
    }
    if (earlier) process.stdout.write(`\n${formatComparison(compareRuns(earlier.results, outcome.results), stdoutSummaryWidth() ?? Number.POSITIVE_INFINITY)}\n`);
  } else if (command.prediction || earlier) {
    process.stdout.write('No run folder was written (the check failed), so there is nothing to compare and the prediction was not kept.\n');
  }
  return outcome.exitCode;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
