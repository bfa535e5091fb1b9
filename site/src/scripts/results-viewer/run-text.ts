/**
 * Stage "render tables" of the results viewer. In: one validated run (or its warning). Out: sentences and text
 * tables as elements (text only, never HTML: lib/dom.ts). No state, no fetching.
 */
import { caseLabel, formatInterval, formatSignificant, paramsLabel, type Results, scalingNotes } from '@parallel-course/core';
import type { ResultsWarning } from '../../lib/results-file.ts';
import { element, textTable } from '../../lib/dom.ts';
import { recorded, warningText } from '../../lib/results-view.ts';

/** Node / V8 / libuv, or where the run ran when it was not Node (an in-page run records its browser instead). */
function runtimeText(results: Results): string {
  const env = results.environment;
  if (results.runtime === 'browser') return `none: an in-page run${env.browser ? ` (${env.browser.userAgent.slice(0, 120)})` : ''}`;
  return `${recorded(env.node)} / ${recorded(env.v8)} / ${recorded(env.uv)}`;
}

export function describeRun(results: Results): string {
  const env = results.environment;
  const where = results.runtime === 'browser' ? 'in a browser' : `Node ${recorded(env.node)}`;
  return (
    `Lab ${results.lab}, implementation "${results.impl}"${results.quick ? ' (quick run)' : ''}, ` +
    `started ${results.startedAt} on ${env.cpuModel.trim() === '' ? 'a CPU whose model was not recorded' : env.cpuModel} with ${env.availableParallelism} CPUs available ` +
    `(${where}).`
  );
}

export function describeHeadline(results: Results): string {
  const h = results.headline;
  if (!h) return 'This run has no headline result (for example because a variant failed its check).';
  return (
    `Headline: ${caseLabel(h)} is ${formatSignificant(h.speedup)}x ${h.baseline} ` +
    `(95% interval ${formatInterval(h.ci95)})${h.efficiency !== undefined ? `, efficiency ${formatSignificant(h.efficiency)}` : ''}.`
  );
}

function speedupTable(results: Results): HTMLElement {
  return textTable(
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

function caseTable(results: Results): HTMLElement {
  return textTable(
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

function correctnessTable(results: Results): HTMLElement {
  return textTable(
    'Correctness check',
    ['variant', 'parameters', 'passed', 'comparator', 'reason'],
    results.correctness.map((c) => [c.variant, paramsLabel(c.params), c.passed ? 'yes' : 'NO', c.comparator, c.reason ?? '']),
    'Only variants that passed the check were timed.',
  );
}

function environmentTable(results: Results): HTMLElement {
  const env = results.environment;
  return textTable('Environment', ['property', 'value'], [
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
function listWithIntro(intro: string, items: readonly string[]): HTMLElement[] {
  if (items.length === 0) return [];
  const list = element('ul');
  for (const item of items) list.append(element('li', item));
  return [element('p', intro), list];
}

/** Every table of one run, with the notes that explain its speedups and the run's own notes. */
export function runTables(results: Results): HTMLElement[] {
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

/** The warning above a run's results, for a file that failed a check or whose numbers do not recompute. */
export function warningParts(warning: ResultsWarning): HTMLElement[] {
  const text = warningText(warning);
  const parts: HTMLElement[] = [element('p', text.title, 'rv-warning-title')];
  for (const sentence of text.sentences) parts.push(element('p', sentence));
  const list = element('ul');
  for (const item of text.items) list.append(element('li', item));
  parts.push(list);
  if (text.more > 0) parts.push(element('p', `… and ${text.more} more: "npm run report -- validate <file>" lists them all.`));
  return parts;
}
