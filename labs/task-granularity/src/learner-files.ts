/** The files the learner writes for this lab (exercises/task-granularity, mirrored by solutions/) and their exports. */
import type { LearnerFile } from '@parallel-course/harness';

export const SCHEDULE: LearnerFile = { file: 'schedule.ts', exports: ['runInChunks'] };
/** Loaded by piscina in each tally thread: its default export adds a chunk into the shared histogram. */
export const TALLY_WORKER: LearnerFile = { file: 'tally-worker.ts', exports: ['default'] };
export const TRANSPORT: LearnerFile = { file: 'transport.ts', exports: ['stage', 'transferList'] };
export const LEARNER_FILES: LearnerFile[] = [SCHEDULE, TALLY_WORKER, TRANSPORT];
