import assert from 'node:assert/strict';
import { isNotImplemented, type LabContext, resolveHeadline, workerSweep } from '@parallel-course/harness';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { blasStatus, blockedStatus, rungStatus, staleBuildWarning } from '../src/addon.ts';
import lab, { FULL_LARGE_SIZES, largestBlockedSize, THREADED_PRODUCT_VARIANTS, LARGE_GROUP, LARGEST_SIZE, QUICK_LARGE_SIZES, QUICK_SIZES, QUICK_THREAD_SIZES, threadCounts, triadElementsHere, triadSizeHere, unavailableNotes } from '../src/lab.ts';
import { describeTriadSize, isTriadInput, TRIAD_CHECK_LENGTHS, triadArraysHeld } from '../src/triad.ts';
import { paramsKey } from '@parallel-course/core';

const ctx = (impl: 'exercise' | 'solution', quick = true, availableParallelism = 2): LabContext => ({
  impl,
  implDir: `/unused/${impl}`,
  rootDir: '/unused',
  quick,
  availableParallelism,
  seed: 20261202,
});
const built = (['solution', 'exercise'] as const).every((impl) => rungStatus(impl, 'march').available && blockedStatus(impl).available);
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
    // Only the threads rung and the triad declare `workers` (their thread count), so the harness's efficiency compares
    // them with themselves on one thread; the single-threaded rungs have none.
    const threaded = (v: string) => THREADED_PRODUCT_VARIANTS.includes(v) || v === 'triad';
    assert.ok(cases.every((c) => (threaded(c.variant) ? c.workers === c.params.threads : c.workers === undefined)));
    // The threads rung is measured in its own group, after the single-threaded rungs' garbage is collected.
    assert.ok(cases.every((c) => THREADED_PRODUCT_VARIANTS.includes(c.variant) === (c.measureGroup === 'native-threads')));
    // The blocked kernel (and the BLAS, where built) on 1..P threads beside kernel.cc's loop.
    for (const v of ['native-blocked-threads', ...(blasStatus().available ? ['native-blas-threads'] : [])]) {
      assert.deepEqual(cases.filter((c) => c.variant === v).map((c) => c.params), (quick ? QUICK_THREAD_SIZES : [64, 256, 512]).flatMap((size) => [1, 2].map((threads) => ({ size, threads }))), v);
    }
  }
  const quickCases = lab.cases(ctx('solution')).filter((c) => c.params.size !== undefined);
  const ladder = quickCases.filter((c) => !THREADED_PRODUCT_VARIANTS.includes(c.variant) && c.variant !== 'ts-typed' && c.measureGroup !== LARGE_GROUP);
  assert.deepEqual([...new Set(ladder.map((c) => Number(c.params.size)))], QUICK_SIZES);
  // The baseline runs at the ladder's sizes and at each threads size, so every threads case has a speedup.
  const baselineSizes = quickCases.filter((c) => c.variant === 'ts-typed').map((c) => Number(c.params.size));
  assert.deepEqual(baselineSizes, [...new Set([...QUICK_SIZES, ...QUICK_THREAD_SIZES])]);
  assert.deepEqual([...new Set(quickCases.filter((c) => THREADED_PRODUCT_VARIANTS.includes(c.variant)).map((c) => Number(c.params.size)))], QUICK_THREAD_SIZES);
});

