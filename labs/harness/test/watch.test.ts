/**
 * --watch: a saved change to the learner's file starts a new check in a fresh process, and the first failure is
 * explained. Runs on a temp copy of the workflow fixture (exercises/sums starts as "not implemented").
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { explainFirstFailure, isWatchedFile, watchLab, type WatchCheckResult } from '../src/watch.ts';
import type { CorrectnessEntry } from '@parallel-course/core';
import { tempRoot, WRONG_IMPL } from './support/temp-root.ts';

function entry(partial: Partial<CorrectnessEntry>): CorrectnessEntry {
  return {
    variant: 'mine', params: {}, passed: false, comparator: 'exact', reason: null, notImplemented: false,
    firstMismatch: null, maxAbsError: null, maxRelError: null, inputsChecked: 1, failedAt: null, ...partial,
  };
}

test('isWatchedFile: sources count, editor droppings do not', () => {
  assert.equal(isWatchedFile('impl.ts'), true);
  assert.equal(isWatchedFile('native/kernel.cc'), true);
  assert.equal(isWatchedFile('.impl.ts.swp'), false);
  assert.equal(isWatchedFile('impl.ts~'), false);
  assert.equal(isWatchedFile('#impl.ts#'), false);
  assert.equal(isWatchedFile('notes.txt'), false);
});

test('explainFirstFailure: names the first failing case, the mismatch and where to write the code', () => {
  assert.equal(explainFirstFailure([entry({ passed: true })], 'exercises/sums'), null);
  const todo = explainFirstFailure([entry({ passed: true, variant: 'loop' }), entry({ notImplemented: true, reason: 'not implemented: x in y' })], 'exercises/sums');
  assert.equal(todo, 'First problem: mine\n  not implemented: x in y\n  Write it in exercises/sums (look for TODO(learner)); the check runs again when you save.');
  const wrong = explainFirstFailure(
    [entry({ reason: 'wrong output on check input #0 at [0]: expected 10, got 9', firstMismatch: { index: 0, expected: '10', actual: '9' }, maxAbsError: 1, maxRelError: 0.1 })],
    'exercises/sums',
  );
  assert.match(wrong ?? '', /^First problem: mine\n/);
  assert.match(wrong ?? '', /At element 0 the reference gives 10 and your code gives 9\./);
  assert.match(wrong ?? '', /Check the boundaries first/);
});

test('watch mode checks at once, then again on every save, with the first mismatch explained', async (t) => {
  const root = tempRoot('workflow-root', 'harness-watch-', t);
  const impl = path.join(root, 'exercises', 'sums', 'impl.ts');
  const output: string[] = [];
  const results: WatchCheckResult[] = [];
  let wake: (() => void) | null = null;
  const next = () => new Promise<void>((resolve) => {
    wake = resolve;
  });
  const handle = watchLab({
    lab: 'sums',
    impl: 'exercise',
    rootDir: root,
    debounceMs: 50,
    write: (text) => output.push(text),
    onCheck: (r) => {
      results.push(r);
      wake?.();
    },
  });
  try {
    // 1. The shipped exercise: not implemented.
    await next();
    const first = results[0]!;
    assert.equal(first.kind, 'checked');
    assert.equal(first.trigger, null);
    if (first.kind === 'checked') {
      assert.equal(first.outcome.correctness.find((e) => e.variant === 'mine')?.notImplemented, true);
      assert.equal(first.outcome.exitCode, 1);
    }

    // 2. Save a wrong answer: the check runs again in a fresh process and sees the new code.
    const wrongSaved = next();
    writeFileSync(impl, WRONG_IMPL);
    await wrongSaved;
    const second = results[1]!;
    assert.equal(second.trigger, path.join('exercises', 'sums', 'impl.ts'));
    assert.equal(second.kind, 'checked');
    if (second.kind === 'checked') {
      const mine = second.outcome.correctness.find((e) => e.variant === 'mine')!;
      assert.equal(mine.passed, false);
      assert.equal(mine.notImplemented, false);
      assert.match(mine.reason ?? '', /^wrong output on check input #0 at \[0\]: expected \d+, got \d+$/);
    }
    assert.ok(output.some((line) => line.startsWith('First problem: mine\n')), output.join('\n'));

    // 3. Save the fix: every case passes.
    const fixed = next();
    writeFileSync(impl, 'export function sumSquares(xs: Float64Array): number {\n  return xs.reduce((s, x) => s + x * x, 0);\n}\n');
    await fixed;
    const third = results[2]!;
    assert.equal(third.kind === 'checked' && third.outcome.exitCode, 0);
    assert.ok(output.includes('All 4 cases pass') || output.some((l) => /^All 4 cases pass \(\d+\.\d s\)\.$/.test(l)), output.join('\n'));
  } finally {
    await handle.close();
  }
});
