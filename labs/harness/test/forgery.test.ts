/**
 * Learner code cannot forge its grade by patching what the harness times with (seal.ts, sandbox.ts): each forgery
 * from issue 25, planted in a learner that is 3000x slower than the solution, must leave the grade failing. Before the
 * seal, the Array.prototype.push patch and the forged 'round' message each turned this learner into a pass.
 */
// npm test runs this file alone: a grade ratio of real timings must stay below 0.5 (support/suite.ts).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { parseResultsJson } from '@parallel-course/core';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupSamples: 2, rounds: 4, samplesPerRound: 3 };

/**
 * A correct answer doing 3000x the work (about 6 ms a sample here against the solution's 2 us: under a load of 10 the
 * solution's samples, recorded no shorter than the judge's time less the round trip, took 0.6 ms, and a 300x learner
 * graded 0.96), with `forgery` run once at module level (swallowed when `quiet`).
 */
function learner(forgery: string, quiet: boolean): string {
  const block = quiet ? `try {\n${forgery}\n} catch {}` : forgery;
  return `export let mine = false;
${block}
export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let r = 0; r < 3000; r++) { s = 0; for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!; }
  mine = true;
  return s;
}
`;
}

const FORGERIES: Record<string, string> = {
  // Scales the sample tinybench records right after the learner's call (the forgery that passed on main).
  'Array.prototype.push': `const push = Array.prototype.push;
Array.prototype.push = function (...items: unknown[]) {
  if (mine && items.length === 1 && typeof items[0] === 'number' && (new Error().stack ?? '').includes('tinybench')) { mine = false; items = [(items[0] as number) / 1000]; }
  return push.apply(this, items as never);
};`,
  'performance.now': `const now = performance.now.bind(performance); let t0 = now(); performance.now = () => t0 + (now() - t0) / 1000;`,
  'Math.round': `Math.round = (x: number) => 0;`,
  // Posts a round of tiny samples for the learner's case straight to the supervisor.
  'process.send': `process.send!({ type: 'round', caseKey: '["learner",[]]', round: 0, samplesMs: Array.from({ length: 200 }, () => 1e-6) });`,
  // The harness's own sender (issue 42: imported from seal.ts, it posted more samples than the plan takes, and passed):
  // a call announcing each round, then a round of tiny samples, before the runner's own.
  // By the file's own URL: the package exports no seal.ts, and a learner can name any file it can read.
  'seal.ts sender': `const seal: Record<string, unknown> = await import(${JSON.stringify(new URL('../src/measure/seal.ts', import.meta.url).href)});
let send = seal.sendToSupervisor as ((m: unknown) => Promise<void>) | undefined;
if (!send) send = (seal.sealMeasurement as () => (m: unknown) => Promise<void>)();
const key = JSON.stringify(['learner', []]);
for (let round = 0; round < 8; round++) {
  await send({ type: 'call', activity: { stage: 'measure', caseKey: key, round }, limitMs: 1e9, why: 'forged' });
  await send({ type: 'round', caseKey: key, round, samplesMs: [1e-6, 1e-6, 1e-6] });
}`,
  'tinybench Bench.prototype.run': `const tb = await import('tinybench'); const run = tb.Bench.prototype.run; tb.Bench.prototype.run = async function () { const r = await run.call(this); for (const t of r) for (let i = 0; i < (t.result?.latency?.samples?.length ?? 0); i++) t.result.latency.samples[i] /= 1000; return r; };`,
};

async function grade(t: Parameters<typeof tempRoot>[2] & object, source: string) {
  const root = tempRoot('faults-root', 'harness-forgery-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), source);
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  const results = outcome.runDir ? parseResultsJson(readFileSync(path.join(outcome.runDir, 'results.json'), 'utf8'), 'results.json') : null;
  return { outcome, results };
}

for (const [name, forgery] of Object.entries(FORGERIES)) {
  test(`a swallowed ${name} forgery does not move the grade of a 3000x slower learner`, async (t) => {
    const { outcome, results } = await grade(t, learner(forgery, true));
    const entry = results?.grade?.entries[0];
    assert.ok(entry?.ratio !== null && entry?.ratio !== undefined, `graded: ${JSON.stringify(outcome.correctness)}`);
    assert.ok(entry.ratio < 0.5, `ratio ${entry.ratio}: the forgery moved it`);
  });
}

test('an unguarded patch of a built-in fails the learner case, naming the file', async (t) => {
  const { outcome } = await grade(t, learner(FORGERIES['Array.prototype.push']!, false));
  const entry = outcome.correctness.find((e) => e.variant === 'learner' && !('impl' in e.params));
  assert.equal(entry?.passed, false);
  assert.match(entry?.reason ?? '', /read only|read-only|not extensible/);
  assert.match(entry?.reason ?? '', /exercises\/faulty\/faulty\.ts/);
  assert.notEqual(outcome.exitCode, 0);
});

test('an answer that computes after the call returned (a lazy getter its serialization reads) is timed (issue 42)', async (t) => {
  // The call returns at once; the 300x work (about 0.6 ms a call, 300 x the solution's) runs when the runner
  // serializes the output for the judge (an array whose element is a getter). While the runner timed only the call
  // (tinybench, the check after it), this learner's samples were the empty call's and it passed. The judge's clock now
  // ends at the answer, and what the output's crossing takes beyond the trusted case's is charged (judge-sampler.ts).
  // 300x, not the other tests' 3000x: the judge sets this case's calls per sample from its call alone (it returns at
  // once: hundreds of calls), so each sample holds hundreds of the getter's runs; at 3000x one test took 20-160 s.
  const { outcome, results } = await grade(
    t,
    `export function sumSquares(xs: Float64Array): unknown {
  let memo: number | null = null;
  const value = () => {
    if (memo !== null) return memo;
    let s = 0;
    for (let r = 0; r < 300; r++) { s = 0; for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!; }
    return (memo = s);
  };
  const out: number[] = [0];
  Object.defineProperty(out, 0, { get: value, enumerable: true, configurable: true });
  return out;
}
`,
  );
  const entry = results?.grade?.entries[0];
  assert.ok(entry?.ratio !== null && entry?.ratio !== undefined, `graded: ${JSON.stringify(outcome.correctness)}`);
  assert.ok(entry.ratio < 0.5, `ratio ${entry.ratio}: work after the answer was not timed`);
});
