/** One sanitiser per medium (terminal, HTML, Markdown, CSV), each on known hostile and harmless values. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvField, escapeHtml, escapeMarkdown, terminalText } from '@parallel-course/core';

const ESC = '\u001b';

test('terminalText drops escape sequences and shows every other control as "?"', () => {
  assert.equal(terminalText(`a${ESC}[31mb\nc\u202ed`), 'ab?c?d');
  assert.equal(terminalText(`mine${ESC}[2J\u0007\u009b\r\n\tx\u202e`), 'mine?????x?');
  assert.equal(terminalText(`a${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\b`), 'alinkb');
  assert.equal(terminalText('speedup 1.8× [1.7, 1.9] – ok ünïcødé ✓'), 'speedup 1.8× [1.7, 1.9] – ok ünïcødé ✓');
});

test('terminalText multiline keeps newlines and tabs and turns a carriage return into a newline', () => {
  assert.equal(terminalText(`a${ESC}[2J\r\nb\tc`, { multiline: true }), 'a\nb\tc');
  assert.equal(terminalText('over\rwrite', { multiline: true }), 'over\nwrite');
  assert.equal(terminalText('nul\x00 del\x7f bidi\u202eevil', { multiline: true }), 'nul? del? bidi?evil');
  assert.equal(terminalText('nul\x00 del\x7f bidi\u202eevil', { multiline: true, controls: 'drop' }), 'nul del bidievil');
});

test('escapeHtml escapes the five characters that matter in content and quoted attributes', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.equal(escapeHtml('plain 1.8×'), 'plain 1.8×');
});

test('escapeMarkdown keeps a cell on its row and no raw HTML', () => {
  assert.equal(escapeMarkdown('<img src=x onerror=alert(1)>'), '&lt;img src=x onerror=alert(1)&gt;');
  assert.equal(escapeMarkdown('a|b\n*c*'), 'a\\|b \\*c\\*');
});

test('csvField quotes per RFC 4180 and defuses spreadsheet formulas', () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
  assert.equal(csvField(-1.5), '-1.5');
  assert.equal(csvField(null), '');
  assert.equal(csvField(true), 'true');
});
