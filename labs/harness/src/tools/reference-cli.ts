/**
 * `npm run reference -- <bundle or results folder> [--out reference]`: makes the course's reference runs (issue 20)
 * from a finished run of the labs, normally an `npm run lab -- --all --impl solution` bundle (`results/all/<time>/`).
 *
 * For every lab with a run there (the newest valid one), it
 *   1. copies results.json, notes.md and report.md (no charts/ PNGs or report.html: they are regenerable and large)
 *      into `<out>/<lab>/<time>/`, replacing that lab's earlier reference runs;
 *   2. regenerates analysis/ with this version of the lab's analysis, values.json included (lab-analysis.ts);
 *   3. checks the copy as CI does: results as `npm run report -- validate` checks them, values.json by its schema;
 * then writes `<out>/README.md` naming the command, the machine(s) and the dates. A lab without a valid run keeps
 * its earlier reference run, and the tool says so. `--lab <lab>` (repeatable) limits it to those labs;
 * `npm run reference -- reference --lab <lab>` regenerates a reference run's analysis in place after the lab's
 * analysis changed. Exit codes: 0 ok, 1 a run failed its check, 2 bad input.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runLabAnalysis, writeAnalysis } from '../analyse/lab-analysis.ts';
import { EXIT_CHECK_FAILED, EXIT_OK, UsageError, runCli } from '../errors.ts';
import { labNames, ROOT_DIR } from '../lab-registry.ts';
import type { Results } from '@parallel-course/core';
import { formatLoadAverage, machineText } from '@parallel-course/core';
import { checkRunFolder, findRunFolders, labsWithRuns } from './run-folders.ts';
import { parseCommandLine } from '../cli/command-line.ts';

const USAGE = 'Usage: npm run reference -- <bundle folder | results folder> [--out <folder>] [--lab <lab>]...   (default out: reference/, every lab)';

/** The files of a run folder the reference keeps, besides the regenerated analysis/. */
export const REFERENCE_FILES = ['results.json', 'notes.md', 'report.md'] as const;

export interface ReferenceEntry {
  lab: string;
  /** The run folder copied from, or null when the source had no valid run of the lab. */
  from: string | null;
  /** The reference run folder written, or null. */
  to: string | null;
  results: Results | null;
  problems: string[];
}

