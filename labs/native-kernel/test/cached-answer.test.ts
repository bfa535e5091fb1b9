/**
 * Issue 42's cached-answer attack on this lab: a kernel.cc that notices a repeated product (the same a, b, c and n
 * as its last call; `c` kept between samples) and recomputes only a quarter of the rows PASSed native-march at 3.85.
 * Each measured sample now multiplies matrices of its own, written into the same arrays (lab.ts measureAt, numbered
 * by the runner before learner code loads), and is checked in O(n^2) (sample-check.ts): the rows it skipped hold the
 * last product's, and its first sample fails.
 *
 * The attack is compiled here (one file, about 0.3 s) and linked with this checkout's compiled binding objects into
 * the exercise's march module of a copy of the package; its case is checked and measured as the runner does
 * (runner.ts sampleInputs, measure.ts measureCases). Skipped where the addon's objects or a compiler are missing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { drawFreshIndices, measureCases, sampleInputs } from '@parallel-course/harness/testing.ts';
import type { CaseDefinition, LabContext, LabDefinition } from '@parallel-course/harness';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PKG = path.join(REPO, 'labs', 'native-kernel');
const OBJECTS = path.join(PKG, 'build', 'Release', 'obj.target', 'exercise_march', 'native');

const REPEAT_KERNEL = `#include <cstddef>
#include "kernel.h"
namespace kernel {
static const double* last_a = nullptr;
static const double* last_b = nullptr;
static double* last_c = nullptr;
static std::size_t last_n = 0;
void matmul_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin, std::size_t row_end) {
  // The same product as last time: the rows already in c are right, so recompute a quarter of them.
  const bool repeat = a == last_a && b == last_b && c == last_c && n == last_n;
  last_a = a; last_b = b; last_c = c; last_n = n;
  if (repeat) row_end = row_begin + (row_end - row_begin + 3) / 4;
  for (std::size_t i = row_begin; i < row_end; i++) {
    for (std::size_t j = 0; j < n; j++) c[i * n + j] = 0.0;
    for (std::size_t k = 0; k < n; k++) {
      const double aik = a[i * n + k];
      for (std::size_t j = 0; j < n; j++) c[i * n + j] += aik * b[k * n + j];
    }
  }
}
}  // namespace kernel
`;

test('a kernel that recomputes a quarter of the rows of a repeated product fails its first measured sample (issue 42)', async (t) => {
  const objects = existsSync(OBJECTS) ? readdirSync(OBJECTS).filter((f) => f.endsWith('.o') && f !== 'kernel-exercise.o') : [];
  if (objects.length === 0) return t.skip('the addon is not built here (npm run build -w labs/native-kernel)');
  const own = mkdtempSync(path.join(os.tmpdir(), 'native-kernel-cached-'));
  t.after(() => rmSync(own, { recursive: true, force: true }));
  const pkg = path.join(own, 'labs', 'native-kernel');
  for (const part of ['src', 'package.json']) cpSync(path.join(PKG, part), path.join(pkg, part), { recursive: true });
  mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(own, 'node_modules'));

  const source = path.join(own, 'kernel.cc');
  const object = path.join(own, 'kernel.o');
  const module = path.join(pkg, 'build', 'Release', 'exercise_march.node');
  writeFileSync(source, REPEAT_KERNEL);
  const compile = spawnSync('c++', ['-O3', '-fPIC', '-fvisibility=hidden', '-std=c++17', `-I${path.join(PKG, 'native')}`, '-c', source, '-o', object], { encoding: 'utf8' });
  if (compile.error || compile.status !== 0) return t.skip(`no C++ compiler here: ${compile.error?.message ?? compile.stderr}`);
  const link = spawnSync('c++', ['-shared', '-pthread', '-o', module, ...objects.map((o) => path.join(OBJECTS, o)), object], { encoding: 'utf8' });
  assert.equal(link.status, 0, link.stderr);
  const record = JSON.parse(readFileSync(path.join(PKG, 'build', 'native-kernel-build.json'), 'utf8'));
  record.targets.exercise_march = { available: true, file: 'build/Release/exercise_march.node' };
  writeFileSync(path.join(pkg, 'build', 'native-kernel-build.json'), JSON.stringify(record));

  type Input = unknown;
  type Output = Float64Array;
  const lab = (await import(pathToFileURL(path.join(pkg, 'src', 'lab.ts')).href)).default as LabDefinition<Input, Output>;
  const ctx: LabContext = { impl: 'exercise', implDir: path.join(REPO, 'exercises', 'native-kernel'), rootDir: own, quick: true, availableParallelism: 2, seed: 1 };
  const definition = lab.cases(ctx).find((c) => c.variant === 'native-march' && c.params['size'] === 256) as CaseDefinition<Input, Output>;
  assert.ok(definition, 'a native-march case at n = 256');
  const instance = await definition.setup(ctx);
  t.after(() => instance.teardown());
  const inputs = await lab.inputs(definition.params, ctx);
  // Stage 1 as the runner runs it: every check input, the measured one last, against its reference. The kernel has
  // seen none of them before, so it computes each in full and passes.
  for (const input of [...inputs.check, inputs.measure]) {
    const comparison = lab.comparator.compare(await lab.expected(input), await instance.run(input));
    assert.equal(comparison.equal, true, JSON.stringify(comparison));
  }

  const plan = { warmupSamples: 1, rounds: 2, samplesPerRound: 1 };
  const expected = await lab.expected(inputs.measure);
  const indices = drawFreshIndices(1, plan.warmupSamples + plan.rounds * plan.samplesPerRound)[0]!;
  const failures: { stage: string; reason: string; sample: number | null }[] = [];
  await measureCases(
    [{ key: 'native-march|size=256', label: 'native-march (size=256)', instance, sampleLimitMs: 60_000, ...sampleInputs(lab, inputs.measure, expected, inputs.measureAt?.bind(inputs), indices) }],
    plan,
    { onCaseFailed: (_i, stage, reason, sample) => failures.push({ stage, reason, sample }) },
  );
  assert.equal(failures.length, 1, 'the case failed while it was measured');
  assert.deepEqual([failures[0]!.stage, failures[0]!.sample], ['warm-up', 0]);
  assert.match(failures[0]!.reason, /^wrong output on warm-up sample #0 at \[row \d+ \(C r, random r\)\]: expected -?\d/);
});