test('every solution case matches the reference on its check inputs, the threaded ones on 1..64 threads (P = 64); work per sample in flop, or in bytes for the triad', { skip }, async () => {
  // The cases planned for P = 2 and, once each, those P = 64 adds (native threads and the triad up to 64 threads, many
  // more threads than rows at the small check sizes): no other test checks 64 threads, and copy-build.test pins P.
  const planned = [...lab.cases(ctx('solution')), ...lab.cases(ctx('solution', true, 64))];
  const definitions = [...new Map(planned.map((d) => [`${d.variant} ${paramsKey(d.params)}`, d])).values()];
  assert.ok(definitions.some((d) => d.variant === 'native-blocked-threads' && d.params.threads === 64));
  assert.ok(definitions.some((d) => d.variant === 'triad' && d.params.threads === 64));
  // Inputs, and the reference's outputs for them, shared by cases with the same input params, as the harness shares
  // them (the triad's measured input is large; a TypeScript product at n = 512 takes a fifth of a second).
  const inputsByKey = new Map<string, Awaited<ReturnType<typeof lab.inputs>>>();
  const expectedByInput = new Map<Awaited<ReturnType<typeof lab.inputs>>['check'][number], Awaited<ReturnType<typeof lab.expected>>>();
  for (const definition of definitions) {
    const key = paramsKey(definition.params, lab.inputParams);
    const inputs = inputsByKey.get(key) ?? (await lab.inputs(definition.params, ctx('solution')));
    inputsByKey.set(key, inputs);
    const instance = await definition.setup(ctx('solution'));
    try {
      for (const input of inputs.check) {
        const expected = expectedByInput.get(input) ?? (await lab.expected(input));
        expectedByInput.set(input, expected);
        const comparison = lab.comparator.compare(expected, await instance.run(input));
        const size = isTriadInput(input) ? `length=${input.length}` : `n=${input.n}`;
        assert.equal(comparison.equal, true, `${definition.variant} ${JSON.stringify(definition.params)} ${size}: ${JSON.stringify(comparison.firstMismatch)}`);
      }
    } finally {
      await instance.teardown();
    }
    const measure = inputs.measure;
    if (isTriadInput(measure)) {
      // Small check inputs, one large measured input: 24 bytes per element (2 reads, 1 write).
      assert.deepEqual(inputs.check.map((i) => (isTriadInput(i) ? i.length : -1)), TRIAD_CHECK_LENGTHS);
      assert.equal(measure.length, definition.params.elements);
      assert.deepEqual(lab.workPerSample(measure), { amount: 24 * measure.length, unit: 'bytes' });
    } else {
      assert.deepEqual(lab.workPerSample(measure), { amount: measure.repeats * 2 * measure.n ** 3, unit: 'flop' });
    }
  }
});

test('the top rungs: native-blocked (and native-blas where a BLAS was built) at every ladder size and, with native-march, at the large sizes in their own group', { skip }, () => {
  const top = ['native-march', 'native-blocked', ...(blasStatus().available ? ['native-blas'] : [])];
  for (const quick of [true, false]) {
    const cases = lab.cases(ctx('solution', quick));
    const large = quick ? QUICK_LARGE_SIZES : FULL_LARGE_SIZES;
    const labels = (group: string | undefined) => cases.filter((c) => c.measureGroup === group).map((c) => `${c.variant}:${c.params.size}`);
    assert.deepEqual(labels(LARGE_GROUP), large.flatMap((size) => top.map((v) => `${v}:${size}`)));
    for (const v of top) assert.ok(labels(undefined).includes(`${v}:${LARGEST_SIZE}`), v);
  }
});

