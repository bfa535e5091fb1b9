/**
 * A graded run fingerprints the solution's build outputs (LabDefinition.solutionBuildOutputs: native-kernel's
 * solution_*.node) before the runner starts and after it ends, and refuses the grade when one changed (issue 42: a
 * kernel.cc static initializer swapped build/Release/solution_march.node for the learner's slower build, the solution
 * ran slower, PASS 2.25, and the source fingerprint still matched). Here the faulty fixture lab declares a build
 * output in a folder its package lets the run write (as gpu-batching's models/), and the learner's module rewrites it
 * when it loads.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupSamples: 1, rounds: 3, samplesPerRound: 3 };

test("a graded run whose solution build output changed while it ran is not a grade (issue 42)", async (t) => {
  const root = tempRoot('faults-root', 'harness-solution-build-', t);
  const lab = path.join(root, 'labs', 'faulty');
  mkdirSync(path.join(lab, 'build'));
  writeFileSync(path.join(lab, 'build', 'solution.node'), 'the solution, as built');
  writeFileSync(path.join(lab, 'package.json'), JSON.stringify({ name: '@parallel-course/faulty', private: true, type: 'module', sandbox: { writes: ['build'] } }));
  const definition = path.join(lab, 'src', 'lab.ts');
  const source = readFileSync(definition, 'utf8');
  const planted = source.replace('  grading: {', "  solutionBuildOutputs: (ctx) => [`${ctx.rootDir}/labs/faulty/build/solution.node`],\n  grading: {");
  assert.notEqual(planted, source, 'the build output was declared');
  writeFileSync(definition, planted);
  writeFileSync(
    path.join(root, 'exercises', 'faulty', 'faulty.ts'),
    `import { writeFileSync } from 'node:fs';
try { writeFileSync(new URL('../../labs/faulty/build/solution.node', import.meta.url), 'swapped by the learner'); } catch {}
export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`,
  );
  const options = { lab: 'faulty', impl: 'exercise' as const, quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2, trustedCode: true };
  await assert.rejects(runLab(options), /not a grade: the solution's build output changed during the run \(labs\/faulty\/build\/solution\.node\)/);
  // The same run with the build output left alone grades.
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), readFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), 'utf8'));
  const graded = await runLab(options);
  assert.ok(graded.results?.grade, 'graded');
});
