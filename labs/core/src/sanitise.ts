/**
 * Text from a results file, a learner's program or an external command is untrusted. One sanitiser per medium it is
 * shown in, each here once:
 *   terminalText   a terminal line (escape sequences dropped, every other control shown as "?")
 *   escapeHtml     HTML element content and quoted attribute values (also SVG/XML text)
 *   escapeMarkdown Markdown inline text and table cells
 *   csvField       one field of a CSV row (RFC 4180, with spreadsheet formulas defused)
 */

/**
 * ECMA-48 sequences a terminal acts on: CSI (colours, cursor moves, clearing the screen), OSC (window titles,
 * hyperlinks, clipboard writes), DCS/SOS/PM/APC strings, and the short ESC + one-or-more-bytes forms.
 */
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~]?)/g;

/** C0 and C1 controls (DEL too) and the bidi overrides that reorder a line: anything that can move the cursor,
 * recolour, clear or disguise a terminal line. */
const UNSAFE_TERMINAL_CHARS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

export interface TerminalTextOptions {
  /** Keep newlines and tabs (a carriage return becomes a newline): for multi-line text such as a list of problems or
   * a command's output. Default false: one line, where a newline could forge an extra line of output. */
  multiline?: boolean;
  /** 'drop': remove the remaining controls instead of showing "?", for a command's output that is parsed as well as
   * shown (a GPU list from nvidia-smi). Default 'mark'. */
  controls?: 'mark' | 'drop';
}

/**
 * Text made safe to print on a terminal: whole escape sequences are dropped (so "\u001b[2J" cannot clear the screen
 * and leaves no "[2J" behind), then every remaining control character becomes "?", so the reader sees that something
 * was there. With `multiline`, newlines and tabs are kept and a carriage return (which could overwrite a line) becomes
 * a newline.
 */
export function terminalText(text: string, options: TerminalTextOptions = {}): string {
  const input = options.multiline ? text.replace(/\r\n?/g, '\n') : text;
  return input
    .replace(ESCAPE_SEQUENCE, '')
    .replace(UNSAFE_TERMINAL_CHARS, (c) => (options.multiline && (c === '\n' || c === '\t') ? c : options.controls === 'drop' ? '' : '?'));
}

/** Escapes text for HTML (and SVG) element content and double- or single-quoted attribute values. */
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

/**
 * Escapes text for Markdown inline content and table cells: backslash-escapes the characters that make emphasis,
 * code, links, headings, strikethrough and cell breaks (CommonMark allows a backslash before any ASCII punctuation),
 * turns `<` and `>` into entities so no raw HTML survives, and folds line breaks into spaces so a cell stays on its row.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, ' ')
    // Other controls (ESC, BEL...): `cat report.md` in a terminal must not run them.
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[\\`*_[\]#|~]/g, (ch) => `\\${ch}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * A CSV field per RFC 4180: quoted when it holds a comma, a quote or a line break; a text starting with = + - @
 * (a formula to a spreadsheet) is defused with a leading apostrophe. Numbers are written as they are.
 */
export function csvField(value: string | number | boolean | null): string {
  let text = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
