/**
 * The build check of issue 20 as an mdast plugin of the site's MDX pipeline (Astro 7 compiles MDX with Sätteri,
 * whose plugins replace remark's: astro.config.mjs adds this one to `markdown.processor`). For every episode it finds
 * the hand-typed measurements (number-check.ts) and, by the mode of that file, fails the build naming the file, the
 * line and the text with the fix (strict), prints one summary line (warn), or does nothing (off).
 *
 * The mode: COURSE_NUMBER_CHECK=strict|warn|off when set, else site/number-check.json's `mode`, for every episode.
 * Warnings never contain "[WARN]", so the checked build (scripts/build-checked.ts) does not fail on them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeFindings, findHandTypedMeasurements, modeFor, type MdNode, type NumberCheckConfig } from './number-check.ts';

/** site/number-check.json, read on every build. */
function numberCheckConfig(siteDir: string): NumberCheckConfig {
  const file = path.join(siteDir, 'number-check.json');
  const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<NumberCheckConfig>;
  const mode = data.mode ?? 'warn';
  if (mode !== 'strict' && mode !== 'warn' && mode !== 'off') throw new Error(`${file}: "mode" must be "strict", "warn" or "off", not ${JSON.stringify(mode)}`);
  return { mode };
}

/** Thrown by the build for an episode with hand-typed measurements in strict mode. */
export class HandTypedMeasurementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandTypedMeasurementError';
  }
}

/** The plugin; `siteDir` holds number-check.json. */
export function numberCheckPlugin(siteDir: string) {
  return {
    name: 'course-number-check',
    options: { position: true },
    before(root: unknown, ctx: { fileURL: URL | undefined }) {
      if (!ctx.fileURL) return;
      const file = fileURLToPath(ctx.fileURL);
      if (!file.endsWith('.mdx') && !file.endsWith('.md')) return;
      const mode = modeFor(numberCheckConfig(siteDir));
      if (mode === 'off') return;
      const findings = findHandTypedMeasurements(root as MdNode);
      if (findings.length === 0) return;
      const shown = path.relative(path.resolve(siteDir, '..'), file).startsWith('..') ? file : path.relative(path.resolve(siteDir, '..'), file);
      if (mode === 'strict') throw new HandTypedMeasurementError(describeFindings(shown, findings));
      console.log(`number check (not yet strict): ${shown}: ${findings.length} hand-typed measurement${findings.length === 1 ? '' : 's'}, first "${findings[0]!.text}" at line ${findings[0]!.line}; COURSE_NUMBER_CHECK=strict lists them`);
    },
  };
}
