import assert from 'node:assert/strict';
import { resolveHeadline } from '@parallel-course/harness/lab-definition.ts';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { isNotImplemented, type LabContext } from '@parallel-course/harness/lab-definition.ts';
import { rungStatus, staleBuildWarning } from '../src/addon.ts';
import lab, { LARGEST_SIZE, QUICK_SIZES, QUICK_THREAD_SIZES, threadCounts, unavailableNotes } from '../src/lab.ts';

const ctx = (impl: 'exercise' | 'solution', quick = true): LabContext => ({
  impl,
  implDir: `/unused/${impl}`,
  rootDir: '/unused',
  quick,
  availableParallelism: 2,
  seed: 20261202,
});
const built = rungStatus('solution', 'march').available && rungStatus('exercise', 'march').available;
const skip = built ? false : 'the addon is not built here (npm run build -w labs/native-kernel)';

test('threadCounts: 1..P by the harness rule (every count to 4, powers of two, P)', () => {
  assert.deepEqual(threadCounts(1), [1]);
  assert.deepEqual(threadCounts(2), [1, 2]);
  assert.deepEqual(threadCounts(4), [1, 2, 3, 4]);
  assert.deepEqual(threadCounts(12), [1, 2, 3, 4, 8, 12]);
});

test('the sweep: every rung at every size, the headline case among them, in quick and full runs', { skip }, () => {
  for (const quick of [true, false]) {
    const cases = lab.cases(ctx('solution', quick));
    const labels = new Set(cases.map((c) => `${c.variant}:${c.params.size}`));
    for (const v of ['ts-naive', 'ts-typed', 'native-O0', 'native-O3', 'native-march']) assert.ok(labels.has(`${v}:${LARGEST_SIZE}`), v);
    const headline = resolveHeadline(lab.headline, ctx('solution', quick));
    assert.ok(cases.some((c) => c.variant === headline.variant && c.params.size === headline.params.size));
    assert.ok(cases.some((c) => c.variant === 'native-threads' && c.params.threads === 2));
    // Only the threads rung declares `workers` (its thread count), so the harness's efficiency compares it with
    // itself on one thread; the single-threaded rungs have none.
    assert.ok(cases.every((c) => (c.variant === 'native-threads' ? c.workers === c.params.threads : c.workers === undefined)));
    // The threads rung is measured in its own group, after the single-threaded rungs' garbage is collected.
    assert.ok(cases.every((c) => (c.variant === 'native-threads') === (c.measureGroup === 'native-threads')));
  }
  const quickCases = lab.cases(ctx('solution'));
  const ladder = quickCases.filter((c) => c.variant !== 'native-threads' && c.variant !== 'ts-typed');
  assert.deepEqual([...new Set(ladder.map((c) => Number(c.params.size)))], QUICK_SIZES);
  // The baseline runs at the ladder's sizes and at each threads size, so every threads case has a speedup.
  const baselineSizes = quickCases.filter((c) => c.variant === 'ts-typed').map((c) => Number(c.params.size));
  assert.deepEqual(baselineSizes, [...new Set([...QUICK_SIZES, ...QUICK_THREAD_SIZES])]);
  assert.deepEqual([...new Set(quickCases.filter((c) => c.variant === 'native-threads').map((c) => Number(c.params.size)))], QUICK_THREAD_SIZES);
});

test('every solution case matches the reference on its check inputs; the work per sample is counted in flop', { skip }, async () => {
  for (const definition of lab.cases(ctx('solution'))) {
    const inputs = await lab.inputs(definition.params, ctx('solution'));
    const instance = await definition.setup(ctx('solution'));
    try {
      for (const input of inputs.check) {
        const comparison = lab.comparator.compare(await lab.reference(input), await instance.run(input));
        assert.equal(comparison.equal, true, `${definition.variant} ${JSON.stringify(definition.params)} n=${input.n}: ${JSON.stringify(comparison.firstMismatch)}`);
      }
    } finally {
      await instance.teardown();
    }
    assert.equal(lab.workPerSample(inputs.measure).amount, inputs.measure.repeats * 2 * inputs.measure.n ** 3);
  }
});

test('the exercise: TypeScript rungs pass, every native rung fails kindly with "not implemented: ..."', { skip }, async () => {
  for (const definition of lab.cases(ctx('exercise')).filter((c) => c.params.size === 4 || c.variant === 'native-threads')) {
    const inputs = await lab.inputs(definition.params, ctx('exercise'));
    const instance = await definition.setup(ctx('exercise'));
    const input = inputs.check[0]!;
    if (definition.variant.startsWith('native-')) {
      await assert.rejects(async () => instance.run(input), (error: Error) => {
        assert.ok(isNotImplemented(error), error.message);
        assert.match(error.message, /exercises\/native-kernel\/kernel\.cc/);
        return true;
      });
    } else {
      assert.equal(lab.comparator.compare(await lab.reference(input), await instance.run(input)).equal, true);
    }
    await instance.teardown();
  }
});

test('a missing build record reads as "not built" with the command that builds it', () => {
  const status = rungStatus('solution', 'O3', null);
  assert.deepEqual(status, {
    available: false,
    reason: 'the native addon has not been built (no build/native-kernel-build.json)',
    fix: 'run `npm run build -w labs/native-kernel`',
  });
  const failed = rungStatus('exercise', 'march', {
    fix: 'install g++',
    targets: { exercise_march: { available: false, reason: 'building the exercise rungs failed: kernel.cc:3: error: x' } },
  });
  assert.deepEqual(failed, { available: false, reason: 'building the exercise rungs failed: kernel.cc:3: error: x', fix: 'install g++' });
  if (built) assert.deepEqual(unavailableNotes('solution'), []);
});

test('a kernel.cc newer than its built modules gives a rebuild warning; an older one none', { skip }, (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'native-kernel-stale-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const implDir = path.join(dir, 'native-kernel');
  mkdirSync(implDir);
  const source = path.join(implDir, 'kernel.cc');
  writeFileSync(source, '// edited\n');
  const future = new Date(Date.now() + 3_600_000);
  utimesSync(source, future, future);
  assert.match(staleBuildWarning('solution', implDir) ?? '', /^native-kernel\/kernel\.cc \(solution\) changed after the native rungs O0, O3, march were built: they still run the previous code\. Rebuild with `npm run build -w labs\/native-kernel`$/);
  const past = new Date(0);
  utimesSync(source, past, past);
  assert.equal(staleBuildWarning('solution', implDir), null);
});
