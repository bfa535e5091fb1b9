/** The files the learner writes for this lab (exercises/gpu-batching, mirrored by solutions/) and their exports. */
import type { LearnerFile } from '@parallel-course/harness/learner.ts';

export const LEARNER_FILES: LearnerFile[] = [
  { file: 'batching.ts', exports: ['inferInBatches', 'inferWithSessions'] },
  { file: 'pipeline.ts', exports: ['inferPipelined'] },
  { file: 'chunks.ts', exports: ['chunkRanges'] },
];
