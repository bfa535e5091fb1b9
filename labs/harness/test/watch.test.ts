/**
 * --watch: a saved change to the learner's file starts a new check in a fresh process, and the first failure is
 * explained. Runs on a temp copy of the workflow fixture (exercises/sums starts as "not implemented").
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { explainFirstFailure, isWatchedFile, watchLab, type WatchCheckResult } from '../src/cli/watch.ts';
import { mismatchHint } from '../src/run/mismatch-hint.ts';
import { formatCheckReport } from '../src/run/run-lab.ts';
import { correctnessDetail } from '@parallel-course/core';
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
  assert.equal(wrong, 'First problem: mine (the mismatch above; largest absolute error 1.00, largest relative error 0.100)');
});

test('a mismatch is told once in what --watch prints, with a hint that follows from the evidence', () => {
  // What --watch printed for a wrong first value: the reason in the check report, "first mismatch at 0" again in the
  // detail, then "At element 0 ..." with an off-by-one hint, which a wrong first item rules out.
  const first = entry({ reason: 'wrong output on check input #0 at [0]: expected 10, got 9', firstMismatch: { index: 0, expected: '10', actual: '9' }, maxAbsError: 1, maxRelError: 0.1 });
  const printed = `${formatCheckReport([first], 'sums', 'exercise')}\n${explainFirstFailure([first], 'exercises/sums')}`;
  assert.equal(printed.split('expected 10, got 9').length - 1, 1, printed);
  assert.doesNotMatch(printed, /element 0|off-by-one/);
  assert.match(printed, /FAIL  mine: wrong output on check input #0 at \[0\]: expected 10, got 9\n {8}It differs from the very first item, so it is not a boundary/);
  assert.equal(correctnessDetail(first), 'wrong output on check input #0 at [0]: expected 10, got 9; max abs error 1.00; max rel error 0.100');
  // A reason that does not quote the values keeps the first mismatch in the detail.
  assert.match(correctnessDetail(entry({ reason: 'response 7 differs', firstMismatch: { index: 7, expected: '"a"', actual: '"b"' } })), /first mismatch at 7: expected "a", got "b"/);
  // Each hint from its own evidence.
  const at = (index: number | string, expected: string, actual: string, maxAbsError: number | null = null, maxRelError: number | null = null) =>
    mismatchHint(entry({ firstMismatch: { index, expected, actual }, maxAbsError, maxRelError }));
  assert.match(at(96, '4', '0', 4, 1) ?? '', /^Everything before \[96\] matches: look at what starts at \[96\] \(a chunk boundary/);
  assert.match(at('length', '100', '96') ?? '', /^Your output has 96 items where the expected output has 100: 4 are missing/);
  assert.match(at('length', '100', '104') ?? '', /4 too many/);
  assert.match(at(3, '1.5', '1.5000002', 2e-7, 1.3e-7) ?? '', /floating-point additions in a different order/);
  assert.match(at(12, '7', 'NaN') ?? '', /gave NaN at \[12\]: that item was never computed or never written/);
  assert.equal(mismatchHint(entry({ reason: 'threw on check input #0: boom' })), null);
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
