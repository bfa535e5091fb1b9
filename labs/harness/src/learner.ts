/**
 * `@parallel-course/harness/learner.ts`: the harness as the learner's code sees it, and the threads and processes a lab
 * starts to run that code (event-loop's server, task-granularity's process workers, gpu-batching's device processes).
 * - `notImplemented`: the exercises' one marker, a kind "not implemented: ..." failure of the check; `HarnessError`;
 * - `importLearnerModule`: loading a learner file and checking its exports;
 * - the child-process helpers (`startChild`, `exitWithParent`, `leaveParent`, `runScriptSync`).
 * Why an entry of its own: each such thread or process is a fresh isolate that loads what it imports. This entry loads
 * four small files and never the core (zod, the statistics) nor the labs' API (`.`): in a fresh worker thread on the
 * 2-vCPU VM this entry loaded in about 70 ms, the labs' API in about 260 (docs/architecture.md, "The harness's face");
 * public-entry.test.ts keeps it so.
 */
export { HarnessError, isNotImplemented, notImplemented, NotImplementedError } from './lab-definition.ts';
export * from './learner-module.ts';
export * from './child-process.ts';
