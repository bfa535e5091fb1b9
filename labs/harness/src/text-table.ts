import { terminalText } from '@parallel-course/core';

/**
 * Plain-text tables for the terminal: columns padded to their widest cell, lines kept within a width budget by
 * shortening one flexible column (a reason, a comparator) with an ellipsis. No colour, so NO_COLOR and pipes need
 * no special case.
 */

/** Widest line the summary prints, in columns. */
export const TERMINAL_WIDTH = 110;

/** The width for this process's stdout: the summary's width on a terminal, null (nothing cut) in a file or a pipe. */
export function stdoutSummaryWidth(stream: { isTTY?: boolean } = process.stdout): number | null {
  return stream.isTTY ? TERMINAL_WIDTH : null;
}

/** Longest a non-flexible cell may get, in characters, before it is cut with "…". */
const MAX_CELL = 40;
const GAP = '  ';



/** Length in code points, which is the column count for the Latin text and symbols we print. */
function displayWidth(text: string): number {
  return [...text].length;
}

/** Cuts `text` to at most `width` columns, ending with "…" when something was removed. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(0, width).join('');
  return `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * Word-wraps terminal-safe `text` into lines of at most `width` columns: the first starts with `indent`, the
 * others with as many spaces (a hanging indent);
 * words longer than a line are split. At most `maxLines` lines; the last one ends with "…" when text was left out.
 */
export function wrapText(text: string, width: number, indent = '', maxLines = 8): string[] {
  const room = Math.max(8, width - displayWidth(indent));
  const lines: string[] = [];
  let current = '';
  for (const word of terminalText(text).split(/ +/)) {
    let rest = word;
    while (displayWidth(rest) > room) {
      if (current !== '') lines.push(current);
      const chars = [...rest];
      lines.push(chars.slice(0, room).join(''));
      rest = chars.slice(room).join('');
      current = '';
    }
    const candidate = current === '' ? rest : `${current} ${rest}`;
    if (displayWidth(candidate) <= room) current = candidate;
    else {
      lines.push(current);
      current = rest;
    }
  }
  if (current !== '') lines.push(current);
  const kept = lines.slice(0, maxLines);
  if (lines.length > maxLines) kept[maxLines - 1] = truncate(`${kept[maxLines - 1] ?? ''} …`, room);
  const hanging = ' '.repeat(displayWidth(indent));
  return kept.map((l, i) => (i === 0 ? indent : hanging) + l);
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

export interface TextTableOptions {
  /** Spaces before each line. */
  indent?: number;
  /** Total line width budget in columns. */
  maxWidth: number;
  /** Index of the column that is shortened when a line would be too wide; defaults to the last column. */
  flexibleColumn?: number;
}

/**
 * Lays out a header row and data rows. Cells are made terminal-safe, non-flexible cells are cut at 40 columns, and
 * the flexible column gives up width until every line fits `maxWidth` (it keeps at least 8 columns). With an
 * infinite `maxWidth` (output that is not a terminal) nothing is cut.
 */
export function renderTextTable(headers: string[], rows: string[][], options: TextTableOptions): string[] {
  const indent = ' '.repeat(options.indent ?? 2);
  const flexible = options.flexibleColumn ?? headers.length - 1;
  const cells = [headers, ...rows].map((row) =>
    headers.map((_, i) => {
      const text = terminalText(row[i] ?? '');
      return i === flexible || options.maxWidth === Number.POSITIVE_INFINITY ? text : truncate(text, MAX_CELL);
    }),
  );
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => displayWidth(row[i] ?? ''))));
  const fixedWidth = widths.reduce((sum, w, i) => (i === flexible ? sum : sum + w), 0);
  const budget = options.maxWidth - indent.length - GAP.length * (headers.length - 1) - fixedWidth;
  widths[flexible] = Math.max(8, Math.min(widths[flexible] ?? 0, budget));
  return cells.map((row) => {
    const parts = row.map((cell, i) => {
      const width = widths[i] ?? 0;
      const fitted = truncate(cell, width);
      // No trailing spaces after the last column.
      return i === row.length - 1 ? fitted : padEnd(fitted, width);
    });
    return (indent + parts.join(GAP)).trimEnd();
  });
}
