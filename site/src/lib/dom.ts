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

/** A table with a caption, a header row and body rows of plain text cells. */
export function textTable(caption: string, headers: readonly string[], rows: readonly (readonly string[])[]): HTMLTableElement {
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
  return table;
}
