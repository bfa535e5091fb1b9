/**
 * What learner code can reach inside the runner does not change how it is checked (issue 42): the lab's definition is
 * frozen before any learner module loads (runner.ts freezeDeep), and fresh inputs are numbered at random before it
 * loads (runner.ts drawFreshIndices). No timing is asserted here, so this file runs beside others (forgery.test.ts,
 * whose grades compare real timings, runs alone).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { FRAME_SOURCE } from './support/channel-frame.ts';
import { giveFaultyLabNumberedInputs } from './support/numbered-inputs.ts';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupSamples: 2, rounds: 4, samplesPerRound: 3 };

async function check(t: Parameters<typeof tempRoot>[2] & object, source: string) {
  const root = tempRoot('faults-root', 'harness-reach-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), source);
  return runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root });
}

test("a learner that rewrites the lab's comparator (imported from the lab package) still fails its check (issue 42)", async (t) => {
  // The attack: overwrite lab.comparator.compare to accept anything, then answer wrong. Before the definition was
  // frozen in the runner, every check passed (the task-granularity pool did a third of the tasks and PASSed).
  const source = `import lab from '../../labs/faulty/src/lab.ts';
try { (lab as { comparator: { compare: unknown } }).comparator.compare = () => ({ equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: 0 }); } catch {}
try { Object.defineProperty(lab, 'comparator', { value: { description: 'forged', compare: () => ({ equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: 0 }) } }); } catch {}
export function sumSquares(xs: Float64Array): number {
  return xs.length; // wrong
}
`;
  const outcome = await check(t, source);
  const entry = outcome.correctness.find((e) => e.variant === 'learner' && !('impl' in e.params));
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.match(entry?.reason ?? '', /wrong output on check input #0/);
});

test('the next fresh input cannot be worked out from the last one (issue 42)', async (t) => {
  // A lab with fresh inputs (measureAt, as event-loop's): input k carries its number. The learner answers wrong
  // whenever the input is the one it predicted from the previous (as the attack precomputed event-loop's next burst,
  // 1000 + burst x n + i): before the runner drew the numbers at random, every sample after the first was predicted.
  const root = tempRoot('faults-root', 'harness-forgery-', t);
  giveFaultyLabNumberedInputs(root);
  writeFileSync(
    path.join(root, 'exercises', 'faulty', 'faulty.ts'),
    `let last = -1;
export function sumSquares(xs: Float64Array): number {
  const predicted = xs.length === 2000 && xs[0] === last + 1;
  if (xs.length === 2000) last = xs[0]!;
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return predicted ? s + 1 : s;
}
`,
  );
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: { warmupSamples: 2, rounds: 4, samplesPerRound: 3 }, silent: true, rootDir: root });
  const entry = outcome.correctness.find((e) => e.variant === 'learner');
  assert.equal(entry?.passed, true, entry?.reason ?? '');
});

test("rounds written straight onto the channel's fd are refused, and the case fails naming the channel (issue 42)", async (t) => {
  // The sender is out of reach, but the IPC pipe's fd is not (fs.writeSync works on it under the permission model):
  // eight forged rounds of tiny samples, each after a forged call. Before the supervisor counted rounds and samples
  // by the plan, they were taken as measured (24 forged samples beside the 12 real ones); now the real round that
  // arrives after its forged twin fails the case.
  const outcome = await check(
    t,
    `${FRAME_SOURCE}
const key = JSON.stringify(['learner', []]);
for (let round = 0; round < 8; round++) {
  frame({ type: 'call', activity: { stage: 'measure', caseKey: key, round }, limitMs: 60000, why: 'forged' });
  frame({ type: 'round', caseKey: key, round, samplesMs: [1e-6, 1e-6, 1e-6] });
  frame({ type: 'called' });
}
export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`,
  );
  const entry = outcome.correctness.find((e) => e.variant === 'learner');
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.match(entry?.reason ?? '', /lab or learner code wrote to the harness's channel\. Look at exercises\/faulty\/faulty\.ts/);
});
