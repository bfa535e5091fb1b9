/**
 * The runner behind `npm test` (and `test:labs`, `test:p`): every test file of the labs and the site in one node:test
 * run, several files at a time, the slow ones started first.
 *
 *   node labs/harness/test/support/suite.ts                 every file of labs/*\/test and site/test
 *   node labs/harness/test/support/suite.ts labs            the labs' files only
 *   node labs/harness/test/support/suite.ts FILE...         these files (test:p passes the P-dependent ones)
 *
 * Why not `node --test GLOB...`: the runner sorts its files by name, so a 100-second file that sorts late starts when
 * the others are done and the run waits for it alone. Here the files that start a browser, a lab run or a native build
 * go first (slowFile), with those that say `// npm test starts this file early: <why>` (a long simulation, a wait for a
 * deadline); the rest fill in around them. On this project's 2-vCPU machine the suite is bound by CPU (540 to 1,340
 * CPU-seconds with Chromium's, by host and commit: the harness README's "Tests"), so two files at a time is what brings
 * the wall time down; more only helps where there are more CPUs.
 *
 * How many at a time: COURSE_TEST_CONCURRENCY, else the CPUs this job may use (affinity and cgroup quota, not
 * COURSE_CPUS, which forces the labs' P and not the machine's), at least 2 (several files wait on timers, servers and
 * browsers) and at most 8 (each browser file holds a Chromium). What lets files share a machine (own temp folders
 * and ports, owned processes, own build folders, the site-build lock) is listed in the harness README's "Tests".
 *
 * A file whose assertions compare real timings (a grade, a faster/slower verdict) says so with the line
 * `// npm test runs this file alone: <why>`; those files run first, one at a time with nothing beside them, because
 * another file's load on a 2-CPU machine widens an interval enough to turn "fail" into "uncertain pass".
 *
 * The temp-folder guard (tmp-guard.ts) runs as the global set-up of each phase, as it did with `--test-global-setup`.
 */
import { existsSync, globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { cpuBudget } from '../../src/machine/cpus.ts';
import { labTestFiles } from './p-dependence.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** Each group's files, relative to the root: the labs' as p-dependence.ts lists them (one lister for both runners). */
const GROUPS: Record<string, (root: string) => string[]> = {
  labs: (root) => labTestFiles(root),
  site: (root) => globSync('site/test/*.test.ts', { cwd: root }),
};
export const MIN_CONCURRENCY = 2;
export const MAX_CONCURRENCY = 8;

/** Text in a test file that says it starts a browser, a lab run, a site build or a native build: started first. */
const SLOW_MARKERS = /\b(openSite|openLabSite|runLab|checkLab|runBundle|chromium\.launch)\(|buildPlantedCourse\(|build-addon\.mjs|build-checked\.ts|\[CLI, |labs\/harness\/src\/cli\.ts/;

/** The line that makes a file run alone (see the file's comment). */
const ALONE_MARKER = /^\/\/ npm test runs this file alone: \S/m;

/**
 * The line that starts a file with the slow ones although its text names nothing slow: one that computes for many
 * seconds (a simulation) or waits out a deadline. Started late, such a file is what the run ends waiting for alone.
 */
const EARLY_MARKER = /^\/\/ npm test starts this file early: \S/m;

/** True when the file says it must run with no other file beside it (ALONE_MARKER). */
export function runsAlone(text: string): boolean {
  return ALONE_MARKER.test(text);
}

/** True when the file's text names something slow (SLOW_MARKERS) or it says it is (EARLY_MARKER). */
export function slowFile(text: string): boolean {
  return SLOW_MARKERS.test(text) || EARLY_MARKER.test(text);
}

/** The slow files first, then the rest; each group in name order, so a run's order is the same every time. */
export function orderFiles(files: { file: string; text: string }[]): string[] {
  const sorted = [...files].sort((a, b) => a.file.localeCompare(b.file));
  return [...sorted.filter((f) => slowFile(f.text)), ...sorted.filter((f) => !slowFile(f.text))].map((f) => f.file);
}

/** How many files run at once: COURSE_TEST_CONCURRENCY, else the job's CPUs within [MIN_CONCURRENCY, MAX_CONCURRENCY]. */
export function concurrencyFor(env: NodeJS.ProcessEnv, jobCpus: number): number {
  const given = env['COURSE_TEST_CONCURRENCY'];
  if (given !== undefined && given.trim() !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 1) throw new Error(`COURSE_TEST_CONCURRENCY must be a whole number >= 1, got ${JSON.stringify(given)}`);
    return n;
  }
  return Math.min(MAX_CONCURRENCY, Math.max(MIN_CONCURRENCY, jobCpus));
}

/** The files for the command line's arguments: group names (labs, site) or file paths; none means every group. */
export function selectFiles(args: string[], root = ROOT): string[] {
  const wanted = args.length === 0 ? Object.keys(GROUPS) : args;
  const files = new Set<string>();
  for (const arg of wanted) {
    const group = GROUPS[arg];
    if (group) for (const file of group(root)) files.add(file);
    else files.add(path.relative(root, path.resolve(root, arg)));
  }
  return [...files];
}

if (import.meta.main) {
  let concurrency: number;
  try {
    concurrency = concurrencyFor(process.env, cpuBudget(undefined, {}).p);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  const selected = selectFiles(process.argv.slice(2));
  const missing = selected.filter((file) => !existsSync(path.join(ROOT, file)));
  if (missing.length > 0) {
    process.stderr.write(`suite: no such test file: ${missing.join(', ')} (give labs, site or paths from the repository root)\n`);
    process.exit(2);
  }
  const texts = new Map(selected.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));
  const files = orderFiles([...texts].map(([file, text]) => ({ file, text })));
  if (files.length === 0) {
    process.stderr.write('suite: no test files matched\n');
    process.exit(2);
  }
  const alone = files.filter((file) => runsAlone(texts.get(file)!));
  const together = files.filter((file) => !alone.includes(file));
  process.stderr.write(`suite: ${files.length} test files: ${alone.length} alone first (they compare real timings), then ${together.length}, ${concurrency} at a time\n`);
  await runPhase(alone, 1);
  await runPhase(together, concurrency);
}

/** One node:test run over `files`, reported with the spec reporter; a failure sets the exit code. */
async function runPhase(files: string[], concurrency: number): Promise<void> {
  if (files.length === 0) return;
  // globalSetupPath is run()'s form of --test-global-setup (Node 24); @types/node 24.19 does not declare it yet.
  const options: Parameters<typeof run>[0] & { globalSetupPath: string } = {
    files: files.map((file) => path.join(ROOT, file)),
    concurrency,
    cwd: ROOT,
    globalSetupPath: fileURLToPath(new URL('./tmp-guard.ts', import.meta.url)),
  };
  const report = run(options)
    .on('test:fail', () => {
      process.exitCode = 1;
    })
    .compose(spec);
  report.pipe(process.stdout, { end: false });
  await finished(report);
}
