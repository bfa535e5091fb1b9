/**
 * Renders the report's blocks as Markdown (charts as PNG files beside it) and as one self-contained HTML page
 * (charts as PNG data: URLs, so it needs no script and no network). Text from results files and notes is escaped.
 */
import { codeBlock } from '../report/markdown.ts';
import { htmlPage } from '../report/html-page.ts';
import type { DataTable } from '../report/chart-spec.ts';
import type { Block } from './report-document.ts';
import { escapeHtml, escapeMarkdown } from '@parallel-course/core';

/** `charts/<run>-<chart id>.png`: file names from fixed ids, never from lab data. */
export function chartPath(runIndex: number, chartId: string): string {
  return `charts/run${runIndex + 1}-${chartId}.png`;
}

function markdownTable(table: DataTable): string {
  if (table.rows.length === 0) return '';
  const line = (cells: string[]) => `| ${cells.map((c) => (c === '' ? ' ' : escapeMarkdown(c))).join(' | ')} |`;
  return [line(table.headers), `|${table.headers.map(() => ' --- ').join('|')}|`, ...table.rows.map(line)].join('\n');
}

export function renderMarkdown(blocks: Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case 'heading':
        out.push(`${'#'.repeat(b.level)} ${escapeMarkdown(b.text)}`);
        break;
      case 'paragraph':
        out.push(b.emphasis === 'strong' ? `**${escapeMarkdown(b.text)}**` : b.emphasis ? `_${escapeMarkdown(b.text)}_` : escapeMarkdown(b.text));
        break;
      case 'learner':
        // The learner's Markdown, quoted so it is set apart from the generated text.
        out.push(b.text.split('\n').map((l) => `> ${l}`).join('\n'));
        break;
      case 'list':
        if (b.items.length > 0) out.push(b.items.map((i) => `- ${escapeMarkdown(i)}`).join('\n'));
        break;
      case 'table':
        out.push(markdownTable(b.table));
        break;
      case 'chart':
        out.push(`**${escapeMarkdown(b.title)}.** ${escapeMarkdown(b.description)}`, `![${escapeMarkdown(b.title)}](${encodeURI(chartPath(b.runIndex, b.chartId))})`, markdownTable(b.table));
        break;
      case 'code':
        out.push(codeBlock(b.text, 'sh'));
        break;
    }
    out.push('');
  }
  return out.join('\n');
}

function htmlTable(table: DataTable): string {
  const head = table.headers.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const body = table.rows.map((row) => `<tr>${row.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #5f6368; --rule: #d0d7de; --card: #f6f8fa; --warn: #9a6700;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #16181c; --muted: #a0a4a8; --rule: #3a3f46; --card: #1f2328; --warn: #e3b341; } }
body { margin: 0 auto; max-width: 1100px; padding: 1.5rem; color: var(--fg); background: var(--bg); line-height: 1.45; }
h2 { border-bottom: 1px solid var(--rule); padding-bottom: 0.2rem; margin-top: 2.5rem; }
.muted { color: var(--muted); } .strong { font-weight: 600; font-size: 1.1rem; } .missing { color: var(--warn); font-style: italic; }
.learner { border-left: 4px solid var(--rule); margin: 0.5rem 0; padding: 0.25rem 0.75rem; white-space: pre-wrap; font-family: inherit; background: var(--card); }
.table-wrap { overflow-x: auto; } table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid var(--rule); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; } thead th { background: var(--card); }
figure { margin: 1.5rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid var(--rule); }
pre.code { background: var(--card); padding: 0.75rem; overflow-x: auto; border-radius: 4px; }
`;

/** `pngs` maps chartPath(run, id) to the PNG bytes; a chart without bytes is shown as its table only. */
export function renderHtml(blocks: Block[], pngs: ReadonlyMap<string, Uint8Array>): string {
  const title = blocks.find((b) => b.kind === 'heading' && b.level === 1);
  const body = blocks.map((b) => {
    switch (b.kind) {
      case 'heading':
        return `<h${b.level}>${escapeHtml(b.text)}</h${b.level}>`;
      case 'paragraph':
        return `<p${b.emphasis ? ` class="${b.emphasis}"` : ''}>${escapeHtml(b.text)}</p>`;
      case 'learner':
        return `<pre class="learner">${escapeHtml(b.text)}</pre>`;
      case 'list':
        return b.items.length === 0 ? '' : `<ul>\n${b.items.map((i) => `<li>${escapeHtml(i)}</li>`).join('\n')}\n</ul>`;
      case 'table':
        return htmlTable(b.table);
      case 'chart': {
        const png = pngs.get(chartPath(b.runIndex, b.chartId));
        const img = png ? `<img alt="${escapeHtml(b.title)}; the data are in the table below" src="data:image/png;base64,${Buffer.from(png).toString('base64')}">` : '';
        return `<figure><figcaption><strong>${escapeHtml(b.title)}.</strong> ${escapeHtml(b.description)}</figcaption>${img}\n<details><summary>Data behind this chart</summary>${htmlTable(b.table)}</details></figure>`;
      }
      case 'code':
        return `<pre class="code"><code>${escapeHtml(b.text)}</code></pre>`;
    }
  });
  return htmlPage({
    title: title && title.kind === 'heading' ? title.text : 'Optimisation report',
    style: STYLE,
    body: body.filter((s) => s !== '').join('\n'),
  });
}
