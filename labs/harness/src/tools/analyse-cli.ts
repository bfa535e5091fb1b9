/**
 * `npm run analyse -- <run folder or results.json>`: the lab's own analysis of a finished run (src/lab-analysis.ts),
 * the same command for every lab; `npm run analyse -- --lab <lab>` takes that lab's newest run under results/.
 * Prints the analysis and writes it into a new folder of the run. Exit codes: 0 ok, 2 bad input, 3 internal error.
 */
import path from 'node:path';
import { runLabAnalysis, writeAnalysis } from '../analyse/lab-analysis.ts';
import { EXIT_OK, UsageError, runCli } from '../errors.ts';
import { labNames, ROOT_DIR } from '../lab-registry.ts';
import { listRuns, readResults } from '../write/results-reader.ts';
import { parseCommandLine } from '../cli/command-line.ts';

const USAGE = 'Usage: npm run analyse -- <run folder | results.json>\n       npm run analyse -- --lab <lab>   (its newest run under results/)';

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv, { lab: { type: 'string' } }, USAGE, true);
  if (parsed === null) return EXIT_OK;
  const cwd = process.env.INIT_CWD ?? process.cwd();
  let target: string;
  if (parsed.values.lab !== undefined) {
    const lab = parsed.values.lab;
    if (!labNames().includes(lab)) throw new UsageError(`unknown lab '${lab}'. The labs are: ${labNames().join(', ')}`);
    const newest = listRuns(path.join(ROOT_DIR, 'results'), lab).filter((r) => r.results !== null).at(-1);
    if (!newest) throw new UsageError(`no run of ${lab} in results/${lab}: run 'npm run lab -- ${lab}' first`);
    target = newest.runDir;
  } else if (parsed.positionals.length === 1) {
    target = path.resolve(cwd, parsed.positionals[0]!);
  } else {
    throw new UsageError(`give one run folder, or --lab <lab>\n${USAGE}`);
  }
  const { runDir, results } = readResults(target);
  const analysis = await runLabAnalysis(results);
  if (analysis === null) {
    process.stdout.write(`the ${results.lab} lab has no analysis of its own: its report is ${path.join(runDir, 'report.html')}\n`);
    return EXIT_OK;
  }
  const written = writeAnalysis(runDir, analysis);
  process.stdout.write(`${analysis.text.trimEnd()}\n\nWritten: ${written.files.map((f) => path.relative(cwd, f)).join(', ')}\n`);
  return EXIT_OK;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
