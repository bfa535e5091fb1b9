/**
 * Each cross-cutting helper has one home (issue 24): the number formatter and the sanitisers in the core, the cgroup
 * quota reader and the CPU affinity parser in the harness's cpus.ts. A second definition anywhere in the tree fails.
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
  [/Cpus_allowed_list:/, 'labs/harness/src/cpus.ts', 'the CPU affinity parser'],
  [/\bcpu\.max\b'|'cpu\.max'|cfs_quota_us'/, 'labs/harness/src/cpus.ts', 'the cgroup quota reader'],
  [/function amdahlSpeedup\b/, 'labs/core/src/statistics/scaling.ts', "Amdahl's law"],
];

test('the formatter, the sanitisers, caseLabel, the quota reader, the affinity parser and Amdahl each have one home', () => {
  const files = sources().map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));
  for (const [pattern, home, what] of HOMES) {
    const found = files.filter((f) => pattern.test(f.text)).map((f) => f.file.split(path.sep).join('/'));
    assert.deepEqual(found, [home], `${what}: defined in ${found.join(', ') || 'no file'}; its one home is ${home}`);
  }
});
