/** The check stage's verdicts as the terminal shows them, with the fix for each failure (runLab and checkLab print it). */
import { caseLabel, type CorrectnessEntry, formatScientific } from '@parallel-course/core';
import type { Impl } from '../lab-definition.ts';
import { mismatchHint } from './mismatch-hint.ts';

export function formatCheckReport(entries: CorrectnessEntry[], lab: string, impl: Impl): string {
  const lines = ['Correctness check (every case against its expected output, before any timing):'];
  for (const e of entries) {
    const label = caseLabel(e);
    if (e.passed) {
      const err = e.maxAbsError !== null ? `, max abs error ${formatScientific(e.maxAbsError)}` : '';
      lines.push(`  ok    ${label} (${e.inputsChecked} inputs, ${e.comparator}${err})`);
    } else {
      lines.push(`  ${e.notImplemented ? 'TODO ' : 'FAIL '} ${label}: ${e.reason}`);
      const hint = e.notImplemented ? null : mismatchHint(e);
      if (hint !== null) lines.push(`        ${hint}`);
    }
  }
  if (entries.some((e) => e.notImplemented)) {
    lines.push(
      `Some variants are not implemented yet: write them in ${impl === 'exercise' ? `exercises/${lab}` : `solutions/${lab}`} ` +
        `(look for TODO(learner)), or run the solution with --impl solution.`,
    );
  }
  return lines.join('\n');
}
