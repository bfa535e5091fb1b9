/**
 * The course's core: the one public entry of `@parallel-course/core`. Everything here is pure and has no node:
 * imports, so the harness (Node), the site's build, a browser page and a Web Worker all run the same code:
 *
 *   statistics.ts       the statistics stage (summaries, intervals, speedup, efficiency, Karp-Flatt, Amdahl)
 *   results-schema.ts   the schema of results.json (zod) and the one upgrade step from older versions
 */
export * from './statistics.ts';
export * from './results-schema.ts';
export * from './case-identity.ts';
export * from './format.ts';
export * from './sanitise.ts';
export * from './analysis.ts';
export * from './grade.ts';
export * from './validate.ts';
export * from './upgrade.ts';
export * from './sweeps.ts';
export * from './plausibility.ts';
