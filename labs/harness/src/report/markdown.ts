/**
 * The Markdown reporter: the same sections as the HTML report, with charts as PNG images referenced by relative
 * file name (written beside it by the PNG reporter) and every number in tables. Text from the results file is
 * escaped so it cannot become markup, links or raw HTML.
 */
import { resolutionSentence } from './resolution.ts';
import { escapeMarkdown, headlineSentence, machineOneLiner, NOISY_TEXT, OVERSUBSCRIBED_TEXT, type Results, scalingNotes } from '@parallel-course/core';
import { shellCommandLine } from '../write/safe-read.ts';
import type { ChartSpec, DataTable } from './chart-spec.ts';
import { buildCharts } from './charts.ts';
import { formatGrade } from './terminal.ts';
import { amdahlTable, correctnessTable, environmentTable, observationsTable, speedupsTable, timesTable } from './tables.ts';

/** A fenced code block whose fence is longer than any run of backticks inside, so the text cannot end it. */
export function codeBlock(text: string, language = ''): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

function renderTable(table: DataTable): string {
  if (table.rows.length === 0) return '';
  const line = (cells: string[]) => `| ${cells.map((c) => (c === '' ? ' ' : escapeMarkdown(c))).join(' | ')} |`;
  return [line(table.headers), `|${table.headers.map(() => ' --- ').join('|')}|`, ...table.rows.map(line)].join('\n');
}

/**
 * Renders the report. `chartFiles` maps a chart id ("speedup-vs-workers") to its PNG's path relative to the
 * Markdown file ("charts/speedup-vs-workers.png"); charts without a file are given as their data table only.
 */
export function renderMarkdownReport(results: Results, chartFiles: Readonly<Record<string, string>>, charts: readonly ChartSpec[] = buildCharts(results)): string {
  const env = results.environment;
  const out: string[] = [];
  out.push(`# ${escapeMarkdown(`${results.lab}: ${results.title}`)}`, '');
  out.push(escapeMarkdown(`${results.impl} · ${results.startedAt}${results.quick ? ' · quick run' : ''} · ${machineOneLiner(env)}`), '');
  out.push(
    results.headline === null ? '**No speedup was measured.**' : `**Headline:** ${escapeMarkdown(headlineSentence(results.headline))}`,
    '',
  );
  const unresolved = resolutionSentence(results);
  if (unresolved !== null) out.push(escapeMarkdown(unresolved), '');
  if (results.grade) out.push('```', ...formatGrade(results.grade), '```', '');
  const failures = results.correctness.filter((e) => !e.passed).length;
  if (failures > 0) {
    out.push(`**${failures} correctness check${failures === 1 ? '' : 's'} did not pass**: those cases were not timed.`, '');
  }

  out.push('## Correctness', '', renderTable(correctnessTable(results)), '');

  out.push('## Speedups', '');
  out.push(
    `Median baseline time / median variant time, with a 95% bootstrap interval (${results.bootstrapResamples} resamples); efficiency = speedup over one worker (else over the baseline) / workers.`,
    '',
  );
  out.push(results.speedups.length === 0 ? 'No speedups: no variant was both correct and measured.' : renderTable(speedupsTable(results)), '');
  if (results.amdahl.length > 0) {
    out.push("Amdahl's law fits, speedup(p) = 1 / (f + (1 - f) / p):", '', renderTable(amdahlTable(results)), '');
  }
  // Efficiency above 1, negative Karp-Flatt values, sweeps too short to fit, extrapolated maxima: named (issue 43).
  const notes = scalingNotes({ speedups: results.speedups, amdahl: results.amdahl, availableParallelism: results.cpus.available });
  if (notes.length > 0) out.push(...notes.map((n) => `- ${escapeMarkdown(n)}`), '');
  if (results.cases.some((c) => c.oversubscribed) || results.speedups.some((s) => s.oversubscribed)) {
    out.push(`_${escapeMarkdown(`${OVERSUBSCRIBED_TEXT} (${env.availableParallelism} here)`)}_`, '');
  }
  if (results.cases.some((c) => c.summary.noisy)) out.push(`_${escapeMarkdown(NOISY_TEXT)}_`, '');

  out.push('## Times', '', results.cases.length === 0 ? 'No case was measured.' : renderTable(timesTable(results)), '');

  out.push('## Charts', '');
  if (charts.length === 0) out.push('Nothing to chart.', '');
  for (const spec of charts) {
    out.push(`### ${escapeMarkdown(spec.title)}`, '', escapeMarkdown(spec.description), '');
    const file = chartFiles[spec.id];
    // File names come from fixed chart ids, but encode anyway: a space or parenthesis would break the link.
    if (file !== undefined) out.push(`![${escapeMarkdown(spec.title)}](${encodeURI(file)})`, '');
    out.push(renderTable(spec.table), '');
  }

  const observations = observationsTable(results);
  if (observations.rows.length > 0) out.push('## Observations', '', renderTable(observations), '');

  out.push('## Environment', '', renderTable(environmentTable(results)), '');
  out.push('## Command', '', 'Run from the repository root to repeat this measurement:', '', codeBlock(shellCommandLine(results.command), 'sh'), '');
  if (results.notes.length > 0) {
    out.push('## Notes', '', ...results.notes.map((n) => `- ${escapeMarkdown(n)}`), '');
  }
  return out.join('\n');
}
