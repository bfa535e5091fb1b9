/**
 * Every import the in-page labs take from the course's core (@parallel-course/core: statistics, the results schema,
 * buildResults, the validator), in one place, so what the page's labs depend on is one list.
 */
export {
  analyze,
  analyzeRun,
  buildResults,
  caseLabel,
  createRng,
  formatShare,
  formatSignificant,
  median,
  paramsKey,
  parseResults,
  quantile,
  sameCase,
  samplesToResolve,
  SCHEMA_VERSION,
  sorted,
  validateSubmission,
  type AnalysisInput,
  type BrowserEnvironment,
  type Params,
  type RawObservation,
  type Results,
  type SampleUnit,
  type Sweep,
} from '@parallel-course/core';
