/**
 * `npm run lab -- --all [--quick]`: every lab in turn, into one bundle folder `<out>/all/<timestamp>/`, each lab's run
 * folder inside it as a normal run (`<bundle>/<lab>/<timestamp>/`), and an index page that links them: one command for
 * a whole node (the Slurm templates use it). A lab that fails or cannot run does not stop the others; the bundle's exit
 * code is the worst of them.
 */
import path from 'node:path';
import { describeBudget, type CpuBudget } from '../machine/cpus.ts';
import { EXIT_OK, EXIT_USAGE, exitCodeFor } from '../errors.ts';
import type { Impl } from '../lab-definition.ts';
import { htmlPage } from '../report/html-page.ts';
import { escapeHtml, formatDuration, headlineSentence, type Results } from '@parallel-course/core';
import { createRunDir, writeFileAtomic } from '../write/results-writer.ts';
import { runLab, type RunLabOptions } from '../run/run-lab.ts';

export interface BundleEntry {
  lab: string;
  exitCode: number;
  runDir: string | null;
  results: Results | null;
  /** The run's summary line, or the error that stopped it. */
  message: string;
  seconds: number;
}

export interface BundleOptions {
  labs: string[];
  impl: Impl;
  quick: boolean;
  outRoot: string;
  seed?: number;
  cpus?: number;
  rootDir: string;
  silent?: boolean;
  /** Told when each lab starts and ends. */
  onLab?(line: string): void;
  run?: (options: RunLabOptions) => ReturnType<typeof runLab>;
}

/** The bundle's exit code: 0 when every lab exited 0, else the largest code (an interrupted lab's 128 + n wins). */
export function bundleExitCode(entries: BundleEntry[]): number {
  return entries.reduce((worst, e) => Math.max(worst, e.exitCode), EXIT_OK);
}

/** Runs every lab into a new bundle folder; returns the folder and one entry per lab. */
export async function runBundle(options: BundleOptions): Promise<{ dir: string; entries: BundleEntry[] }> {
  const started = new Date();
  const dir = createRunDir(options.outRoot, 'all', started);
  const run = options.run ?? runLab;
  const entries: BundleEntry[] = [];
  for (const [i, lab] of options.labs.entries()) {
    options.onLab?.(`[${i + 1}/${options.labs.length}] ${lab}...`);
    const t0 = performance.now();
    let entry: BundleEntry;
    try {
      const outcome = await run({
        lab,
        impl: options.impl,
        quick: options.quick,
        outDir: dir,
        rootDir: options.rootDir,
        command: `npm run lab -- ${lab} --impl ${options.impl}${options.quick ? ' --quick' : ''} (from --all)`,
        ...(options.silent !== undefined ? { silent: options.silent } : {}),
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
        ...(options.cpus !== undefined ? { cpus: options.cpus } : {}),
      });
      const headline = outcome.results?.headline;
      entry = {
        lab,
        exitCode: outcome.exitCode,
        runDir: outcome.runDir,
        results: outcome.results,
        message: headline ? headlineSentence(headline) : (outcome.summary.split('\n').at(-1) ?? ''),
        seconds: (performance.now() - t0) / 1000,
      };
    } catch (error) {
      const code = exitCodeFor(error);
      entry = { lab, exitCode: code === EXIT_OK ? EXIT_USAGE : code, runDir: null, results: null, message: (error as Error).message.split('\n')[0] ?? '', seconds: (performance.now() - t0) / 1000 };
    }
    entries.push(entry);
    options.onLab?.(`[${i + 1}/${options.labs.length}] ${lab}: exit ${entry.exitCode} in ${formatDuration(entry.seconds * 1000)}: ${entry.message}`);
    if (entry.exitCode >= 128) break; // interrupted: stop the bundle too
  }
  writeFileAtomic(path.join(dir, 'index.html'), bundleIndexHtml(entries, dir, started, options));
  writeFileAtomic(path.join(dir, 'bundle.json'), `${JSON.stringify(entries.map(({ results, ...e }) => ({ ...e, runDir: e.runDir && path.relative(dir, e.runDir), cpus: results?.cpus ?? null })), null, 2)}\n`);
  return { dir, entries };
}

/** The index page: one row per lab with its status, headline, machine and links to its report and results. */
function bundleIndexHtml(entries: BundleEntry[], dir: string, started: Date, options: Pick<BundleOptions, 'impl' | 'quick'>): string {
  const first = entries.find((e) => e.results)?.results;
  const machine = first ? `${first.environment.cpuModel}, ${describeBudget(first.cpus as CpuBudget)}, Node ${first.environment.node}` : 'no lab finished';
  const rows = entries
    .map((e) => {
      const rel = e.runDir ? path.relative(dir, e.runDir) : null;
      const status = e.exitCode === 0 ? 'passed' : e.runDir ? 'some cases failed' : 'no results';
      const links = rel ? `<a href="${escapeHtml(`${rel}/report.html`)}">report</a> · <a href="${escapeHtml(`${rel}/results.json`)}">results.json</a>` : '';
      return `<tr><th scope="row">${escapeHtml(e.lab)}</th><td>${escapeHtml(status)} (exit ${e.exitCode})</td><td>${escapeHtml(e.message)}</td><td>${formatDuration(e.seconds * 1000)}</td><td>${links}</td></tr>`;
    })
    .join('\n');
  const total = entries.reduce((s, e) => s + e.seconds, 0);
  return htmlPage({
    title: `All labs, ${started.toISOString()}`,
    style: 'body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top}',
    body: [
      `<h1>All labs (${escapeHtml(options.impl)}${options.quick ? ', quick' : ''})</h1>`,
      `<p>Started ${escapeHtml(started.toISOString())} on ${escapeHtml(machine)}; ${entries.length} labs in ${formatDuration(total * 1000)}.</p>`,
      '<table><thead><tr><th scope="col">lab</th><th scope="col">status</th><th scope="col">headline</th><th scope="col">time</th><th scope="col">files</th></tr></thead><tbody>',
      rows,
      '</tbody></table>',
    ].join('\n'),
  });
}
