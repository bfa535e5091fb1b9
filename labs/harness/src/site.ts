/**
 * `@parallel-course/harness/site.ts`: what the course site reads at build time (Astro frontmatter, site/src/lib, its
 * Node tests): the committed run folders and their values, an episode's `<Measured>` numbers, a file read with a size
 * cap, the lab list, and a bounded script run (`PlannedTimes.astro`'s planned times). Node only: no page script
 * imports the harness (site/test/viewer-runs.test.ts).
 * Why an entry of its own: the run folders' checks load the validator and the tools (tools/run-folders.ts), which the
 * labs' API (`.`) must not load into every runner.
 */
export { checkRunFolder, findRunFolders, findValuesFile, type CheckedRun } from './tools/run-folders.ts';
export { describeSelector, formatMeasured, MeasuredSelectorError, resolveMeasured, type MeasuredSelector, type Resolved } from './analyse/measured.ts';
export { readTextFileSafely } from './write/safe-read.ts';
export { labNames } from './lab-registry.ts';
export { runScriptSync } from './child-process.ts';
