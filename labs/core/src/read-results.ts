/**
 * Reading a results file, one step after the other: parse the JSON, upgrade a version 2, 3 or 4 file (upgrade.ts), validate
 * against the schema (results-schema.ts). Input: text or parsed JSON; output: `Results`, or a ResultsFileError naming
 * every problem. The schema below knows nothing of older versions; the upgrade knows nothing of validation.
 */
import { resultsSchema, SCHEMA_VERSION, type Results } from './results-schema.ts';
import { OLDEST_UPGRADABLE_VERSION, upgradeResults, type LabDeclarations } from './upgrade.ts';

/** Thrown when a results file does not match the schema; the message lists each problem with its path. */
export class ResultsFileError extends Error {
  readonly code = 'RESULTS_INVALID';
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`${source} is not a valid results file:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ResultsFileError';
    this.problems = problems;
  }
}

/**
 * Validates parsed JSON as results; throws ResultsFileError naming every problem. A version 2, 3 or 4 file is upgraded first
 * (upgrade.ts), with the lab's declarations where the caller has them; older or unknown versions are refused.
 */
export function parseResults(data: unknown, source = 'results', declared?: LabDeclarations): Results {
  const version = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as { schemaVersion?: unknown }).schemaVersion : undefined;
  if (typeof version === 'number' && version >= OLDEST_UPGRADABLE_VERSION && version < SCHEMA_VERSION) {
    data = upgradeResults(data as Record<string, unknown>, declared);
  }
  if (typeof data === 'object' && data !== null && 'schemaVersion' in data && data.schemaVersion !== SCHEMA_VERSION) {
    const older = typeof data.schemaVersion === 'number' && data.schemaVersion < SCHEMA_VERSION;
    throw new ResultsFileError(source, [
      older
        ? `recorded with an older harness (schema version ${data.schemaVersion}; this one reads version ${SCHEMA_VERSION}): ` +
          'its numbers cannot be checked with the current methods. Rerun the lab with this version of the course'
        : `schemaVersion is ${JSON.stringify(data.schemaVersion)}, this tool reads version ${SCHEMA_VERSION}: ` +
          're-run the lab with this version of the course, or update the course to read it',
    ]);
  }
  const parsed = resultsSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 20).map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new ResultsFileError(source, problems);
  }
  return parsed.data;
}

/**
 * A JSON syntax error without the excerpt V8 quotes from the text (`Unexpected token 'r', "root:x:0:0"... is not
 * valid JSON`): a file handed in may be anything, and its bytes must not reach a page or a terminal. Keeps the position.
 */
export function jsonErrorWithoutContent(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // V8's messages that quote nothing ("Expected ',' or '}' after property value in JSON at position 19") stay as they are.
  if (!/["`]|token '/.test(message)) return message;
  const position = /position (\d+)/.exec(message)?.[1];
  const line = /line (\d+) column (\d+)/.exec(message);
  const where = line ? ` at line ${line[1]} column ${line[2]}` : position !== undefined ? ` at character ${position}` : '';
  return /Unexpected end/.test(message) ? `the text ends too early${where}` : `a syntax error${where}`;
}

/** Parses JSON text, upgrades and validates it; a syntax error becomes a ResultsFileError too. */
export function parseResultsJson(text: string, source = 'results', declared?: LabDeclarations): Results {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ResultsFileError(source, [`not JSON: ${jsonErrorWithoutContent(error)}`]);
  }
  return parseResults(data, source, declared);
}
