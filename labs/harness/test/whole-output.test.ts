/**
 * Outputs over the harness's bound (OUTPUT_BYTES_BOUND) are checked whole by the judge, not only at positions
 * (issue 42, point 3 of session 18). Attacks of learner code on the large-output fixture lab (support/large-lab.ts,
 * 2^20 doubles):
 * - wrong at one entry of 2^20 once it is measured: at positions alone (about 2,000 a sample) it passed with
 *   probability about 0.99;
 * - wrong at one entry in the check stage too, in a runner whose own comparison says right: 13,810 positions missed it
 *   with probability 0.987;
 * - the output finished after the judge's clock stopped: a Float64Array over a SharedArrayBuffer that a worker thread
 *   fills 2 s after the call returned (a margin for a loaded machine). The judge reads its positions first, at once
 *   after the answer, so a slow whole transfer cannot give the worker the time to finish it. The judge before the
 *   whole check caught this one too (its positions came at once); the test keeps it caught.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { LARGE_LENGTH, writeLargeLab } from './support/large-lab.ts';
import { tempRoot } from './support/temp-root.ts';

async function learnerEntry(t: Parameters<typeof tempRoot>[2] & object, learner: string, lyingRunner = false) {
  const root = tempRoot('faults-root', 'harness-whole-', t);
  writeLargeLab(root, learner, { lyingRunner });
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), silent: true, rootDir: root });
  return { entry: outcome.correctness.find((e) => e.variant === 'learner'), outcome };
}

test('a large output wrong at one entry of its 2^20 is caught: the judge checks it whole (issue 42)', { timeout: 180_000 }, async (t) => {
  // Its two check calls right (the runner's own full comparison of them passes), every measured call wrong at the
  // last entry. Before: checked at about 2,000 positions a sample, the case passed with probability about 0.99.
  const { entry, outcome } = await learnerEntry(
    t,
    `let calls = 0;
export function sumSquares(xs: Float64Array): Float64Array {
  const out = Float64Array.from({ length: ${LARGE_LENGTH} }, (_, p) => p + xs[0]!);
  if (++calls > 2) out[${LARGE_LENGTH - 1}] = -1;
  return out;
}
`,
  );
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.match(entry?.reason ?? '', new RegExp(`^wrong output on warm-up sample #0 at \\[${LARGE_LENGTH - 1}\\]: expected ${LARGE_LENGTH + 1}, got -1`));
  // The lab's own variants pass the same whole checks and are measured.
  assert.deepEqual(outcome.results?.cases.map((c) => c.variant).sort(), ['loop', 'steady']);
});

test("a large check output wrong at one entry is caught in the judge, whatever the runner's own comparison says (issue 42)", { timeout: 180_000 }, async (t) => {
  // The runner's comparator says right (a runner learner code has subverted). Before: the check stage's 13,810
  // positions of 2^20 missed the entry with probability 0.987, and the case passed its check.
  const { entry } = await learnerEntry(
    t,
    `export function sumSquares(xs: Float64Array): Float64Array {
  const out = Float64Array.from({ length: ${LARGE_LENGTH} }, (_, p) => p + xs[0]!);
  out[${LARGE_LENGTH - 1}] = -1;
  return out;
}
`,
    true,
  );
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.match(entry?.reason ?? '', new RegExp(`^wrong output on check input #0 at \\[${LARGE_LENGTH - 1}\\]: expected ${LARGE_LENGTH}, got -1`));
});

test('a large output a worker thread finishes after the call returned is caught at the positions read first (issue 42)', { timeout: 180_000 }, async (t) => {
  const { entry } = await learnerEntry(
    t,
    `import { Worker } from 'node:worker_threads';
const FILL = \`const { workerData } = require('node:worker_threads');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000);
const out = new Float64Array(workerData.buffer);
for (let p = 0; p < out.length; p++) out[p] = p + workerData.k;\`;
let calls = 0;
export function sumSquares(xs: Float64Array): Float64Array {
  if (++calls <= 2) return Float64Array.from({ length: ${LARGE_LENGTH} }, (_, p) => p + xs[0]!);
  const buffer = new SharedArrayBuffer(${LARGE_LENGTH} * 8);
  new Worker(FILL, { eval: true, workerData: { buffer, k: xs[0]! } }).unref();
  return new Float64Array(buffer);
}
`,
  );
  assert.equal(entry?.passed, false, JSON.stringify(entry));
  assert.match(entry?.reason ?? '', /^wrong output on warm-up sample #0 at \[\d+\]: expected \d+, got 0/);
});
