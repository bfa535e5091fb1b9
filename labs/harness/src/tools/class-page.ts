/**
 * `npm run class -- <folder of submissions>`: one self-contained HTML page comparing a class. Every *.json under the
 * folder is validated (validate.ts); valid ones go into a table and into the scaling chart of their lab (the
 * headline variant's speedup against workers, one line per learner, across their machines); every invalid one is
 * listed with its reasons. A bad file never stops the rest: a FIFO, a link to a device or a file over the cap is
 * refused unread (safe-read.ts) and listed with its reason.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { caseLabel, escapeHtml, formatPercent, formatSignificant, formatSpeedup, formatTimeWithInterval, sameCase, type Results } from '@parallel-course/core';
import { chartScripts, htmlPage } from '../report/html-page.ts';
import { seriesColour, GUIDE_GREY } from '../report/chart-spec.ts';
import { speedupsByWorkers } from '../report/select.ts';
import { validateFile, type ValidateFileOptions } from './validate.ts';
import { gradebookHtml, gradebookRow } from './gradebook.ts';
import { isFolder } from '../write/results-reader.ts';

export interface Submission {
  /** The learner's name: the file's path under the folder, without `/results.json` or `.json`. */
  name: string;
  file: string;
  results: Results | null;
  problems: string[];
  /** Why the file was refused unread (not a regular file, over the cap), or null when it was read. */
  refused: string | null;
}

/** A run's `analysis/values.json` (the lab's named values, core's analysis-values.ts): part of a run, not a submission. */
function isAnalysisValues(folder: string, name: string): boolean {
  return name === 'values.json' && path.basename(folder) === 'analysis';
}

/**
 * Every *.json under `dir` (hidden folders and node_modules skipped; a run's report.json, prediction.json and
 * analysis/values.json are not submissions), sorted; unreadable folders are skipped.
 * Symbolic links are never followed into folders; a *.json that is not a regular file (a FIFO, a socket, a link to
 * a device) is listed too, so that loadSubmissions reports it as refused instead of leaving it out silently.
 */
export function findSubmissionFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.json') && e.name !== 'report.json' && e.name !== 'prediction.json' && !isAnalysisValues(d, e.name)) out.push(full);
    }
  };
  walk(dir);
  return out.sort();
}

export function submissionName(dir: string, file: string): string {
  return path.relative(dir, file).replace(/\\/g, '/').replace(/\/results\.json$/, '').replace(/\.json$/, '');
}

/** Validates every submission, each file read safely (validate.ts); an exception in one file becomes its problem. */
export function loadSubmissions(dir: string, options: ValidateFileOptions = {}): Submission[] {
  return findSubmissionFiles(dir).map((file) => {
    const name = submissionName(dir, file);
    try {
      const result = validateFile(file, options);
      return { name, file, results: result.valid ? result.results : null, problems: result.problems, refused: result.refused?.message ?? null };
    } catch (error) {
      return { name, file, results: null, problems: [`could not be checked: ${(error as Error).message}`], refused: null };
    }
  });
}

function headlineWorkers(r: Results): Array<{ workers: number; speedup: number }> {
  if (!r.headline) return [];
  return (speedupsByWorkers(r).get(r.headline.variant) ?? []).map((e) => ({ workers: e.workers, speedup: e.speedup }));
}

