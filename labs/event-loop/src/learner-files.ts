/** The files the learner writes for this lab (exercises/event-loop, mirrored by solutions/event-loop) and their exports. */
import type { LearnerFile } from '@parallel-course/harness/learner.ts';

export const HANDLERS: LearnerFile = { file: 'handlers.ts', exports: ['createChunkedHandler', 'createThreadpoolHandler', 'createPoolHandler'] };
/** Loaded by piscina in each pool thread: its default export derives one ring. */
export const WORKER: LearnerFile = { file: 'worker.ts', exports: ['default'] };
export const LEARNER_FILES: LearnerFile[] = [HANDLERS, WORKER];
