/**
 * The course's core: the one public entry of `@parallel-course/core`. Everything here is pure and has no node:
 * imports, so the harness (Node), the site's build, a browser page and a Web Worker all run the same code.
 * Its files stand on floors, each importing only from the floors below (labs/harness/test/import-cycles.test.ts
 * fails on any circle):
 *
 *   1  results-schema.ts   the schema of results.json (zod) and its types
 *      case-identity.ts    a case's key and label;  statistics.ts (statistics/): pure functions of samples
 *   2  case-baselines.ts   which case a speedup or an efficiency is over
 *      upgrade.ts          the upgrade steps 2 -> 3 -> 4;  read-results.ts: parse, upgrade, validate
 *   3  analysis.ts         samples -> summaries, speedups, efficiency, Amdahl fits (stage 3 of a run)
 *   4  grade.ts            a `--grade` run's ratios against the solution
 *   5  build-results.ts    analyzeRun + buildResults: the one way to make a results object (harness and browser)
 *      validate.ts         recomputes a file's numbers from its samples
 *   6  compare-runs.ts     one run against an earlier one (--compare, the viewer), over validate.ts
 *   beside: analysis-values.ts, the schema of a lab analysis's values.json (read by the site's pages)
 *   beside: format.ts, phrases.ts, sanitise.ts, sweeps.ts, plausibility.ts (numbers, shared sentences, escaping,
 *           charts' data, sanity bounds)
 */
export * from './statistics.ts';
export * from './results-schema.ts';
export * from './read-results.ts';
export * from './case-identity.ts';
export * from './case-baselines.ts';
export * from './format.ts';
export * from './phrases.ts';
export * from './sanitise.ts';
export * from './analysis.ts';
export * from './grade.ts';
export * from './build-results.ts';
export * from './validate.ts';
export * from './compare-runs.ts';
export * from './analysis-values.ts';
export * from './upgrade.ts';
export * from './sweeps.ts';
export * from './plausibility.ts';
