/**
 * Learner code cannot hang, fool or silently end a run: faults planted in a temporary copy of the `faulty` fixture
 * lab's learner file (solutions/faulty/faulty.ts), each ending within a bound with that case failed, the file named,
 * and the other cases measured and written.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkLab, runLab } from '../src/run/run-lab.ts';
import { parseResultsJson } from '@parallel-course/core';
import { readFileSync } from 'node:fs';
import { replaceOnce } from './support/replace-once.ts';
import { tempRoot } from './support/temp-root.ts';

// Limits x 0.05: a check call may take 3.25 s instead of 65 s, a measured round of 3 samples 1.75 s instead of 35 s
// (generous for these microsecond calls even on a loaded machine; short enough for the hangs to cost little).
const LIMIT_SCALE = 0.05;
const SAMPLING = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };

/** Calls 1-3 are the check (two check inputs and the measured input), call 4 the warm-up, calls 5-10 measured. */
const COUNTER = `let calls = 0;\nconst next = () => ++calls;\n`;
const RIGHT = `let s = 0; for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;`;

function fault(body: string): string {
  return `${COUNTER}export async function sumSquares(xs: Float64Array): Promise<number> {\n  const n = next();\n  ${RIGHT}\n  ${body}\n  return s;\n}\n`;
}

/**
 * The faults are planted by call number (COUNTER), one call a sample: the copy's lab keeps its samples one call each
 * (oneCallPerSample), where the judge would make these microsecond calls' samples hundreds of calls (judge-sampler.ts).
 */
function oneCallPerSample(root: string): void {
  const lab = path.join(root, 'labs', 'faulty', 'src', 'lab.ts');
  writeFileSync(lab, replaceOnce(readFileSync(lab, 'utf8'), '  sampling: {\n    quick:', "  oneCallPerSample: 'the fault tests number its calls, one a sample',\n  sampling: {\n    quick:"));
}

async function runWith(t: { after(fn: () => void): void }, source: string) {
  const root = tempRoot('faults-root', 'harness-faults-', t);
  oneCallPerSample(root);
  writeFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), source);
  const started = performance.now();
  const outcome = await runLab({
    lab: 'faulty',
    impl: 'solution',
    quick: true,
    outDir: path.join(root, 'results'),
    sampling: SAMPLING,
    silent: true,
    rootDir: root,
    limitScale: LIMIT_SCALE,
    cpus: 2, // the faulty lab's cases do not depend on P: no need to rerun these at P = 1 and 64
  });
  const learner = outcome.correctness.find((e) => e.variant === 'learner');
  return { outcome, learner, seconds: (performance.now() - started) / 1000 };
}

/** The run still measured and wrote the two correct cases, and left the learner's out of every number. */
function assertOthersKept(outcome: Awaited<ReturnType<typeof runLab>>): void {
  assert.equal(outcome.exitCode, 1);
  assert.ok(outcome.runDir, 'the other cases are written');
  const results = parseResultsJson(readFileSync(path.join(outcome.runDir!, 'results.json'), 'utf8'), 'results.json');
  assert.deepEqual(results.cases.map((c) => c.variant).sort(), ['loop', 'steady']);
  assert.ok(results.speedups.every((s) => s.variant !== 'learner'));
  assert.equal(results.headline?.variant, 'steady');
  const learner = results.correctness.find((e) => e.variant === 'learner');
  assert.equal(learner?.passed, false);
}

