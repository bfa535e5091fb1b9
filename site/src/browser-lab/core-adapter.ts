/**
 * Every import the in-page labs take from the course's statistics, results schema and validator, in one place.
 * They come from the harness's browser-safe modules (no node: imports) by deep path today; when the browser-safe core
 * package (labs/core, issue 24) lands, these lines are the only ones to repoint.
 */
export { analyze, type AnalysisInput } from '@parallel-course/harness/analysis.ts';
export { SCHEMA_VERSION, parseResults, type BrowserEnvironment, type Params, type Results } from '@parallel-course/harness/results-schema.ts';
export { validateSubmission } from '@parallel-course/harness/tools/validate-core.ts';
export { median, quantile, sorted } from '@parallel-course/harness/statistics.ts';
export { caseLabel, paramsKey } from '@parallel-course/harness/lab-definition.ts';
