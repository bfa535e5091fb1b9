/**
 * The files the learner writes for this lab (exercises/native-kernel, mirrored by solutions/): a C++ kernel, compiled
 * into the addon at install (scripts/build-addon.mjs) rather than imported, so it declares no JavaScript exports.
 */
import type { LearnerFile } from '@parallel-course/harness/learner-module.ts';

export const KERNEL: LearnerFile = { file: 'kernel.cc', exports: [] };
export const LEARNER_FILES: LearnerFile[] = [KERNEL];
