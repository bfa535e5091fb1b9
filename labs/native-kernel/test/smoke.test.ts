/** A tiny-budget run of the whole lab through the harness: solution passes and writes results, exercise fails kindly. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runLab } from '@parallel-course/harness/testing.ts';
import { blasStatus, rungStatus } from '../src/addon.ts';
import { nativeKernelAnalysis } from '../src/analysis.ts';

// One sample per case: every case is still checked before it is timed, and no assertion here reads an interval.
const sampling = { warmupSamples: 0, rounds: 1, samplesPerRound: 1 };
// The sweep planned for 2 CPUs whatever this machine has (forced, as --cpus 2 does), so the case list is known.
const cpus = 2;
const skip = rungStatus('solution', 'march').available ? false : 'the addon is not built here';

test('runLab --quick on the solution: every case passes, the headline, the peaks and the triad are recorded', { skip }, async (t) => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'native-kernel-smoke-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  const outcome = await runLab({ lab: 'native-kernel', impl: 'solution', quick: true, outDir, sampling, silent: true, cpus });
  assert.equal(outcome.exitCode, 0, JSON.stringify(outcome.correctness.filter((e) => !e.passed)));
  assert.ok(outcome.results);
  assert.equal(outcome.results.headline?.variant, 'native-march');
  const analysis = nativeKernelAnalysis(outcome.results);
  assert.ok(analysis.peaks && analysis.peaks.gflops1 > 0 && analysis.peaks.gbps1 > 0, 'the peak probes ran');
  // One thread-scaling point (2 threads vs 1) at the quick size per threaded variant: kernel.cc's loop, the blocked
  // kernel and, where a BLAS was built, the library.
  assert.deepEqual(analysis.threads.map((t) => t.variant), ['native-threads', 'native-blocked-threads', ...(blasStatus().available ? ['native-blas-threads'] : [])]);
  assert.ok(analysis.roofline.every((r) => r.fractionOfPeak > 0));
  // The triad at each thread count planned for P = 2, its work in bytes, so its throughput reads as bytes/s.
  const triads = outcome.results.cases.filter((c) => c.variant === 'triad');
  assert.deepEqual(triads.map((c) => c.params.threads), [1, 2]);
  for (const c of triads) {
    assert.deepEqual(c.workPerSample, { amount: 24 * Number(c.params.elements), unit: 'bytes' });
    assert.ok(Number(c.params.elements) >= 2 ** 23, 'arrays beyond the caches, also in a quick run');
  }
  assert.ok(outcome.results.speedups.some((s) => s.variant === 'triad' && s.workers === 2 && s.efficiencyBasis === 'one-worker'), 'efficiency against 1 thread');
  assert.equal(analysis.bandwidth?.points.length, 2);
  assert.equal(analysis.roofs?.gbpsAll, analysis.bandwidth?.best.gbps, 'the all-cores bandwidth roof is the best triad');
  assert.equal(analysis.roofs?.gbps1, analysis.bandwidth?.oneThread?.gbps, 'the 1-thread bandwidth roof is the 1-thread triad');
  // The harness ran the lab's analysis after the run: the tables and the roofline, in the run's analysis folder.
  const analysisMd = readFileSync(path.join(outcome.runDir!, 'analysis', 'analysis.md'), 'utf8');
  assert.match(analysisMd, /!\[Roofline of the rungs\]\(roofline\.svg\)/);
  assert.match(analysisMd, /## Memory bandwidth: the triad on 1\.\.P threads/);
  assert.match(analysisMd, /Bandwidth (saturates at \d of 2 threads|reaches 90% of its best .* only at 2 of 2 threads)/);
  assert.match(readFileSync(path.join(outcome.runDir!, 'analysis', 'roofline.svg'), 'utf8'), /^<svg /);
});

test('runLab on the shipped exercise: exit 1, every native rung of kernel.cc and blocked.cc "not implemented", TypeScript and BLAS rungs measured', { skip }, async (t) => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'native-kernel-smoke-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  const outcome = await runLab({ lab: 'native-kernel', impl: 'exercise', quick: true, outDir, sampling, silent: true, cpus });
  assert.equal(outcome.exitCode, 1);
  // native-blas runs the library, not learner code; native-blocked runs the learner's blocked.cc.
  const reference = (v: string) => ['native-blas', 'native-blas-threads'].includes(v);
  const native = outcome.correctness.filter((e) => e.variant.startsWith('native-') && !reference(e.variant));
  assert.ok(native.length > 0 && native.every((e) => e.notImplemented && !e.passed), JSON.stringify(native[0]));
  assert.ok(native.some((e) => e.variant === 'native-blocked' && /exercises\/native-kernel\/blocked\.cc/.test(e.reason ?? '')), JSON.stringify(native.find((e) => e.variant === 'native-blocked')));
  assert.ok(outcome.correctness.filter((e) => e.variant.startsWith('ts-') || reference(e.variant)).every((e) => e.passed));
});
