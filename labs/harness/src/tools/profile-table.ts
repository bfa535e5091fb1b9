/**
 * The text `npm run profile` prints: a header line and two tables (top functions by self time and by total time).
 * Pure: the summary and the folder to show paths relative to come in, a string goes out.
 */
import { formatFixed, formatShare } from '@parallel-course/core';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { topBySelf, topByTotal, type FunctionTime, type ProfileSummary } from './profile-analysis.ts';

/** Longer function names are cut to this many characters, so a row fits a terminal. */
const NAME_WIDTH = 28;

/**
 * Where a function lives, as `file:line`: file:// URLs relative to `baseDir` when inside it, `node:` modules as
 * they are, and `-` for frames with no source (`(program)`, `(garbage collector)`, native code).
 */
export function formatLocation(fn: Pick<FunctionTime, 'url' | 'line'>, baseDir: string): string {
  if (fn.url === '') return '-';
  let file = fn.url;
  if (file.startsWith('file://')) {
    const absolute = fileURLToPath(file);
    const relative = path.relative(baseDir, absolute);
    file = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
  }
  return fn.line === null ? file : `${file}:${fn.line}`;
}

function displayName(name: string): string {
  const shown = name === '' ? '(anonymous)' : name;
  return shown.length > NAME_WIDTH ? `${shown.slice(0, NAME_WIDTH - 1)}…` : shown;
}

function table(title: string, rows: FunctionTime[], pick: (f: FunctionTime) => number, unit: string, summary: ProfileSummary, baseDir: string): string[] {
  const lines = [title, `${unit.padStart(9)}  ${'%'.padStart(6)}  ${'function'.padEnd(NAME_WIDTH)}  where`];
  for (const fn of rows) {
    lines.push(
      `${formatFixed(pick(fn), 1).padStart(9)}  ${formatShare(pick(fn), summary.sampledMs).padStart(6)}  ${displayName(fn.functionName).padEnd(NAME_WIDTH)}  ${formatLocation(fn, baseDir)}`,
    );
  }
  return lines;
}

/** The whole report for the `top` functions of each table; paths are shown relative to `baseDir`. */
export function formatProfileReport(summary: ProfileSummary, top: number, baseDir: string): string {
  const header = `${formatFixed(summary.sampledMs, 1)} ms sampled in ${summary.sampleCount} samples` +
    ` (idle ${formatFixed(summary.idleMs, 1)} ms); % of the sampled time`;
  return [
    header,
    '',
    ...table(`Top ${top} by self time (the function itself was running)`, topBySelf(summary, top), (f) => f.selfMs, 'self ms', summary, baseDir),
    '',
    ...table(`Top ${top} by total time (the function or its callees)`, topByTotal(summary, top), (f) => f.totalMs, 'total ms', summary, baseDir),
  ].join('\n');
}
