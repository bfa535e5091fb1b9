/**
 * The HTML reporter: one self-contained file (chart.js inlined, no network requests; a Content-Security-Policy
 * forbids any) with the charts, their data tables, correctness, speedups, times, observations, environment and the
 * exact command. Every string from the results file is HTML-escaped; chart data travels as JSON in a
 * <script type="application/json"> block with `<`, `>` and `&` escaped, so lab data cannot close the script.
 */
import { escapeHtml, headlineSentence, machineOneLiner, NOISY_TEXT, OVERSUBSCRIBED_TEXT, type Results, scalingNotes } from '@parallel-course/core';
import { shellCommandLine } from '../write/safe-read.ts';
import type { ChartSpec, DataTable } from './chart-spec.ts';
import { buildCharts } from './charts.ts';
import { chartScripts, htmlPage } from './html-page.ts';
import { formatGrade } from './terminal.ts';
import { amdahlTable, correctnessTable, environmentTable, observationsTable, speedupsTable, timesTable } from './tables.ts';

export { jsonForScript, loadChartJsSource } from './html-page.ts';

function renderTable(table: DataTable, caption?: string): string {
  const head = table.headers.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const body = table.rows
    .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  const captionHtml = caption === undefined ? '' : `<caption>${escapeHtml(caption)}</caption>`;
  return `<div class="table-wrap"><table>${captionHtml}<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}

function renderChart(spec: ChartSpec): string {
  return `<figure class="chart" id="figure-${spec.id}">
<h3>${escapeHtml(spec.title)}</h3>
<p>${escapeHtml(spec.description)}</p>
<div class="chart-box"><canvas id="chart-${spec.id}" role="img" aria-label="${escapeHtml(spec.title)}; the data are in the table below"></canvas></div>
<details open><summary>Data behind this chart</summary>
${renderTable(spec.table)}
</details>
</figure>`;
}

function section(id: string, heading: string, body: string): string {
  return `<section id="${id}">\n<h2>${escapeHtml(heading)}</h2>\n${body}\n</section>`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #5f6368; --rule: #d0d7de; --fail: #b3261e;
  --card: #f6f8fa; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #16181c; --muted: #a0a4a8; --rule: #3a3f46;
  --fail: #ff8a80; --card: #1f2328; } }
body { margin: 0 auto; max-width: 1100px; padding: 1.5rem; color: var(--fg); background: var(--bg); line-height: 1.45; }
h1 { margin-bottom: 0.2rem; } h2 { border-bottom: 1px solid var(--rule); padding-bottom: 0.2rem; margin-top: 2rem; }
.muted { color: var(--muted); } .headline { font-size: 1.15rem; font-weight: 600; }
.table-wrap { overflow-x: auto; } table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid var(--rule); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
thead th { background: var(--card); } caption { text-align: left; color: var(--muted); padding-bottom: 0.25rem; }
td.fail, .fail { color: var(--fail); font-weight: 600; }
.chart-box { position: relative; height: 440px; } figure.chart { margin: 1.5rem 0; }
pre { background: var(--card); padding: 0.75rem; overflow-x: auto; border-radius: 4px; }
`;

/** Draws every chart from the JSON block; guide-line colours follow the reader's light or dark theme. */
const RENDER_SCRIPT = `
(function () {
  var specs = JSON.parse(document.getElementById('chart-data').textContent);
  var dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  Chart.defaults.color = dark ? '#d0d0d0' : '#333333';
  Chart.defaults.borderColor = dark ? 'rgba(255, 255, 255, 0.15)' : 'rgba(0, 0, 0, 0.12)';
  specs.forEach(function (spec) {
    var canvas = document.getElementById('chart-' + spec.id);
    if (!canvas) return;
    var config = spec.config;
    config.options.responsive = true;
    config.options.maintainAspectRatio = false;
    config.options.animation = false;
    new Chart(canvas, config);
  });
})();
`;

/** Renders the whole report as one HTML document; `charts` as renderReports drew them (by default drawn here). */
export function renderHtmlReport(results: Results, charts: readonly ChartSpec[] = buildCharts(results)): string {
  const env = results.environment;
  const pageTitle = `${results.lab}: ${results.title}`;

  const headline =
    results.headline === null
      ? '<p class="headline">No speedup was measured.</p>'
      : `<p class="headline">${escapeHtml(headlineSentence(results.headline))}</p>`;
  const failures = results.correctness.filter((e) => !e.passed).length;
  const failureLine =
    failures === 0
      ? ''
      : `<p class="fail">${failures} correctness check${failures === 1 ? '' : 's'} did not pass: those cases were not timed (see Correctness).</p>`;
  const anyOversubscribed = results.cases.some((c) => c.oversubscribed) || results.speedups.some((s) => s.oversubscribed);
  const anyNoisy = results.cases.some((c) => c.summary.noisy);
  const legend = [
    anyOversubscribed ? `${OVERSUBSCRIBED_TEXT} (${env.availableParallelism} here)` : '',
    anyNoisy ? NOISY_TEXT : '',
  ]
    .filter((t) => t !== '')
    .map((t) => `<p class="muted">${escapeHtml(t)}</p>`)
    .join('\n');

  const observations = observationsTable(results);
  // Efficiency above 1, negative Karp-Flatt values, sweeps too short to fit, extrapolated maxima: named (issue 43).
  const scalingNotesHtml = (r: Results): string => {
    const notes = scalingNotes({ speedups: r.speedups, amdahl: r.amdahl, availableParallelism: r.cpus.available });
    return notes.length === 0 ? '' : `\n<ul class="scaling-notes">${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`;
  };
  const sections = [
    section('correctness', 'Correctness', renderTable(correctnessTable(results))),
    section(
      'speedups',
      'Speedups',
      `<p class="muted">median baseline time / median variant time, with a 95% bootstrap interval (${results.bootstrapResamples} resamples); efficiency = speedup over one worker (else over the baseline) / workers.</p>\n` +
        (results.speedups.length === 0 ? '<p>No speedups: no variant was both correct and measured.</p>' : renderTable(speedupsTable(results))) +
        (results.amdahl.length === 0 ? '' : `\n${renderTable(amdahlTable(results), "Amdahl's law fits: speedup(p) = 1 / (f + (1 - f) / p)")}`) +
        scalingNotesHtml(results) +
        `\n${legend}`,
    ),
    section('times', 'Times', results.cases.length === 0 ? '<p>No case was measured.</p>' : renderTable(timesTable(results))),
    section('charts', 'Charts', charts.length === 0 ? '<p>Nothing to chart.</p>' : charts.map(renderChart).join('\n')),
    observations.rows.length === 0 ? '' : section('observations', 'Observations', renderTable(observations)),
    section('environment', 'Environment', renderTable(environmentTable(results))),
    section(
      'command',
      'Command',
      `<p class="muted">Run from the repository root to repeat this measurement:</p>\n<pre><code>${escapeHtml(shellCommandLine(results.command))}</code></pre>`,
    ),
    results.notes.length === 0
      ? ''
      : section('notes', 'Notes', `<ul>\n${results.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('\n')}\n</ul>`),
  ].filter((s) => s !== '');

  return htmlPage({
    title: pageTitle,
    style: STYLE,
    body: `<header>
<h1>${escapeHtml(pageTitle)}</h1>
<p class="muted">${escapeHtml(`${results.impl} · ${results.startedAt}${results.quick ? ' · quick run' : ''} · ${machineOneLiner(env)}`)}</p>
${headline}
${results.grade ? `<pre class="grade">${escapeHtml(formatGrade(results.grade).join('\n'))}</pre>` : ''}
${failureLine}
</header>
<main>
${sections.join('\n')}
</main>`,
    scripts: chartScripts(charts.map((c) => ({ id: c.id, config: c.config })), RENDER_SCRIPT),
  });
}
