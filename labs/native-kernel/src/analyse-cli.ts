/**
 * `npm run analyse -w labs/native-kernel [-- <run folder or results.json>]`: derives the lab's own numbers
 * (crossover, per-call overhead, thread efficiency, fraction of peak) from a finished run and writes
 * `native-kernel-analysis.md` and `roofline.svg` next to its results.json. Default: the newest run in results/.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseResultsJson } from '@parallel-course/harness/results-schema.ts';
import { analyseNativeKernel, rooflineSummary } from './analysis.ts';
import { formatAnalysis } from './analysis-report.ts';
import { PACKAGE_DIR } from './addon.ts';
import { rooflineSvg } from './roofline-svg.ts';

function newestRun(resultsDir: string): string | null {
  if (!existsSync(resultsDir)) return null;
  const runs = readdirSync(resultsDir)
    .map((d) => path.join(resultsDir, d))
    .filter((d) => existsSync(path.join(d, 'results.json')))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return runs[0] ?? null;
}

function main(argv: string[]): number {
  const arg = argv[0];
  const runsDir = path.resolve(PACKAGE_DIR, '../../results/native-kernel');
  const target = arg ? path.resolve(process.env.INIT_CWD ?? process.cwd(), arg) : newestRun(runsDir);
  if (!target) {
    console.error(`no run found in ${runsDir}: run the lab first (npm run lab -- native-kernel --impl solution), or pass a run folder`);
    return 2;
  }
  const file = target.endsWith('.json') ? target : path.join(target, 'results.json');
  if (!existsSync(file)) {
    console.error(`${file} does not exist: pass a run folder that holds a results.json`);
    return 2;
  }
  const results = parseResultsJson(readFileSync(file, 'utf8'), file);
  if (results.lab !== 'native-kernel') {
    console.error(`${file} is a run of the ${results.lab} lab, not native-kernel`);
    return 2;
  }
  const analysis = analyseNativeKernel(results);
  const text = formatAnalysis(results, analysis);
  const dir = path.dirname(file);
  writeFileSync(path.join(dir, 'native-kernel-analysis.md'), text);
  if (analysis.peaks) {
    const shown = new Set([...rooflineSummary(analysis.roofline), ...analysis.roofline.filter((r) => r.variant === 'native-march')]);
    const svg = rooflineSvg([...shown], analysis.peaks,
      `Matrix product on ${results.environment.cpuModel} (${results.environment.availableParallelism} CPUs)`);
    writeFileSync(path.join(dir, 'roofline.svg'), svg);
  }
  console.log(text);
  console.log(`Written: ${path.join(dir, 'native-kernel-analysis.md')}${analysis.peaks ? ` and ${path.join(dir, 'roofline.svg')}` : ''}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
