import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
// A plain-JavaScript install script (it must run on whichever node npm starts); types in build-addon.d.mts.
import { buildIsCurrent, chosenTargets, cpuIdentity, failureHeadline, fixFor, GROUPS } from '../scripts/build-addon.mjs';
import { buildCopyRoot } from './support/build-copy.ts';

test('failureHeadline picks the compiler error out of make and node-gyp noise, with a repository-relative path', () => {
  const output = [
    'make: Entering directory \'/repo/labs/native-kernel/build\'',
    '  CXX(target) Release/obj.target/exercise_O0/native/kernel-exercise.o',
    "../native/../../../exercises/native-kernel/kernel.cc:17:12: error: 'oops' was not declared in this scope",
    'make: *** [exercise_O0.target.mk:120: Release/obj.target/exercise_O0/native/kernel-exercise.o] Error 1',
    'gyp ERR! build error',
    'gyp ERR! stack Error: `make` failed with exit code: 2',
  ].join('\n');
  assert.equal(failureHeadline(output), "exercises/native-kernel/kernel.cc:17:12: error: 'oops' was not declared in this scope");
  assert.match(fixFor(failureHeadline(output)), /^fix the compile error in exercises\/native-kernel\/kernel\.cc \(the first error is shown above\)/);
});

test('failureHeadline names a missing compiler or Python; the fix is then to install the toolchain', () => {
  assert.equal(failureHeadline('gyp info it worked\nmake: g++: No such file or directory\ngyp ERR! not ok'), 'make: g++: No such file or directory');
  assert.equal(
    failureHeadline('gyp ERR! find Python checking\ngyp ERR! stack Error: Could not find any Python installation to use\ngyp ERR! not ok'),
    'Error: Could not find any Python installation to use',
  );
  assert.match(fixFor('make: g++: No such file or directory'), /^install a C\+\+ toolchain \(Debian\/Ubuntu: apt-get install -y g\+\+ make python3/);
  assert.equal(failureHeadline(''), 'no output');
});

test("each impl's optional blocked.cc is a build group of its own, apart from its kernel.cc rungs", () => {
  assert.deepEqual(GROUPS.map((g) => g.targets), [
    ['solution_O0', 'solution_O3', 'solution_march'], ['solution_blocked'],
    ['exercise_O0', 'exercise_O3', 'exercise_march'], ['exercise_blocked'],
  ]);
  // A failed block-size check (native/blocked-sizes-check.h) is the learner's blocked.cc to fix, not the toolchain.
  const sizes = failureHeadline("../native/blocked-sizes-check.h:5:27: error: static assertion failed: blocked.cc: the block sizes kKc, kMc and kNc must each be at least 1 (doubles)");
  assert.match(fixFor(sizes, GROUPS[3]!.file), /^fix the compile error in exercises\/native-kernel\/blocked\.cc /);
  assert.match(fixFor(sizes), /^install a C\+\+ toolchain/);
});

test('NATIVE_KERNEL_TARGETS picks the modules to build; an unknown name is an error listing the modules', () => {
  assert.equal(chosenTargets({}).targets?.length, 9);
  assert.deepEqual(chosenTargets({ NATIVE_KERNEL_TARGETS: 'exercise_O3, exercise_blocked' }).targets, ['exercise_O3', 'exercise_blocked']);
  assert.match(chosenTargets({ NATIVE_KERNEL_TARGETS: 'exercise_O4' }).error ?? '', /unknown modules: exercise_O4; the modules are solution_O0, .*exercise_blocked, blas/);
  assert.match(chosenTargets({ NATIVE_KERNEL_TARGETS: ',' }).error ?? '', /names no module/);
});

test('a copy built by a test keeps the makefiles node-gyp writes outside its build folder in a folder of its own', (t) => {
  const root = buildCopyRoot(t, 'native-kernel-copy-layout-');
  assert.deepEqual(readdirSync(root), []);
  // Where gyp's make generator puts node-addon-api's makefiles: <build>/../../../.. (support/build-copy.ts).
  const makefilesBase = path.resolve(root, 'labs', 'native-kernel', 'build', '..', '..', '..', '..');
  assert.equal(makefilesBase, path.dirname(root), 'the copy\'s own folder');
  assert.notEqual(makefilesBase, os.tmpdir(), 'not the temp folder that other tests\' copies share');
  assert.ok(path.basename(makefilesBase).startsWith('native-kernel-copy-layout-'));
});

// lab.sbatch builds inside the checkout it runs from; a rebuild removes the modules before it links them again, and in
// CI the real-Slurm test's job pulled solution_march.node from under a test running beside it (MODULE_NOT_FOUND). With
// COURSE_BUILD_IF_STALE=1 a current build is kept.
test('buildIsCurrent keeps a build of this Node and CPU with no newer source, and nothing else', () => {
  const cpu = cpuIdentity();
  assert.match(cpu, new RegExp(`^${os.arch()} `));
  const record = { node: 'v24.21.0', cpu, targets: { solution_march: { available: true, file: 'build/Release/solution_march.node' }, blas: { available: false } } };
  const facts = { record, targets: ['solution_march', 'blas'], node: 'v24.21.0', cpu, newestSource: 1000, moduleMtimeMs: () => 2000 };
  assert.equal(buildIsCurrent(facts), true, 'current (a BLAS recorded as not found stays not found)');
  assert.equal(buildIsCurrent({ ...facts, newestSource: 3000 }), false, 'a source newer than the module');
  assert.equal(buildIsCurrent({ ...facts, moduleMtimeMs: () => null }), false, 'a module missing on disk');
  assert.equal(buildIsCurrent({ ...facts, node: 'v24.22.0' }), false, 'another Node');
  assert.equal(buildIsCurrent({ ...facts, cpu: `${cpu} (another node kind)` }), false, 'another CPU');
  assert.equal(buildIsCurrent({ ...facts, record: { ...record, cpu: undefined } }), false, 'a record from before the CPU was recorded');
  assert.equal(buildIsCurrent({ ...facts, targets: ['solution_march', 'exercise_march'] }), false, 'a module the record does not have');
  assert.equal(buildIsCurrent({ ...facts, record: { ...record, targets: { ...record.targets, solution_march: { available: false } } } }), false, 'a module that failed to build');
  assert.equal(buildIsCurrent({ ...facts, record: null }), false, 'no record');
});
