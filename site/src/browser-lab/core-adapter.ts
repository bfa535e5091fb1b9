/**
 * Every import the in-page labs take from the course's statistics, results schema and validator, in one place.
 * They come from the harness's browser-safe modules (no node: imports) by deep path today; when the browser-safe core
 * package (labs/core, issue 24) lands, these lines are the only ones to repoint.
 */
export {
  analyze,
  caseLabel,
  median,
  paramsKey,
  parseResults,
  quantile,
  SCHEMA_VERSION,
  sorted,
  validateSubmission,
  type AnalysisInput,
  type BrowserEnvironment,
  type Params,
  type Results,
  type SampleUnit,
  type Sweep,
} from '@parallel-course/core';
