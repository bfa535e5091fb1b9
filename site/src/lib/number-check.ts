/**
 * Finds measured numbers typed by hand into an episode (issue 20): a number followed by a unit of time, rate or size,
 * or a speedup factor, in the page's text, outside code, frontmatter, ESM, expressions and the <Measured>/<Given>
 * components. Every measured number comes from a run through <Measured>; a number that is not a measurement of the
 * course's runs (a specification, a paper, a lab input, an example) goes through <Given from="...">.
 *
 * Flagged (the number may have a thousands comma and decimals; a space, no-break space or hyphen may separate it):
 *   time   ns µs μs us ms s sec secs second(s) millisecond(s) microsecond(s) nanosecond(s)
 *   rate   anything per second written "/s" (GB/s, GFLOP/s, req/s, requests/s, /s) or "per second"
 *   size   B byte(s) KB kB MB GB TB KiB MiB GiB TiB
 *   factor 1.8x or 1.8× (no space), and "1.8 times" (with decimals, or followed by faster, slower, as, more, ...)
 *   share  a percentage, 26% or 26 % (issue 29: a typed "about 26%" of peak drifted from the run's 22.7%), except
 *          the "95% interval" that names an interval's kind
 * The frontmatter is checked too (issue 29): its keypoints and objectives are lesson text, and a component cannot
 * quote a run there, so a measured number in the frontmatter must go.
 * Not flagged: minutes and hours (lesson timings), plain numbers (counts, sizes such as n = 256), "3 × workers".
 * A percentage that is not a measurement (an example's 5% serial fraction, a rule's 10% overhead) goes in <Given>.
 * Pure: works on any mdast tree (satteri's, as the build and count-numbers.ts parse it).
 */

export interface Finding {
  line: number;
  column: number;
  /** The hand-typed measurement, e.g. "12.3 ms". */
  text: string;
  /** The text around it, on one line, for the message. */
  context: string;
}

interface Point {
  line: number;
  column: number;
  offset?: number;
}
export interface MdNode {
  type: string;
  value?: string;
  name?: string | null;
  children?: MdNode[];
  position?: { start: Point; end: Point } | undefined;
}

