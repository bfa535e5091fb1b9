/** The harness's public API, for labs and tests. */
export { runLab, type RunLabOptions, type RunLabOutcome } from './run/run-lab.ts';
export * from './lab-definition.ts';
export { exactStrings, withinTolerance } from './comparators.ts';
export { labNames, loadLab, ROOT_DIR } from './lab-registry.ts';
