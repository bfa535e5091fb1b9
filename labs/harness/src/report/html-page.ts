/**
 * The shell shared by every self-contained HTML page the harness writes (the run report, the class page, the
 * optimisation report): one file, no network requests (a Content-Security-Policy forbids any), styles inline, and
 * scripts inline only when the page has some (then chart.js travels inside the page).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { jsonForScript } from './json-script.ts';

export { jsonForScript };

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    // C0/C1 controls but tab and line breaks (ESC, BEL...): a page printed to a terminal or a pager must not run them.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

let chartJsSource: string | undefined;

/**
 * chart.js's UMD bundle, read once. It is not in the package's exports, so it is found next to the file that
 * `require.resolve('chart.js')` returns (dist/chart.cjs).
 */
export function loadChartJsSource(): string {
  if (chartJsSource !== undefined) return chartJsSource;
  const require = createRequire(import.meta.url);
  const file = path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js');
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read chart.js for the HTML report at ${file} (${(error as Error).message}); run \`npm install\` in the repository root`,
      { cause: error },
    );
  }
  // Inlined code must not contain "</script" (it would end the element); in JavaScript "<\/" means the same.
  chartJsSource = source.replace(/<\/script/gi, '<\\/script');
  return chartJsSource;
}

/**
 * The script elements of a page with charts: the chart data as JSON, chart.js itself, and `render`, a script that
 * reads the data from the element with id "chart-data" and draws each chart.
 */
export function chartScripts(data: unknown, render: string): string[] {
  return [`<script type="application/json" id="chart-data">${jsonForScript(data)}</script>`, `<script>${loadChartJsSource()}</script>`, `<script>${render}</script>`];
}

export interface HtmlPage {
  title: string;
  /** CSS, inlined in a <style> element. */
  style: string;
  /** The content of <body>, already escaped. */
  body: string;
  /** Complete script elements appended to the body; with none the policy allows no script at all. */
  scripts?: string[];
}

export function htmlPage(page: HtmlPage): string {
  const scripts = page.scripts ?? [];
  const scriptSrc = scripts.length > 0 ? " script-src 'unsafe-inline';" : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none';${scriptSrc} style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${page.style}</style>
</head>
<body>
${[page.body, ...scripts].join('\n')}
</body>
</html>
`;
}
