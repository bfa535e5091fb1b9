/**
 * The derived values of a lab's analysis, as data: `analysis/values.json`, written beside analysis.md for every run
 * (the harness's lab-analysis.ts: writeAnalysis) and read by the course site, which renders every measured number an episode shows
 * from it (`<Measured run="<lab>" at="value" name="<key>" />`) and every table (`<MeasuredTable>`), issue 20.
 *
 * Keys are camelCase and stable (episodes name them): e.g. `perTaskOverheadUs`, `blockedOverMarch512`. A value is a
 * plain number in the unit it names; its interval, where it has one, is in the same unit.
 * Pure: no node: imports, so the site's build and the browser can use the same schema.
 */
import { z } from 'zod';
import { jsonErrorWithoutContent } from './read-results.ts';

export const ANALYSIS_VALUES_VERSION = 1;
export const VALUES_FILE = 'values.json';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const interval = z.tuple([finite, finite]).refine(([low, high]) => low <= high, 'interval low must be <= high');
/** camelCase keys that an episode can name: a letter, then letters and digits. */
const keySchema = z.string().regex(/^[a-z][A-Za-z0-9]*$/, 'keys are camelCase: a lower-case letter, then letters and digits').max(80);

export const measuredValueSchema = z.object({
  value: finite,
  /** 'ms' | 'µs' | 'ns' | 's' | 'x' | 'GFLOP/s' | 'GB/s' | 'MiB' | '%' | 'req/s' | '' (a plain count or ratio) ... */
  unit: z.string().max(20),
  /** The 95 % interval in the value's unit, where it has one. */
  ci95: interval.nullable().optional(),
  /** One line: what it is, e.g. "per-task cost of the pool, from the fit of time against task count". */
  what: z.string().min(1).max(300),
});

export const analysisTableSchema = z.object({
  caption: z.string().max(300),
  columns: z.array(z.string().max(100)).min(1).max(30),
  rows: z.array(z.array(z.union([z.string().max(300), measuredValueSchema])).max(30)).max(500),
});

export const analysisValuesSchema = z
  .object({
    schemaVersion: z.literal(ANALYSIS_VALUES_VERSION),
    lab: z.string().regex(/^[a-z0-9-]+$/),
    /** The run's startedAt (results.json), so a values file cannot be mistaken for another run's. */
    startedAt: z.iso.datetime(),
    values: z.record(keySchema, measuredValueSchema),
    tables: z.record(keySchema, analysisTableSchema),
  })
  .superRefine((data, ctx) => {
    for (const [key, table] of Object.entries(data.tables)) {
      table.rows.forEach((row, i) => {
        if (row.length !== table.columns.length) {
          ctx.addIssue({ code: 'custom', path: ['tables', key, 'rows', i], message: `has ${row.length} cells but the table has ${table.columns.length} columns` });
        }
      });
    }
  });

export type MeasuredValue = z.infer<typeof measuredValueSchema>;
export type AnalysisTable = z.infer<typeof analysisTableSchema>;
export type AnalysisValues = z.infer<typeof analysisValuesSchema>;

/** Thrown when a values.json does not match the schema; the message lists each problem with its path. */
export class AnalysisValuesError extends Error {
  readonly code = 'VALUES_INVALID';
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`${source} is not a valid analysis values file:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'AnalysisValuesError';
    this.problems = problems;
  }
}

/** Validates parsed JSON as analysis values; throws AnalysisValuesError naming every problem. */
export function parseAnalysisValues(data: unknown, source = 'values.json'): AnalysisValues {
  const parsed = analysisValuesSchema.safeParse(data);
  if (!parsed.success) {
    throw new AnalysisValuesError(
      source,
      parsed.error.issues
        .slice(0, 20)
        .map((i) => `${i.path.join('.') || '(top level)'}: ${i.code === 'invalid_key' ? `${i.message}: keys are camelCase (a lower-case letter, then letters and digits)` : i.message}`),
    );
  }
  return parsed.data;
}

/** Parses JSON text and validates it; a syntax error becomes an AnalysisValuesError too. */
export function parseAnalysisValuesJson(text: string, source = 'values.json'): AnalysisValues {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new AnalysisValuesError(source, [`not JSON: ${jsonErrorWithoutContent(error)}`]);
  }
  return parseAnalysisValues(data, source);
}

/** The values file for a run: the lab's values and tables (empty when it gives none), validated. */
export function buildAnalysisValues(
  run: { lab: string; startedAt: string },
  analysis: { values?: Record<string, MeasuredValue>; tables?: Record<string, AnalysisTable> } | null,
): AnalysisValues {
  return parseAnalysisValues(
    {
      schemaVersion: ANALYSIS_VALUES_VERSION,
      lab: run.lab,
      startedAt: run.startedAt,
      values: analysis?.values ?? {},
      tables: analysis?.tables ?? {},
    },
    `the ${run.lab} lab's analysis values`,
  );
}
