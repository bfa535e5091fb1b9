/** The file the learner writes for this lab (exercises/task-graph, mirrored by solutions/) and its exports. */
import type { LearnerFile } from '@parallel-course/harness';

export const GRAPH: LearnerFile = { file: 'graph.ts', exports: ['flatProduct', 'treeProduct'] };
export const LEARNER_FILES: LearnerFile[] = [GRAPH];
