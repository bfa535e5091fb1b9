/**
 * The words of one run in the results viewer. In: one validated run (or its warning). Out: sentences, tables and
 * lists as data (TextBlock), which run-view.ts turns into elements (text only, never HTML: lib/dom.ts). No DOM, no
 * state, no fetching.
 */
import { caseLabel, formatInterval, formatSignificant, paramsLabel, type Results, scalingNotes } from '@parallel-course/core';
import type { ResultsWarning } from '../../lib/results-file.ts';
import { recorded, warningText } from '../../lib/results-view.ts';

/** One block of a run's text: a table (lib/dom.ts textTable's parts), a paragraph or a bulleted list. */
export type TextBlock =
  | { kind: 'table'; caption: string; headers: readonly string[]; rows: readonly (readonly string[])[]; note?: string }
  | { kind: 'paragraph'; text: string; className?: string }
  | { kind: 'list'; items: readonly string[] };

function table(caption: string, headers: readonly string[], rows: readonly (readonly string[])[], note?: string): TextBlock {
  return { kind: 'table', caption, headers, rows, ...(note === undefined ? {} : { note }) };
}

/** Node / V8 / libuv, or where the run ran when it was not Node (an in-page run records its browser instead). */
function runtimeText(results: Results): string {
  const env = results.environment;
  if (results.runtime === 'browser') return `none: an in-page run${env.browser ? ` (${env.browser.userAgent.slice(0, 120)})` : ''}`;
  return `${recorded(env.node)} / ${recorded(env.v8)} / ${recorded(env.uv)}`;
}

/** The line under the run's title: which lab, which implementation, when and where. */
function summaryLine(results: Results): string {
  const env = results.environment;
  const where = results.runtime === 'browser' ? 'in a browser' : `Node ${recorded(env.node)}`;
  return (
    `Lab ${results.lab}, implementation "${results.impl}"${results.quick ? ' (quick run)' : ''}, ` +
    `started ${results.startedAt} on ${env.cpuModel.trim() === '' ? 'a CPU whose model was not recorded' : env.cpuModel} with ${env.availableParallelism} CPUs available ` +
    `(${where}).`
  );
}

function headlineLine(results: Results): string {
  const h = results.headline;
  if (!h) return 'This run has no headline result (for example because a variant failed its check).';
  return (
    `Headline: ${caseLabel(h)} is ${formatSignificant(h.speedup)}x ${h.baseline} ` +
    `(95% interval ${formatInterval(h.ci95)})${h.efficiency !== undefined ? `, efficiency ${formatSignificant(h.efficiency)}` : ''}.`
  );
}

function speedupTable(results: Results): TextBlock {
  return table(
    'Speedups',
    ['variant', 'parameters', 'speedup', '95% interval', 'efficiency', 'Karp-Flatt f', 'note'],
    results.speedups.map((s) => [
      s.variant,
      paramsLabel(s.params),
      formatSignificant(s.speedup),
      formatInterval(s.ci95),
      s.efficiency === undefined ? '' : formatSignificant(s.efficiency),
      s.karpFlatt === undefined ? '' : formatSignificant(s.karpFlatt),
      s.oversubscribed ? 'oversubscribed' : '',
    ]),
    'Speedup = median baseline time / median variant time: above 1 is faster. Oversubscribed: more workers than CPUs.',
  );
}

function caseTable(results: Results): TextBlock {
  return table(
    'Time per sample (ms)',
    ['variant', 'parameters', 'samples', 'median', '95% interval', 'CV', 'outliers (high)', 'note'],
    results.cases.map((c) => [
      c.variant,
      paramsLabel(c.params),
      String(c.summary.n),
      formatSignificant(c.summary.median),
      formatInterval(c.summary.ci95),
      formatSignificant(c.summary.cv),
      String(c.summary.outliers.highMild + c.summary.outliers.highSevere),
      [c.summary.noisy ? 'noisy' : '', c.oversubscribed ? 'oversubscribed' : ''].filter(Boolean).join(', '),
    ]),
  );
}

function correctnessTable(results: Results): TextBlock {
  return table(
    'Correctness check',
    ['variant', 'parameters', 'passed', 'comparator', 'reason'],
    results.correctness.map((c) => [c.variant, paramsLabel(c.params), c.passed ? 'yes' : 'NO', c.comparator, c.reason ?? '']),
    'Only variants that passed the check were timed.',
  );
}

function environmentTable(results: Results): TextBlock {
  const env = results.environment;
  return table('Environment', ['property', 'value'], [
    ['CPU', recorded(env.cpuModel)],
    ['CPUs (os.cpus)', String(env.cpuCount)],
    ['available parallelism', String(env.availableParallelism)],
    ['cgroup CPU quota', results.cpus.quota === null ? 'none' : formatSignificant(results.cpus.quota)],
    ['CPU affinity', env.cpuAffinity ?? 'unknown'],
    ['Node / V8 / libuv', runtimeText(results)],
    ['OS', recorded([env.platform, env.arch, env.osRelease].filter((part) => part.trim() !== '').join(' '))],
    ['UV_THREADPOOL_SIZE', env.uvThreadpoolSize ?? 'default'],
    ['git commit', `${env.git.commit ?? 'unknown'}${env.git.dirty ? ' (uncommitted changes)' : ''}`],
    ['GPUs', env.gpus.length === 0 ? 'none found' : env.gpus.map((g) => g.name).join(', ')],
    ['Slurm', Object.keys(env.slurm).length === 0 ? 'not under Slurm' : Object.entries(env.slurm).map(([k, v]) => `${k}=${v}`).join(' ')],
    ['harness overhead per sample (ms)', formatSignificant(results.harnessOverheadMs)],
    ['command', results.command],
  ]);
}

/** A lead-in sentence and its bullet list; nothing when there are no items. */
function listWithIntro(intro: string, items: readonly string[]): TextBlock[] {
  if (items.length === 0) return [];
  return [{ kind: 'paragraph', text: intro }, { kind: 'list', items }];
}

/** Every table of one run, with the notes that explain its speedups and the run's own notes. */
function runTables(results: Results): TextBlock[] {
  // Efficiency above 1, negative Karp-Flatt values and sweeps too short for a fit, named with their causes (issue 43).
  const scaling = scalingNotes({ speedups: results.speedups, amdahl: results.amdahl, availableParallelism: results.cpus.available });
  return [
    speedupTable(results),
    ...listWithIntro('Reading the speedups:', scaling),
    caseTable(results),
    correctnessTable(results),
    environmentTable(results),
    ...listWithIntro('Notes from the run:', results.notes),
  ];
}

/** Everything one run says in words: the line under its title, its headline, and its tables with their notes. */
export interface RunWords {
  summary: string;
  headline: string;
  tables: TextBlock[];
}

export function runWords(results: Results): RunWords {
  return { summary: summaryLine(results), headline: headlineLine(results), tables: runTables(results) };
}

/** The warning above a run's results, for a file that failed a check or whose numbers do not recompute. */
export function warningParts(warning: ResultsWarning): TextBlock[] {
  const text = warningText(warning);
  return [
    { kind: 'paragraph', text: text.title, className: 'rv-warning-title' },
    ...text.sentences.map((sentence): TextBlock => ({ kind: 'paragraph', text: sentence })),
    { kind: 'list', items: text.items },
    ...(text.more > 0 ? [{ kind: 'paragraph', text: `… and ${text.more} more: "npm run report -- validate <file>" lists them all.` } as const] : []),
  ];
}
