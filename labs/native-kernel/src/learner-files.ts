/**
 * The files the learner writes for this lab (exercises/native-kernel, mirrored by solutions/): two C++ files,
 * compiled into the addon at install (scripts/build-addon.mjs, binding.gyp) rather than imported, so they declare
 * no JavaScript exports. kernel.cc: the loop of the native-O0/O3/march rungs; blocked.cc: the block sizes and loop
 * nest of the native-blocked rungs, over the given parts in native/blocked-parts.h.
 */
import type { LearnerFile } from '@parallel-course/harness';

export const KERNEL: LearnerFile = { file: 'kernel.cc', exports: [] };
export const BLOCKED: LearnerFile = { file: 'blocked.cc', exports: [] };
export const LEARNER_FILES: LearnerFile[] = [KERNEL, BLOCKED];
