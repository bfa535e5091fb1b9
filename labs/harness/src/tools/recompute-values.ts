/**
 * A run's analysis values recomputed from its validated results by this version of the lab's own analysis, so a
 * values.json in someone else's folder (an instructor's COURSE_RUNS, a learner's submission) is never rendered on
 * trust: results.json's numbers are recomputed from its samples (validate.ts), and values.json's from results.json here.
 *
 * The labs' analyses are async and some load a native chart renderer, while the site reads its runs synchronously
 * while it renders; so the recomputation runs in a child process (`node recompute-values.ts <run folder>`, which
 * prints the values as JSON; started by child-process.ts's runScriptSync), bounded in time, and the comparison stays a
 * pure function.
 */
import path from 'node:path';
import { buildAnalysisValues, parseAnalysisValues, type AnalysisValues, type MeasuredValue } from '@parallel-course/core';
import { runScriptSync } from '../child-process.ts';
import { runLabAnalysis } from '../analyse/lab-analysis.ts';
import { ROOT_DIR } from '../lab-registry.ts';
import { readResults } from '../write/results-reader.ts';

/** How long one recomputation may take: a lab's analysis takes 1-3 s; a hung one must not stop a site build. */
const RECOMPUTE_TIMEOUT_MS = 60_000;
/** Two recomputed numbers agree when they differ by less than this, relatively (the analyses are deterministic). */
const RELATIVE_TOLERANCE = 1e-9;

/** This file, from the repository root (not import.meta.url: the site's build bundles this module elsewhere). */
const SCRIPT = 'labs/harness/src/tools/recompute-values.ts';

/**
 * The run's values as this version of its lab's analysis computes them, in this process. The results are read with
 * the schema only: the callers have validated them in full already (checkRunFolder; the reference runs' test), and
 * doing that again here would recompute every number a second time.
 */
export async function recomputeValues(runDir: string, rootDir = ROOT_DIR): Promise<AnalysisValues> {
  const { results } = readResults(runDir);
  return buildAnalysisValues(results, await runLabAnalysis(results, rootDir));
}

/** recomputeValues in a child process (see the file's comment); throws with the child's message when it fails. */
export function recomputeValuesInChild(runDir: string, rootDir = ROOT_DIR, timeoutMs = RECOMPUTE_TIMEOUT_MS): AnalysisValues {
  const child = runScriptSync({ script: path.join(rootDir, SCRIPT), args: [runDir, rootDir], timeoutMs });
  if (child.timedOut) throw new Error(`the lab's analysis did not finish within ${timeoutMs / 1000} s`);
  if (child.exitCode !== 0) {
    const last = child.stderrTail.trim().split('\n').filter(Boolean).at(-1) ?? (child.signal ? `killed by ${child.signal}` : 'no message');
    throw new Error(`the lab's analysis failed: ${last.slice(0, 300)}`);
  }
  return parseAnalysisValues(JSON.parse(child.stdout), 'the recomputed analysis values');
}

function sameNumber(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

function sameMeasured(a: MeasuredValue, b: MeasuredValue): boolean {
  const sameInterval = (a.ci95 ?? null) === null ? (b.ci95 ?? null) === null : b.ci95 != null && sameNumber(a.ci95![0], b.ci95[0]) && sameNumber(a.ci95![1], b.ci95[1]);
  return sameNumber(a.value, b.value) && a.unit === b.unit && sameInterval;
}

function shown(v: MeasuredValue): string {
  return `${v.value}${v.unit === '' ? '' : ` ${v.unit}`}${v.ci95 ? ` [${v.ci95[0]}, ${v.ci95[1]}]` : ''}`;
}

/**
 * Where a values file contradicts its recomputation: each value both have with a different number, unit or interval,
 * and each table of the same shape with a different cell; at most `limit` lines, empty when none. A value or table only
 * one side has is not a contradiction but a version difference (an older or newer analysis), and the recomputed values
 * are the ones shown. Pure.
 */
export function valuesContradictions(inFile: AnalysisValues, recomputed: AnalysisValues, limit = 5): string[] {
  const found: string[] = [];
  for (const [key, a] of Object.entries(inFile.values)) {
    const b = recomputed.values[key];
    if (b !== undefined && !sameMeasured(a, b)) found.push(`value "${key}" is ${shown(a)}, the analysis gives ${shown(b)}`);
  }
  for (const [key, a] of Object.entries(inFile.tables)) {
    const b = recomputed.tables[key];
    if (b === undefined || a.rows.length !== b.rows.length || a.columns.join('\0') !== b.columns.join('\0')) continue;
    const differs = (x: string | MeasuredValue | undefined, y: string | MeasuredValue | undefined) =>
      typeof x === 'object' && typeof y === 'object' ? !sameMeasured(x, y) : x !== y;
    const row = a.rows.findIndex((cells, r) => cells.some((cell, c) => differs(cell, b.rows[r]![c])));
    if (row >= 0) found.push(`table "${key}" row ${row + 1} differs from the analysis`);
  }
  return found.slice(0, limit);
}

if (import.meta.main) {
  const runDir = process.argv[2];
  if (runDir === undefined) {
    process.stderr.write('usage: node recompute-values.ts <run folder>\n');
    process.exit(2);
  }
  try {
    process.stdout.write(`${JSON.stringify(await recomputeValues(runDir, process.argv[3] ?? ROOT_DIR))}\n`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message.split('\n')[0]}\n`);
    process.exit(1);
  }
}
