/**
 * Build-time touches to a page's rendered body for keyboard, touch and screen-reader users (issue 29), as pure
 * functions of its HTML (LessonContent.astro applies them):
 *   - every wide table scrolls inside a focusable, labelled region (tabindex="0", role="region", aria-label), so a
 *     keyboard can scroll to the columns the text asks for (axe: scrollable-region-focusable);
 *   - the provenance of every measured number (its tooltip: what it is, the run, the machine) is also listed in a
 *     <details> at the end of the page, reachable without hovering.
 */

/** Text of an HTML fragment: tags dropped, entities of the escaper decoded, whitespace collapsed. */
export function textOf(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

/** Decodes the entities Astro's escaper writes (and numeric ones). */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|#39);/gi, (_, e: string) => {
    const lower = e.toLowerCase();
    if (lower === 'amp') return '&';
    if (lower === 'lt') return '<';
    if (lower === 'gt') return '>';
    if (lower === 'quot') return '"';
    if (lower === 'apos' || lower === '#39') return "'";
    return String.fromCodePoint(lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10));
  });
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * Wraps every <table> that does not scroll on its own (MeasuredTable marks its own with data-own-scroll) in a
 * focusable region named after the table: its caption, else "Table N: " and its column headers.
 */
export function wrapTables(html: string): string {
  let n = 0;
  return html.replace(/<table\b([^>]*)>([\s\S]*?)<\/table>/g, (whole, attributes: string, inner: string) => {
    if (/\bdata-own-scroll\b/.test(attributes)) return whole;
    n++;
    const caption = /<caption\b[^>]*>([\s\S]*?)<\/caption>/.exec(inner);
    const headers = [...inner.matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)].slice(0, 4).map((m) => textOf(m[1]!)).filter(Boolean);
    const label = caption ? textOf(caption[1]!) : `Table ${n}${headers.length > 0 ? `: ${headers.join(', ')}` : ''}`;
    return `<div class="table-scroll" tabindex="0" role="region" aria-label="${escapeAttribute(label.slice(0, 160))}">${whole}</div>`;
  });
}

export interface Provenance {
  text: string;
  source: string;
}

/** Every measured number (data-measured) and run-given verb (data-compare) of the body with its tooltip, once each. */
export function provenanceOf(html: string): Provenance[] {
  const found: Provenance[] = [];
  const seen = new Set<string>();
  for (const m of html.matchAll(/<(span|td)\b([^>]*\bdata-(?:measured|compare)\b[^>]*)>([\s\S]*?)<\/\1>/g)) {
    const title = /\btitle="([^"]*)"/.exec(m[2]!);
    if (!title) continue;
    const item = { text: textOf(m[3]!), source: decodeEntities(title[1]!).replace(/\s*\n\s*/g, '; ') };
    const key = `${item.text}\0${item.source}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(item);
  }
  return found;
}
