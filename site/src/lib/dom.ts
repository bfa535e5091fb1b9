/**
 * Small DOM builders for the interactive parts. Every string goes in through textContent, never innerHTML,
 * so text from a loaded results file can never become markup or script.
 */

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

/**
 * A table with a short caption, a header row and body rows of plain text cells, inside a box that scrolls sideways
 * on narrow screens. An optional note is shown under the box (a long caption could not wrap inside a scrolling table).
 */
export function textTable(
  caption: string,
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  note?: string,
): HTMLElement {
  const table = element('table', undefined, 'data-table');
  table.append(element('caption', caption));
  const head = element('thead');
  const headRow = element('tr');
  for (const header of headers) {
    const cell = element('th', header);
    cell.scope = 'col';
    headRow.append(cell);
  }
  head.append(headRow);
  const body = element('tbody');
  for (const row of rows) {
    const tr = element('tr');
    for (const value of row) tr.append(element('td', value));
    body.append(tr);
  }
  table.append(head, body);
  const wrapper = element('div', undefined, 'table-block');
  const scroller = element('div', undefined, 'table-scroll');
  // A keyboard must be able to scroll to the hidden columns: a focusable region named after the table (issue 29).
  scroller.tabIndex = 0;
  scroller.setAttribute('role', 'region');
  scroller.setAttribute('aria-label', caption);
  scroller.append(table);
  wrapper.append(scroller);
  if (note !== undefined) wrapper.append(element('p', note, 'table-note'));
  return wrapper;
}