/** The chart.js configuration of one lab's scaling curves: one line per learner, plus the ideal y = x. */
export function classScalingChart(lab: string, subs: Submission[]): Record<string, unknown> | null {
  const series = subs
    .map((s) => ({ s, points: headlineWorkers(s.results as Results) }))
    .filter((x) => x.points.length > 0);
  if (series.length === 0) return null;
  const maxWorkers = Math.max(...series.flatMap((x) => x.points.map((p) => p.workers)));
  return {
    type: 'scatter',
    data: {
      datasets: [
        ...series.map(({ s, points }, i) => ({
          label: `${s.name} (${(s.results as Results).environment.availableParallelism} CPUs, ${(s.results as Results).environment.cpuModel})`,
          data: points.map((p) => ({ x: p.workers, y: Number(formatSignificant(p.speedup, 4)) })),
          showLine: true,
          borderColor: seriesColour(i),
          backgroundColor: seriesColour(i),
        })),
        {
          label: 'ideal (speedup = workers)',
          data: [{ x: 1, y: 1 }, { x: maxWorkers, y: maxWorkers }],
          showLine: true,
          borderColor: GUIDE_GREY,
          borderDash: [4, 4],
          pointRadius: 0,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { title: { display: true, text: `${lab}: headline speedup against workers, per learner` }, legend: { position: 'bottom' } },
      scales: { x: { type: 'linear', title: { display: true, text: 'workers' } }, y: { beginAtZero: true, title: { display: true, text: 'speedup (×)' } } },
    },
  };
}

function row(s: Submission): string[] {
  const r = s.results as Results;
  const h = r.headline;
  // The case the headline's speedup is over, by the one case identity (not a case whose params the headline's share).
  const base = h ? r.cases.find((c) => sameCase(c, { variant: h.baseline, params: h.baselineParams })) : undefined;
  const fit = h ? r.amdahl.find((a) => a.variant === h.variant) : undefined;
  return [
    s.name,
    `${r.environment.cpuModel} · ${r.environment.availableParallelism} CPUs${Object.keys(r.environment.slurm).length > 0 ? ' · Slurm' : ''}`,
    `${r.impl}${r.quick ? ' (quick)' : ''}`,
    h ? `${caseLabel(h)}: ${formatSpeedup(h)}` : 'none',
    h?.efficiency === undefined ? '' : formatPercent(h.efficiency),
    fit ? formatSignificant(fit.serialFraction, 2) : '',
    base ? formatTimeWithInterval(base.summary.median, base.summary.ci95) : '',
    String(r.cases.filter((c) => c.summary.noisy).length),
  ];
}

function table(headers: string[], rows: string[][]): string {
  return `<div class="table-wrap"><table><thead><tr>${headers.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>\n${rows
    .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
    .join('\n')}\n</tbody></table></div>`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #5f6368; --rule: #d0d7de; --card: #f6f8fa; --fail: #b3261e;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #16181c; --muted: #a0a4a8; --rule: #3a3f46; --card: #1f2328; --fail: #ff8a80; } }
body { margin: 0 auto; max-width: 1200px; padding: 1.5rem; color: var(--fg); background: var(--bg); line-height: 1.45; }
h2 { border-bottom: 1px solid var(--rule); padding-bottom: 0.2rem; margin-top: 2rem; } .muted { color: var(--muted); }
.table-wrap { overflow-x: auto; } table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid var(--rule); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; } thead th { background: var(--card); }
.chart-box { position: relative; height: 460px; } .invalid h3 { color: var(--fail); margin-bottom: 0.2rem; }
`;

/** The whole page. Chart data travels as JSON in a script block, escaped so no submission can close it. */
export function renderClassPage(dir: string, submissions: Submission[], now = new Date(), options: ValidateFileOptions = {}): string {
  const valid = submissions.filter((s) => s.results !== null);
  const invalid = submissions.filter((s) => s.results === null || s.problems.length > 0);
  const labs = [...new Set(valid.map((s) => (s.results as Results).lab))].sort();
  const charts: Array<{ id: string; config: Record<string, unknown> }> = [];
  const sections = labs.map((lab, i) => {
    const subs = valid.filter((s) => (s.results as Results).lab === lab);
    const config = classScalingChart(lab, subs);
    if (config) charts.push({ id: `chart-${i}`, config });
    return `<section><h2>${escapeHtml(lab)} (${subs.length} valid submission${subs.length === 1 ? '' : 's'})</h2>
${table(['learner', 'machine', 'impl', 'headline speedup [95% CI]', 'efficiency', 'Amdahl serial fraction', 'baseline median [95% CI]', 'noisy cases'], subs.map(row))}
${config ? `<div class="chart-box"><canvas id="chart-${i}" role="img" aria-label="${escapeHtml(lab)} scaling curves; the numbers are in the table above"></canvas></div>` : '<p class="muted">No worker sweep in these submissions: no scaling curves.</p>'}
</section>`;
  });
  const invalidHtml = invalid.length === 0
    ? '<p>None.</p>'
    : invalid.map((s) => `<div class="invalid"><h3>${escapeHtml(s.name)}</h3><ul>${s.problems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul></div>`).join('\n');
  return htmlPage({
    title: 'Class results',
    style: STYLE,
    body: `<h1>Class results</h1>
<p class="muted">${escapeHtml(`${submissions.length} files in ${dir}, ${valid.length} valid, ${invalid.length} invalid · made ${now.toISOString()} · every number recomputed from the raw samples of each file`)}</p>
<section><h2>Gradebook</h2>
<p class="muted">One row per learner and lab; the same rows are in gradebook.csv beside this page. A grade is the learner's speed relative to the solution measured in the same run (npm run lab -- &lt;lab&gt; --grade); a file whose numbers do not recompute gets none.</p>
${gradebookHtml(submissions.map((s) => gradebookRow(s.name, s.file, options)))}
</section>
${sections.join('\n')}
<section><h2>Invalid submissions (${invalid.length})</h2>
${invalidHtml}
</section>`,
    scripts: chartScripts(charts, RENDER_SCRIPT),
  });
}

/** Draws each chart of the class page into the canvas its id names. */
const RENDER_SCRIPT = `
(function () {
  JSON.parse(document.getElementById('chart-data').textContent).forEach(function (c) {
    var canvas = document.getElementById(c.id);
    if (canvas) new Chart(canvas, c.config);
  });
})();
`;