test('the triad: one case per thread count of workerSweep(P) for P = 1, 2, 16, with its TypeScript baseline, in its own group', { skip }, () => {
  for (const p of [1, 2, 16]) {
    // Sized by P too: more thread counts hold more arrays (triad.ts triadSize).
    const elements = triadElementsHere(p);
    assert.ok(elements >= 2 ** 23 && Number.isInteger(Math.log2(elements)), `arrays of 2^23 doubles or more, a power of two: ${elements}`);
    for (const quick of [true, false]) {
      const cases = lab.cases(ctx('solution', quick, p));
      const triads = cases.filter((c) => c.variant === 'triad');
      assert.deepEqual(triads.map((c) => c.params.threads), workerSweep(p), `P = ${p}${quick ? ', quick' : ''}`);
      for (const c of triads) {
        assert.deepEqual(c.params, { elements, threads: c.params.threads });
        assert.equal(c.workers, c.params.threads, 'workers: threads, so the harness computes efficiency against 1 thread');
        assert.equal(c.measureGroup, 'triad');
      }
      // The baseline shares the triad's input (elements) and group, so every triad case has a paired speedup.
      const baseline = cases.filter((c) => c.variant === 'ts-typed' && c.params.elements !== undefined);
      assert.deepEqual(baseline.map((c) => [c.params, c.measureGroup]), [[{ elements }, 'triad']]);
    }
  }
  // The triad is measured last: its group is the last to appear.
  assert.equal(lab.cases(ctx('solution')).at(-1)?.measureGroup, 'triad');
  // The run's notes say the length and which rule set it (triad.ts triadSize: the cache, the job's memory or the floor).
  const size = triadSizeHere(2);
  const note = lab.notes!(ctx('solution')).find((n) => n.startsWith('triad: ')) ?? '';
  assert.ok(note.startsWith(`triad: 3 arrays of ${describeTriadSize(size.elements)} per thread count: `), note);
  assert.match(note, { cache: /4 x the last-level cache this job's CPUs reach/, memory: /; held to 25% of the [\d.]+ GiB this job may use/, floor: /held at the floor/ }[size.limitedBy]);
  // The sandbox's memory for the run covers the arrays a runner holds, plus 3 GiB for the rest.
  assert.equal(lab.memoryBytes!(ctx('solution')), 8 * size.elements * triadArraysHeld(threadCounts(2).length) + 3 * 2 ** 30);
});

test('the exercise: TypeScript rungs and the BLAS pass, every native rung of kernel.cc and of blocked.cc fails kindly with "not implemented: ..." naming its file', { skip }, async () => {
  // native-blas runs the library, not learner code; native-blocked and native-blocked-threads run the learner's blocked.cc.
  const reference = new Set(['native-blas', 'native-blas-threads']);
  const blocked = new Set(['native-blocked', 'native-blocked-threads']);
  const seen = new Set<string>();
  for (const definition of lab.cases(ctx('exercise')).filter((c) => c.params.size === 4 || THREADED_PRODUCT_VARIANTS.includes(c.variant))) {
    const inputs = await lab.inputs(definition.params, ctx('exercise'));
    const instance = await definition.setup(ctx('exercise'));
    const input = inputs.check[0]!;
    if (definition.variant.startsWith('native-') && !reference.has(definition.variant)) {
      const file = blocked.has(definition.variant) ? /exercises\/native-kernel\/blocked\.cc/ : /exercises\/native-kernel\/kernel\.cc/;
      await assert.rejects(async () => instance.run(input), (error: Error) => {
        assert.ok(isNotImplemented(error), error.message);
        assert.match(error.message, file, definition.variant);
        return true;
      });
      seen.add(definition.variant);
    } else {
      assert.equal(lab.comparator.compare(await lab.expected(input), await instance.run(input)).equal, true);
    }
    await instance.teardown();
  }
  for (const v of ['native-march', 'native-blocked', 'native-threads', 'native-blocked-threads']) assert.ok(seen.has(v), v);
});

test('grading: the learner native-march at n = 256 and native-blocked at the largest size the run measures it (1024 full, 512 quick), each a case of the sweep; the blocked one optional (its challenge is)', { skip }, () => {
  for (const quick of [true, false]) {
    const graded = lab.grading!.cases(ctx('exercise', quick));
    const size = quick ? 512 : 1024;
    assert.deepEqual(graded, [{ variant: 'native-march', params: { size: LARGEST_SIZE } }, { variant: 'native-blocked', params: { size }, optional: true }]);
    assert.equal(largestBlockedSize(quick), Math.max(...lab.cases(ctx('solution', quick)).filter((c) => c.variant === 'native-blocked').map((c) => Number(c.params.size))));
    const cases = lab.cases(ctx('exercise', quick));
    for (const g of graded) assert.ok(cases.some((c) => c.variant === g.variant && c.params.size === g.params.size), JSON.stringify(g));
  }
  assert.equal(lab.grading!.target, 0.8);
  assert.match(lab.grading!.targetText, /kernel\.cc .*blocked\.cc/);
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
  // Built: no rung is unavailable, except the BLAS rungs on a machine without OpenBLAS (CI requires them).
  const blasMayBeMissing = !blasStatus().available && process.env.NATIVE_KERNEL_REQUIRE_BLAS !== '1';
  if (built) assert.deepEqual(unavailableNotes('solution').filter((note) => !(blasMayBeMissing && /native-blas/.test(note))), []);
});

test('a kernel.cc or blocked.cc newer than its built modules gives a rebuild warning naming it; older ones none', { skip }, (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'native-kernel-stale-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const implDir = path.join(dir, 'native-kernel');
  mkdirSync(implDir);
  const kernel = path.join(implDir, 'kernel.cc');
  const blocked = path.join(implDir, 'blocked.cc');
  for (const file of [kernel, blocked]) writeFileSync(file, '// edited\n');
  const future = new Date(Date.now() + 3_600_000);
  const past = new Date(0);
  utimesSync(kernel, future, future);
  utimesSync(blocked, past, past);
  assert.match(staleBuildWarning('solution', implDir) ?? '', /^native-kernel\/kernel\.cc \(solution\) changed after the rungs native-O0, native-O3, native-march were built: they still run the previous code\. Rebuild with `npm run build -w labs\/native-kernel`$/);
  utimesSync(blocked, future, future);
  assert.match(staleBuildWarning('solution', implDir) ?? '', /^native-kernel\/kernel\.cc and native-kernel\/blocked\.cc \(solution\) changed after the rungs native-O0, native-O3, native-march, native-blocked, native-blocked-threads were built/);
  utimesSync(kernel, past, past);
  assert.match(staleBuildWarning('solution', implDir) ?? '', /^native-kernel\/blocked\.cc \(solution\) changed after the rungs native-blocked, native-blocked-threads were built/);
  utimesSync(blocked, past, past);
  assert.equal(staleBuildWarning('solution', implDir), null);
});