const SEP = String.raw`[ \u00a0\u2009\u202f-]?`;
const WORD_SEP = String.raw`[ \u00a0\u2009\u202f]`;
const NUMBER = String.raw`(?<![\p{L}\p{N}_.,/])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
const END = String.raw`(?![\p{L}\p{N}_/])`;
const UNIT = String.raw`(?:ns|µs|μs|us|ms|s|secs?|KB|kB|MB|GB|TB|KiB|MiB|GiB|TiB|B)`;
const UNIT_WORD = String.raw`(?:seconds?|milliseconds?|microseconds?|nanoseconds?|bytes?|per${WORD_SEP}second)`;
const RATE = String.raw`(?:[\p{L}]+)?\/s`;
const TIMES = String.raw`times(?=${WORD_SEP}(?:faster|slower|as|more|less|higher|lower|longer|shorter|larger|smaller|bigger|quicker|the|over|speedup)\b)`;

/** One pattern for every kind; group 0 is the number with its unit. */
const MEASUREMENT_PATTERN = new RegExp(
  [
    `${NUMBER}${WORD_SEP}?${RATE}${END}`,
    `${NUMBER}${SEP}${UNIT}${END}`,
    `${NUMBER}${WORD_SEP}${UNIT_WORD}${END}`,
    `${NUMBER}${WORD_SEP}\\p{L}+${WORD_SEP}per${WORD_SEP}second${END}`,
    `${NUMBER}[x×]${END}`,
    // "a 95% interval" names the kind of interval, not a measurement.
    `${NUMBER}${WORD_SEP}?%(?!\\s+(?:bootstrap\\s+|confidence\\s+|order-statistic\\s+)?intervals?\\b)`,
    `(?<![\\p{L}\\p{N}_.,/])\\d+\\.\\d+${WORD_SEP}times${END}`,
    `${NUMBER}${WORD_SEP}${TIMES}`,
  ]
    .map((p) => `(?:${p})`)
    .join('|'),
  'gu',
);

/** Components whose content is exempt: they render or name the number's source themselves. */
const EXEMPT_COMPONENTS = new Set(['Measured', 'Given', 'MeasuredTable', 'SpeedupChart']);
/** Node types never checked: code, ESM, expressions, raw HTML, math. (Frontmatter is checked as text.) */
const SKIPPED_TYPES = new Set(['code', 'inlineCode', 'mdxjsEsm', 'mdxFlowExpression', 'mdxTextExpression', 'html', 'math', 'inlineMath', 'definition']);

/** The hand-typed measurements in one string, with their offsets. */
export function findInText(text: string): { index: number; text: string }[] {
  const found: { index: number; text: string }[] = [];
  for (const match of text.matchAll(MEASUREMENT_PATTERN)) found.push({ index: match.index, text: match[0] });
  return found;
}

/** Every hand-typed measurement in an mdast tree, in document order. */
export function findHandTypedMeasurements(root: MdNode): Finding[] {
  const findings: Finding[] = [];
  const walk = (node: MdNode) => {
    if (SKIPPED_TYPES.has(node.type)) return;
    if ((node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') && node.name && EXEMPT_COMPONENTS.has(node.name)) return;
    const isFrontmatter = node.type === 'yaml' || node.type === 'toml';
    if ((node.type === 'text' || isFrontmatter) && typeof node.value === 'string') {
      for (const hit of findInText(node.value)) {
        const before = node.value.slice(0, hit.index);
        const newlines = before.split('\n').length - 1;
        const at = node.position?.start ?? { line: 0, column: 0 };
        // A frontmatter node starts at its opening "---"; its value starts on the next line, at column 1.
        const start = isFrontmatter ? { line: at.line + 1, column: 1 } : at;
        const column = newlines === 0 ? start.column + hit.index : hit.index - before.lastIndexOf('\n');
        const context = node.value
          .slice(Math.max(0, hit.index - 40), hit.index + hit.text.length + 30)
          .replace(/\s+/g, ' ')
          .trim();
        findings.push({ line: start.line + newlines, column, text: hit.text, context });
      }
      return;
    }
    for (const child of node.children ?? []) walk(child);
  };
  walk(root);
  return findings;
}

/** How the build treats findings: 'strict' fails it, 'warn' prints them, 'off' ignores them. */
export type NumberCheckMode = 'strict' | 'warn' | 'off';

export interface NumberCheckConfig {
  /** The mode for every episode; COURSE_NUMBER_CHECK overrides it. */
  mode: NumberCheckMode;
}

/** The mode for every episode: COURSE_NUMBER_CHECK (strict|warn|off) wins, then the config's mode. */
export function modeFor(config: NumberCheckConfig, env: NodeJS.ProcessEnv = process.env): NumberCheckMode {
  const fromEnv = env['COURSE_NUMBER_CHECK'];
  if (fromEnv === 'strict' || fromEnv === 'warn' || fromEnv === 'off') return fromEnv;
  return config.mode;
}

/** The build's message for one file's findings. */
export function describeFindings(file: string, findings: readonly Finding[], limit = Infinity): string {
  const lines = findings.slice(0, limit).map((f) => `  ${file}:${f.line}:${f.column}  "${f.text}"  in: …${f.context}…`);
  const more = findings.length > limit ? [`  ... and ${findings.length - limit} more (COURSE_NUMBER_CHECK=strict lists them all)`] : [];
  return (
    `${file}: ${findings.length} hand-typed measurement${findings.length === 1 ? '' : 's'} (a number with a unit of time, rate or size, a speedup factor or a percentage, in the text or the frontmatter):\n` +
    [...lines, ...more].join('\n') +
    '\n  Fix: quote a measured number from a run with <Measured run="<lab>" at="..." /> (site/src/components/Measured.astro), ' +
    'or wrap a number that is not a measurement of the course\'s runs in <Given from="<its source>">...</Given>; ' +
    'remove numbers the prose does not need (in the frontmatter, where no component works, say it without the number).'
  );
}
