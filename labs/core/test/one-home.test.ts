/**
 * Each cross-cutting helper has one home (issue 24): the number formatter and the sanitisers in the core, the cgroup
 * quota reader, the CPU affinity parser and the system file reader in the harness's cpus.ts. A second definition anywhere in the tree fails.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function sources(): string[] {
  const out: string[] = [];
  for (const dir of ['labs', 'site/src', 'site/scripts', 'exercises', 'solutions']) {
    for (const d of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!d.isFile() || !/\.(ts|astro|mjs)$/.test(d.name) || d.parentPath.includes('node_modules') || d.parentPath.includes(`${path.sep}test`)) continue;
      out.push(path.relative(ROOT, path.join(d.parentPath, d.name)));
    }
  }
  return out;
}

/** What must be defined in exactly one file, and which file. */
const HOMES: [RegExp, string, string][] = [
  [/function (formatSignificant|toSignificant|formatNumber)\b/, 'labs/core/src/format.ts', 'the number formatter'],
  [/function (terminalText|terminalSafe|sanitizeForTerminal|sanitiseText)\b/, 'labs/core/src/sanitise.ts', 'the terminal sanitiser'],
  [/function (escapeHtml|escapeXml)\b/, 'labs/core/src/sanitise.ts', 'the HTML sanitiser'],
  [/function csvField\b/, 'labs/core/src/sanitise.ts', 'the CSV sanitiser'],
  [/function caseLabel\b/, 'labs/core/src/case-identity.ts', 'caseLabel'],
  [/Cpus_allowed_list:/, 'labs/harness/src/machine/cpus.ts', 'the CPU affinity parser'],
  [/\bcpu\.max\b'|'cpu\.max'|cfs_quota_us'/, 'labs/harness/src/machine/cpus.ts', 'the cgroup quota reader'],
  [/function amdahlSpeedup\b/, 'labs/core/src/statistics/scaling.ts', "Amdahl's law"],
  [/return readFileSync\(\w+, 'utf8'\);\s*\}\s*catch\s*\{\s*return null;/, 'labs/harness/src/machine/cpus.ts', 'the system file reader (readSystemFile)'],
  [/0x6d2b79f5/i, 'labs/core/src/statistics/rng.ts', "the seeded generator (createRng, mulberry32's increment)"],
];

test('the formatter, the sanitisers, caseLabel, the quota reader, the affinity parser, Amdahl, the system file reader and the seeded generator each have one home', () => {
  const files = sources().map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));
  for (const [pattern, home, what] of HOMES) {
    const found = files.filter((f) => pattern.test(f.text)).map((f) => f.file.split(path.sep).join('/'));
    assert.deepEqual(found, [home], `${what}: defined in ${found.join(', ') || 'no file'}; its one home is ${home}`);
  }
});

/**
 * One formatter family (core/format.ts) for every printed number and interval: the reports, the site, the labs'
 * analyses and charts, and also the CLI's progress lines, the error messages and the benchmarks beside the labs, since
 * a reader sees those too. So the number-to-text calls (toFixed, toPrecision, toExponential, toLocaleString) are
 * counted in every source file the scan reads (tests aside).
 */
/** A local number formatter: `fmt...`, `fixed2`, `percent`, or a second `formatBytes`/`formatDuration`. */
const LOCAL_FORMATTER = /\b(?:function|const|let)\s+(fmt\w*|fixed\d+|percent|formatBytes|formatDuration)\b/g;

/**
 * A number turned into text by hand: toFixed, toPrecision, toExponential, toLocaleString, or a percentage rounded
 * inline (`${Math.round(x * 100)}%`, formatPercent's rule).
 */
const NUMBER_TO_TEXT = /\.(?:toFixed|toPrecision|toExponential|toLocaleString)\(|Math\.round\((?:100 \* [^)]*|[^)]* \* 100)\)\}\s?%/g;

/** Local formatters still outside core/format.ts, with why. The list can only shrink: move one, then delete it here. */
const LOCAL_FORMATTERS_LEFT: Record<string, string> = {};

/**
 * Number-to-text calls left outside core/format.ts, per file, with why (toPrecision switches to exponent notation for
 * large values: 12345..toPrecision(3) is "1.23e+4"; toLocaleString follows the machine's locale unless told). The
 * counts can only go down: a new call or file fails.
 */
const TO_FIXED_LEFT: Record<string, number> = {
  // A file other work held in session 18 (issue 42: the triad).
  'labs/native-kernel/src/triad.ts': 2,
  // The walk-through's program learners profile (episode 04): it imports nothing, so its profile shows only its own
  // functions at the line numbers the episode quotes.
  'labs/harness/examples/log-summary.ts': 1,
  // The schema is the core's ground floor: it imports zod and nothing of the core (format.ts imports its types).
  'labs/core/src/results-schema.ts': 1,
};