test('a case that is right in the check and on its last sample but wrong in between fails, naming the sample', async (t) => {
  // Wrong on calls 6-9 (measured samples #1-#4), right on the last measured sample (call 10) and everywhere else.
  const { outcome, learner } = await runWith(t, fault('if (n >= 6 && n <= 9) return s + 1;'));
  assertOthersKept(outcome);
  assert.deepEqual(learner?.failedAt, { stage: 'measure', sample: 1 });
  assert.match(learner?.reason ?? '', /^wrong output on measured sample #1 at \[0\]: expected \d+, got \d+/);
});

test('a wrong warm-up sample fails the case too', async (t) => {
  const { outcome, learner } = await runWith(t, fault('if (n === 4) return s + 1;'));
  assertOthersKept(outcome);
  assert.deepEqual(learner?.failedAt, { stage: 'warm-up', sample: 0 });
});

test('a synchronous infinite loop in the check ends within the per-input limit, naming the file', async (t) => {
  const { outcome, learner, seconds } = await runWith(t, fault('if (n === 1) for (;;) {}'));
  assertOthersKept(outcome);
  assert.equal(learner?.failedAt?.stage, 'check');
  assert.match(learner?.reason ?? '', /^checking learner on input #0 did not finish within 3\.3 s .*loop forever.* Look at solutions\/faulty\/faulty\.ts\./);
  assert.ok(seconds < 20, `took ${seconds} s`);
});

test('a synchronous infinite loop while measuring ends within a limit derived from the check', async (t) => {
  const { outcome, learner, seconds } = await runWith(t, fault('if (n === 7) for (;;) {}'));
  assertOthersKept(outcome);
  assert.equal(learner?.failedAt?.stage, 'measure');
  assert.match(learner?.reason ?? '', /^measuring learner \(round 1\) did not finish within [\d.]+ s \(one sample may take at most 10\.0 s \(20 x its check time/);
  assert.ok(seconds < 20, `took ${seconds} s`);
});

test('a promise that never settles while measuring ends the same way', async (t) => {
  const { outcome, learner } = await runWith(t, fault('if (n === 8) await new Promise(() => {});'));
  assertOthersKept(outcome);
  assert.match(learner?.reason ?? '', /did not finish within .*never settles/);
});

test('process.exit(0) in learner code fails that case and never ends the run with exit 0', async (t) => {
  const { outcome, learner } = await runWith(t, fault('if (n === 6) process.exit(0);'));
  assertOthersKept(outcome);
  assert.match(learner?.reason ?? '', /^the lab process ended while measuring learner \(round 1\) \(exit code 0\): does the code call process\.exit\(\)\?/);
});

// Code a call left behind (a timer) ends the lab process between two calls, while no case runs: the case whose call
// left it fails, naming the file, and the run goes on without it. In a graded run the learner's graded case runs alone
// in its runner, so the exit comes while that runner waits for the measure stage. Before, the run ended with "the lab
// process ended unexpectedly (exit code 0) outside any case" and named no file (issue 42: os-sandbox.test's hostile
// learner once ended that way).
test('process.exit(0) from code a call left behind fails the case that left it, naming the file', async (t) => {
  const root = tempRoot('faults-root', 'harness-faults-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), fault('if (n === 3) setImmediate(() => process.exit(0));'));
  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, limitScale: LIMIT_SCALE, cpus: 2, grade: true, trustedCode: true });
  const learner = outcome.correctness.find((e) => e.variant === 'learner' && e.params.impl === undefined);
  assert.equal(learner?.passed, false);
  assert.match(learner?.reason ?? '', /^the lab process ended after checking learner on input #2, while none of its calls was running \(exit code 0\): does code it left running after the call \(a timer, a callback, a child process\) call process\.exit\(\)\? Look at exercises\/faulty\/faulty\.ts\./);
  assert.ok(outcome.results?.notes.some((n) => n.includes('restarted without learner')), 'the run went on without it');
});

test('a throw while measuring fails that case alone, without restarting the others', async (t) => {
  const { outcome, learner } = await runWith(t, fault("if (n === 9) throw new Error('boom');"));
  assertOthersKept(outcome);
  assert.equal(learner?.reason, 'threw while it was measured (measure): boom. Look at solutions/faulty/faulty.ts.');
  assert.ok(!outcome.results?.notes.some((n) => n.includes('restarted')), 'no restart for an ordinary throw');
});

test('a worker that dies while measuring fails that case alone (its rejection is that case\'s)', async (t) => {
  const { outcome, learner } = await runWith(
    t,
    fault("if (n === 7) { const { Worker } = await import('node:worker_threads'); await new Promise((_, reject) => new Worker('throw new Error(\"worker died\")', { eval: true }).once('error', reject)); }"),
  );
  assertOthersKept(outcome);
  assert.equal(learner?.reason, 'threw while it was measured (measure): worker died. Look at solutions/faulty/faulty.ts.');
});

test("code left looping after a call (a timer) cannot stall the judge's requests between samples", async (t) => {
  // The check's last call leaves a timer that blocks the main thread while the judge calibrates or measures. A request
  // between samples (the calibration) has its limit too: the run ends, naming the file. Before, nothing between two
  // announced calls was bounded on the judge's side.
  const root = tempRoot('faults-root', 'harness-faults-', t);
  writeFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), fault('if (n === 3) setTimeout(() => { for (;;) {} }, 0);'));
  const started = performance.now();
  await assert.rejects(
    runLab({ lab: 'faulty', impl: 'solution', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, limitScale: LIMIT_SCALE, cpus: 2 }),
    /did not answer the harness between samples within [\d.]+ s .*Look at solutions\/faulty\/faulty\.ts\./,
  );
  assert.ok((performance.now() - started) / 1000 < 20);
});

test('an uncaught error thrown from a callback fails the case that was running', async (t) => {
  const { outcome, learner } = await runWith(t, fault("if (n === 6) { setImmediate(() => { throw new Error('late boom'); }); await new Promise((r) => setTimeout(r, 50)); }"));
  assertOthersKept(outcome);
  assert.match(learner?.reason ?? '', /exit code 70.*late boom/);
  assert.ok(outcome.results?.notes.some((n) => n.includes('restarted without learner')));
});

test('a native crash (SIGSEGV) fails the case and names the signal', async (t) => {
  const { outcome, learner } = await runWith(t, fault("if (n === 5) process.kill(process.pid, 'SIGSEGV');"));
  assertOthersKept(outcome);
  assert.match(learner?.reason ?? '', /killed by SIGSEGV\): a crash in native code\?/);
});

test('--watch and --status checks are supervised too: a synchronous loop ends within the per-input limit', async (t) => {
  const root = tempRoot('faults-root', 'harness-faults-', t);
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), fault('if (n === 2) for (;;) {}'));
  const started = performance.now();
  const outcome = await checkLab({ lab: 'faulty', impl: 'exercise', rootDir: root, limitScale: LIMIT_SCALE, cpus: 2 });
  assert.equal(outcome.exitCode, 1);
  const learner = outcome.correctness.find((e) => e.variant === 'learner');
  assert.match(learner?.reason ?? '', /^checking learner on input #1 did not finish within 3\.3 s .* Look at exercises\/faulty\/faulty\.ts\./);
  assert.deepEqual(outcome.correctness.map((e) => [e.variant, e.passed]), [['loop', true], ['learner', false], ['steady', true]]);
  assert.ok(performance.now() - started < 20_000);
});