/** Copies the newest valid run of each lab under `source` into `outDir` (see the file's comment); pure of stdout. */
export async function makeReference(source: string, outDir: string, rootDir = ROOT_DIR, only?: readonly string[]): Promise<ReferenceEntry[]> {
  const labs = labNames(rootDir).filter((lab) => !only || only.length === 0 || only.includes(lab));
  const entries: ReferenceEntry[] = [];
  for (const lab of labs) {
    const candidates = findRunFolders(source, lab).reverse();
    let picked: { dir: string; results: Results } | null = null;
    const skipped: string[] = [];
    for (const dir of candidates) {
      const checked = checkRunFolder(dir);
      const resultsProblems = checked.problems.filter((p) => !p.startsWith('values.json'));
      if (checked.results && resultsProblems.length === 0 && checked.results.impl === 'solution') {
        picked = { dir, results: checked.results };
        break;
      }
      skipped.push(`${dir}: ${checked.results?.impl === 'exercise' ? 'an exercise run (the reference is the solution\'s)' : resultsProblems.slice(0, 3).join('; ')}`);
    }
    if (!picked) {
      entries.push({ lab, from: null, to: null, results: null, problems: candidates.length === 0 ? ['no run of this lab in the source'] : skipped });
      continue;
    }
    const labOut = path.join(outDir, lab);
    const to = path.join(labOut, path.basename(picked.dir));
    const staging = path.join(outDir, `.staging-${lab}-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    try {
      for (const name of REFERENCE_FILES) {
        if (existsSync(path.join(picked.dir, name))) copyFileSync(path.join(picked.dir, name), path.join(staging, name));
      }
      const analysis = await runLabAnalysis(picked.results, rootDir);
      writeAnalysis(staging, analysis ?? { text: `The ${lab} lab has no analysis of its own.`, files: [] }, picked.results);
      const checked = checkRunFolder(staging, { requireValues: true });
      if (checked.problems.length > 0) {
        entries.push({ lab, from: picked.dir, to: null, results: picked.results, problems: checked.problems });
        continue;
      }
      // Only now replace the lab's earlier reference runs: a failed copy leaves them as they were.
      rmSync(labOut, { recursive: true, force: true });
      mkdirSync(labOut, { recursive: true });
      cpSync(staging, to, { recursive: true, errorOnExist: true, force: false });
      entries.push({ lab, from: picked.dir, to, results: picked.results, problems: [] });
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return entries;
}

/** reference/README.md: the command, the machine(s), the dates and each run's wall time, from the runs themselves. */
export function referenceReadme(entries: readonly ReferenceEntry[], outDir: string, existing: readonly { lab: string; results: Results; dir: string }[]): string {
  const runs = existing.slice().sort((a, b) => a.lab.localeCompare(b.lab));
  const machines = [...new Set(runs.map((r) => machineText(r.results, { date: false })))];
  const commands = [...new Set(runs.map((r) => r.results.command))];
  const lines = [
    '# Reference runs',
    '',
    'Every measured number the course site shows is rendered from these runs at build time (issue 20):',
    '`<Measured run="<lab>" ... />` in the episodes reads `<lab>/<time>/results.json` and `analysis/values.json` here.',
    'Do not copy numbers from them into prose: they change whenever the reference is remade.',
    '',
    '## How they were made',
    '',
    'Each lab alone, started once the machine had settled (1-minute load average under 0.35, so that the load the run',
    'records a few seconds later, after npm starts, stays under 0.5), then the newest run of each lab copied here:',
    '',
    '```sh',
    'for lab in event-loop gpu-batching native-kernel task-granularity task-graph; do',
    '  while awk \'{ exit !($1 >= 0.35) }\' /proc/loadavg; do sleep 5; done   # wait for a quiet machine',
    '  npm run lab -- "$lab" --impl solution',
    'done',
    'npm run reference -- results     # copies each lab\'s newest valid run here, regenerates analysis/, validates',
    '```',
    '',
    '`npm run lab -- --all --impl solution` then `npm run reference -- results/all/<time>/` does the same in one bundle,',
    'but each lab then starts right after the one before, at the load the previous lab left.',
    '',
    'After a change to a lab\'s analysis (new or renamed values), regenerate its analysis/ in place:',
    '`npm run reference -- reference --lab <lab>`.',
    '',
    `Lab command${commands.length === 1 ? '' : 's'} recorded in the runs: ${commands.map((c) => `\`${c}\``).join(', ') || '(none)'}.`,
    '',
    `Machine${machines.length === 1 ? '' : 's'}: ${machines.join('; ') || '(none)'}.`,
    '',
    `Wall time of the runs: ${Math.round(runs.reduce((sum, r) => sum + (Date.parse(r.results.finishedAt) - Date.parse(r.results.startedAt)) / 1000, 0))} s in all ` +
      '(each lab from its start to its end).',
    '',
    'How quiet the machine was: each run records the load average (1, 5 and 15 minutes) when it started (on a machine',
    'with P CPUs, a 1-minute value well under 1 means the run had the CPUs to itself).',
    '',
    '| lab | run | started (UTC) | wall time | quick | machine | load average at start |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...runs.map((r) => {
      const wall = (Date.parse(r.results.finishedAt) - Date.parse(r.results.startedAt)) / 1000;
      return `| ${r.lab} | \`${path.relative(outDir, r.dir)}\` | ${r.results.startedAt.replace('T', ' ').slice(0, 19)} | ${Math.round(wall)} s | ${r.results.quick ? 'yes' : 'no'} | ${r.results.environment.cpuModel.trim()}, P = ${r.results.cpus.p} | ${r.results.environment.loadAverage ? formatLoadAverage(r.results.environment.loadAverage) : 'not recorded'} |`;
    }),
    '',
    'Each run keeps results.json and report.md as the lab wrote them (and notes.md where the run has one: a learner\'s',
    'notes, which runs of the solutions do not have), and analysis/ as this version of the',
    'course regenerates it (analysis.md, values.json, SVG files); charts/ and report.html are left out (regenerate them',
    'with `npm run report -- <run folder>`). `labs/harness/test/reference-runs.test.ts` validates every run here in CI.',
    '',
    'An instructor teaches from their own machine\'s numbers with `COURSE_RUNS=<folder> npm start` (see site/README.md).',
  ];
  const missing = entries.filter((e) => e.to === null).map((e) => e.lab);
  if (missing.length > 0) lines.push('', `Not remade in the last update (kept from before, if any): ${missing.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}

/** The valid reference run of each lab now in `outDir` (newest per lab). */
export function currentReference(outDir: string): { lab: string; results: Results; dir: string }[] {
  const out: { lab: string; results: Results; dir: string }[] = [];
  for (const lab of labsWithRuns(outDir)) {
    const dir = findRunFolders(outDir, lab).at(-1);
    if (!dir) continue;
    const checked = checkRunFolder(dir);
    if (checked.results) out.push({ lab, results: checked.results, dir });
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv, { out: { type: 'string' }, lab: { type: 'string', multiple: true } }, USAGE, true);
  if (parsed === null) return EXIT_OK;
  if (parsed.positionals.length !== 1) throw new UsageError(`give one bundle or results folder\n${USAGE}`);
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const source = path.resolve(cwd, parsed.positionals[0]!);
  if (!existsSync(source)) throw new UsageError(`${parsed.positionals[0]} does not exist: give the folder "npm run lab -- --all" wrote (results/all/<time>/)`);
  const outDir = path.resolve(cwd, parsed.values.out ?? path.join(ROOT_DIR, 'reference'));
  mkdirSync(outDir, { recursive: true });
  const only = parsed.values.lab ?? [];
  for (const lab of only) if (!labNames().includes(lab)) throw new UsageError(`unknown lab '${lab}'. The labs are: ${labNames().join(', ')}`);
  const entries = await makeReference(source, outDir, ROOT_DIR, only);
  let failed = false;
  for (const e of entries) {
    if (e.to) process.stdout.write(`${e.lab}: ${path.relative(cwd, e.from!)} -> ${path.relative(cwd, e.to)} (valid)\n`);
    else {
      if (e.from) failed = true;
      process.stdout.write(`${e.lab}: not updated: ${e.problems.join('\n    ')}\n`);
    }
  }
  writeFileSync(path.join(outDir, 'README.md'), referenceReadme(entries, outDir, currentReference(outDir)));
  process.stdout.write(`Written: ${path.relative(cwd, path.join(outDir, 'README.md'))}\n`);
  return failed ? EXIT_CHECK_FAILED : EXIT_OK;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