/** The local formatters and the number-to-text calls per file of the given files (paths with '/'). */
export function formatterUses(files: { file: string; text: string }[]): { formatters: string[]; toFixed: Record<string, number> } {
  const formatters: string[] = [];
  const toFixed: Record<string, number> = {};
  for (const { file, text } of files) {
    if (file === 'labs/core/src/format.ts') continue;
    for (const m of text.matchAll(LOCAL_FORMATTER)) formatters.push(`${file}: ${m[1]}`);
    const count = (text.match(NUMBER_TO_TEXT) ?? []).length;
    if (count > 0) toFixed[file] = count;
  }
  return { formatters: [...new Set(formatters)].sort(), toFixed };
}

test('the formatter check finds a local fmt, fixed2, percent or second formatBytes, and toFixed, toPrecision, toExponential or toLocaleString anywhere but core/format.ts', () => {
  const found = formatterUses([
    { file: 'labs/harness/src/report/x.ts', text: 'const fmt = (v: number) => v.toFixed(1);\nfunction percent(a: number) { return `${a.toFixed(1)}%`; }' },
    { file: 'labs/some-lab/src/analysis.ts', text: 'function fixed2(x: number) { return x.toFixed(2); }' },
    { file: 'labs/harness/src/plan/plan.ts', text: 'export function formatBytes(b: number) { return b.toFixed(0); }' },
    { file: 'labs/core/src/format.ts', text: 'export function formatBytes(b: number) { return b.toFixed(1); }' },
    { file: 'labs/some-lab/bench/peer.ts', text: 'console.log(`${x.toFixed(1)} GB/s`);' },
    { file: 'site/src/x.ts', text: 'const s = `${rate.toPrecision(3)}/s`;' },
    { file: 'labs/some-lab/src/tolerance.ts', text: 'const d = `<= ${tol.toExponential(2)} for ${n.toLocaleString("en-US")} entries`;' },
    { file: 'site/src/y.ts', text: 'const a = `${Math.round(f * 100)}%`, b = `${Math.round(100 * s / w)} %`, c = Math.round(x * 100);' },
  ]);
  assert.deepEqual(found.formatters, ['labs/harness/src/plan/plan.ts: formatBytes', 'labs/harness/src/report/x.ts: fmt', 'labs/harness/src/report/x.ts: percent', 'labs/some-lab/src/analysis.ts: fixed2']);
  assert.deepEqual(found.toFixed, { 'labs/harness/src/report/x.ts': 2, 'labs/some-lab/src/analysis.ts': 1, 'labs/harness/src/plan/plan.ts': 1, 'labs/some-lab/bench/peer.ts': 1, 'site/src/x.ts': 1, 'labs/some-lab/src/tolerance.ts': 2, 'site/src/y.ts': 2 });
});

test('no new local number formatter and no new toFixed, toPrecision, toExponential or toLocaleString: core/format.ts is their one home', () => {
  const { formatters, toFixed } = formatterUses(sources().map((file) => ({ file: file.split(path.sep).join('/'), text: readFileSync(path.join(ROOT, file), 'utf8') })));
  const fix = 'print numbers and intervals with labs/core/src/format.ts (formatSignificant, formatOrNA, formatTime, formatRatio, formatBracketInterval, formatFixed, formatSeconds, formatShare, formatScientific, formatCount, formatBytes, formatDuration...)';
  assert.deepEqual(formatters.filter((f) => !(f in LOCAL_FORMATTERS_LEFT)), [], `a local number formatter: ${fix}`);
  assert.deepEqual(Object.keys(LOCAL_FORMATTERS_LEFT).filter((f) => !formatters.includes(f)), [], 'these local formatters are gone: delete them from LOCAL_FORMATTERS_LEFT');
  const grown = Object.entries(toFixed).filter(([file, n]) => n > (TO_FIXED_LEFT[file] ?? 0)).map(([file, n]) => `${file}: ${n} (allowed ${TO_FIXED_LEFT[file] ?? 0})`);
  assert.deepEqual(grown, [], `toFixed, toPrecision, toExponential or toLocaleString outside core/format.ts: ${fix}`);
  const shrunk = Object.entries(TO_FIXED_LEFT).filter(([file, n]) => (toFixed[file] ?? 0) < n).map(([file]) => `${file}: now ${toFixed[file] ?? 0}`);
  assert.deepEqual(shrunk, [], 'fewer number-to-text calls than TO_FIXED_LEFT says: lower (or delete) these entries');
});