test("a promise that never settles in the check fails its variant's other cases at once, naming the file", { timeout: 30_000 }, async (t) => {
  // Three cases of the learner's variant (as gpu-batching's pipeline has several prefetch depths), each of which would
  // wait out the check's limit in turn: the first fails on the limit, the others at once, pointing at it.
  const root = tempRoot('faults-root', 'harness-hang-', t);
  const labFile = path.join(root, 'labs', 'faulty', 'src', 'lab.ts');
  const lab = readFileSync(labFile, 'utf8')
    .replace("      variant('learner', async (xs) => {", "      ...[1, 2, 3].map((k) => ({ ...variant('learner', async (xs) => {")
    .replace("        return [await impl.sumSquares(xs)];\n      }),", "        return [await impl.sumSquares(xs)];\n      }), params: { k } })),");
  assert.notEqual(lab, readFileSync(labFile, 'utf8'), 'the fixture was rewritten');
  writeFileSync(labFile, lab);
  writeFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), 'export async function sumSquares(): Promise<number> { return new Promise(() => {}); }\n');
  const { runJob } = await import('../src/measure/runner.ts');
  const checked: { params: Record<string, unknown>; passed: boolean; reason: string | null }[] = [];
  const started = performance.now();
  await runJob(
    { lab: 'faulty', impl: 'solution', quick: true, seed: 1, rootDir: root, checkOnly: true, exclude: [], availableParallelism: 2, limitScale: LIMIT_SCALE },
    { send: (m) => void (m.type === 'checked' && m.entry.variant === 'learner' && checked.push(m.entry)), listen: () => () => {} },
  );
  const seconds = (performance.now() - started) / 1000;
  assert.deepEqual(checked.map((e) => [e.params['k'], e.passed]), [[1, false], [2, false], [3, false]]);
  assert.match(checked[0]!.reason ?? '', /did not finish within 3 s .*Look at solutions\/faulty\/faulty\.ts\.$/);
  assert.match(checked[1]!.reason ?? '', /^not checked: learner \(k=1\) of the same variant never finished its check .*Look at solutions\/faulty\/faulty\.ts\.$/);
  assert.ok(seconds < 8, `took ${seconds} s: the other cases waited out the limit too`);
});
