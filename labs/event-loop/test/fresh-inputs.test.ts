/**
 * Caching cannot help (issue 25): a memoising handler passed every check and graded chunked 39.0 and threadpool 21.5
 * of the reference, because every sample repeated the same burst. Now every request of every sample of every case
 * asks for a new account, and each sample's answers are checked (shape and account of all, one in full).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import lab, { burstFor } from '../src/lab.ts';
import { accountsOf, spotCheck } from '../src/fresh-inputs.ts';
import { deriveRingSync } from '../src/work.ts';
import { drawFreshIndices } from '@parallel-course/harness/testing.ts';
import { FRESH_INPUT_INDICES } from '@parallel-course/harness';

const ctx = { impl: 'solution' as const, implDir: '', rootDir: '', quick: false, availableParallelism: 4, seed: 1 };

test('no account repeats across the samples and cases of a full run, so a memoising handler has nothing to reuse', async () => {
  const inputs = await lab.inputs({}, ctx);
  assert.ok(inputs.measureAt, 'the lab gives a fresh burst per sample');
  const plan = lab.sampling.full;
  const samples = plan.warmupSamples + plan.rounds * plan.samplesPerRound;
  const cases = lab.cases(ctx).length + 3; // the graded reference copies too
  const seen = new Set<number>(inputs.measure.accounts);
  let requests = inputs.measure.accounts.length;
  // The sample numbers as the runner draws them (runner.ts): at random, distinct, before learner code loads.
  for (const indices of drawFreshIndices(cases, samples)) {
    for (const index of indices) {
      for (const a of inputs.measureAt(index).accounts) seen.add(a);
      requests += burstFor(ctx.availableParallelism);
    }
  }
  assert.equal(seen.size, requests, 'every request asks for a new account');
  // The largest sample number a run can draw still gives valid accounts.
  assert.doesNotThrow(() => accountsOf(FRESH_INPUT_INDICES - 1, burstFor(256)));
});

test("the per-sample check passes the right answers and catches a wrong shape, a wrong account and a faked key", () => {
  const accounts = accountsOf(3, 4);
  const right = accounts.map((a) => deriveRingSync(a));
  assert.equal(spotCheck(accounts, right, () => 2).equal, true);
  assert.equal(spotCheck(accounts, right.slice(1), () => 0).equal, false, 'a missing body');
  const swapped = [right[1]!, right[0]!, right[2]!, right[3]!];
  assert.match(spotCheck(accounts, swapped, () => 3).firstMismatch?.expected ?? "", /^account 1012 and 8 hex keys/);
  // A plausible-looking fake: the right account line and 8 hex keys, but not the derived ones.
  const faked = [...right];
  faked[2] = `account ${accounts[2]}\n${Array.from({ length: 8 }, () => 'ab'.repeat(32)).join('\n')}\n`;
  assert.equal(spotCheck(accounts, faked, () => 1).equal, true, 'a body not drawn is checked for shape only');
  const caught = spotCheck(accounts, faked, () => 2);
  assert.equal(caught.equal, false);
  assert.equal(caught.firstMismatch?.index, 2);
});
