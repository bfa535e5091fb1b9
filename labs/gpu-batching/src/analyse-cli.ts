/**
 * `npm run analyse -w labs/gpu-batching -- <results.json | run folder> [--json]`: the lab's reading of a run
 * (analysis.ts). Without an argument, the newest run under results/gpu-batching.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseResultsJson } from '@parallel-course/harness/results-schema.ts';
import { ROOT_DIR } from '@parallel-course/harness/lab-registry.ts';
import { analyseResults, formatAnalysis } from './analysis.ts';

function fail(message: string): never {
  process.stderr.write(`${message}\nUsage: npm run analyse -w labs/gpu-batching -- [results.json | run folder] [--json]\n`);
  process.exit(2);
}

function newestRun(): string {
  const dir = path.join(ROOT_DIR, 'results', 'gpu-batching');
  const runs = existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(path.join(dir, d, 'results.json'))).sort() : [];
  const last = runs.at(-1);
  if (!last) fail(`no run found in ${path.relative(ROOT_DIR, dir)}: run 'npm run lab -- gpu-batching --impl solution' first, or name a results.json`);
  return path.join(dir, last, 'results.json');
}

let args;
try {
  args = parseArgs({ options: { json: { type: 'boolean' } }, allowPositionals: true });
} catch (error) {
  fail((error as Error).message);
}
// `npm run -w` runs in the package folder; INIT_CWD is where the user typed the command.
const cwd = process.env.INIT_CWD ?? process.cwd();
let file = args.positionals[0] ? path.resolve(cwd, args.positionals[0]) : newestRun();
if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'results.json');
if (!existsSync(file)) fail(`${file} does not exist`);
let results;
try {
  results = parseResultsJson(readFileSync(file, 'utf8'), file);
} catch (error) {
  fail((error as Error).message);
}
if (results.lab !== 'gpu-batching') fail(`${file} is a run of the ${results.lab} lab, not gpu-batching`);
const analysis = analyseResults(results);
process.stdout.write(args.values.json ? `${JSON.stringify(analysis, null, 2)}\n` : `${path.relative(cwd, file)}\n\n${formatAnalysis(analysis)}\n`);
