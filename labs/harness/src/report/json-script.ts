/**
 * JSON that is safe inside a <script> element (no node: imports here: the site's results viewer embeds runs with it): `<`, `>` and `&` become \u escapes (so no `</script>` or `<!--`
 * can appear), and U+2028/U+2029 too (line terminators in older JavaScript parsers). JSON.parse reads it unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
