import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { measureCases, measureGroups, pairSampleOrder, roundOrder, roundUnits, type MeasureTarget } from '../src/measure/measure.ts';
import { collectGarbage } from '../src/measure/heap.ts';

describe('roundOrder', () => {
  it('rotates the cases by one each round', () => {
    assert.deepEqual(roundOrder(3, 0), [0, 1, 2]);
    assert.deepEqual(roundOrder(3, 1), [1, 2, 0]);
    assert.deepEqual(roundOrder(3, 4), [1, 2, 0]);
  });
});

describe('roundUnits', () => {
  it("keeps a pair's cases side by side, where the first stands, and rotates the units by one each round", () => {
    const pairs = [undefined, 'p', undefined, 'p'];
    assert.deepEqual(roundUnits(pairs, 0), [[0], [1, 3], [2]]);
    assert.deepEqual(roundUnits(pairs, 1), [[1, 3], [2], [0]]);
    assert.deepEqual(roundUnits(pairs, 5), [[2], [0], [1, 3]]);
  });
  it('is the plain rotation where no case has a pair', () => {
    assert.deepEqual(roundUnits([undefined, undefined, undefined], 1), roundOrder(3, 1).map((i) => [i]));
  });
  it('keeps two pairs apart', () => {
    assert.deepEqual(roundUnits(['p', 'q', 'p', 'q'], 0), [[0, 2], [1, 3]]);
  });
});

describe('pairSampleOrder', () => {
  it('takes a round ABBA, the first side alternating by round', () => {
    assert.deepEqual(pairSampleOrder(2, 0), [0, 1, 1, 0]);
    assert.deepEqual(pairSampleOrder(2, 1), [1, 0, 0, 1]);
    assert.deepEqual(pairSampleOrder(3, 2), [0, 1, 1, 0, 0, 1]);
    assert.deepEqual(pairSampleOrder(1, 3), [1, 0]);
  });
  it("puts each side's samples of a round at the same mean position for an even count", () => {
    for (const n of [2, 4, 6]) {
      const order = pairSampleOrder(n, 0);
      const mean = (side: number) => order.reduce<number>((sum, s, i) => sum + (s === side ? i : 0), 0) / n;
      assert.equal(mean(0), mean(1), `n = ${n}`);
    }
  });
});

describe('measureGroups', () => {
  it('keeps ungrouped cases together and orders groups by first appearance', () => {
    assert.deepEqual(measureGroups([undefined, 'scaling', undefined, 'scaling', 'io']), [[0, 2], [1, 3], [4]]);
  });
  it('gives one group when no case names one', () => {
    assert.deepEqual(measureGroups([undefined, undefined]), [[0, 1]]);
  });
});

describe('measureCases with groups', () => {
  it('measures every round of one group before the next group starts, interleaving within a group', async () => {
    const calls: string[] = [];
    const target = (label: string, group?: string): MeasureTarget<null, string> => ({
      key: label,
      label,
      input: null,
      check: (output) => ({ equal: output === label, firstMismatch: null, maxAbsError: null, maxRelError: null }),
      sampleLimitMs: 10_000,
      ...(group ? { group } : {}),
      instance: {
        run: () => {
          calls.push(label);
          return label;
        },
        teardown() {},
      },
    });
    const measured = await measureCases(
      [target('a'), target('t1', 'threads'), target('b'), target('t2', 'threads')],
      { warmupSamples: 1, rounds: 2, samplesPerRound: 1 },
    );
    // Warm-up a, b; rounds [a, b] then [b, a]; then warm-up t1, t2; rounds [t1, t2], [t2, t1].
    assert.deepEqual(calls, ['a', 'b', 'a', 'b', 'b', 'a', 't1', 't2', 't1', 't2', 't2', 't1']);
    assert.deepEqual(measured.map((m) => [m.label, m.samplesMs.length, m.sampleRounds, m.failed]), [
      // Rounds are numbered across the run: the second group's rounds follow the first's, so no pair crosses groups.
      ['a', 2, [0, 1], false], ['t1', 2, [2, 3], false], ['b', 2, [0, 1], false], ['t2', 2, [2, 3], false],
    ]);
  });
});

describe('measureCases checks every sample', () => {
  it('fails a case whose output is wrong on one sample in the middle, names that sample, and keeps the others', async () => {
    let calls = 0;
    const failures: [number, string, string, number | null][] = [];
    const right = (label: string): MeasureTarget<null, string> => ({
      key: label,
      label,
      input: null,
      check: (output) => ({ equal: output === 'ok', firstMismatch: output === 'ok' ? null : { index: 0, expected: 'ok', actual: output }, maxAbsError: null, maxRelError: null }),
      sampleLimitMs: 10_000,
      instance: { run: () => 'ok', teardown() {} },
    });
    const flaky: MeasureTarget<null, string> = {
      ...right('flaky'),
      // Sample order: warm-up (call 1), then rounds of 2: calls 2-3, 4-5, 6-7. Wrong on call 5 only: measured sample #3.
      instance: { run: () => (++calls === 5 ? 'bad' : 'ok'), teardown() {} },
    };
    const measured = await measureCases([right('steady'), flaky], { warmupSamples: 1, rounds: 3, samplesPerRound: 2 }, {
      onCaseFailed: (i, stage, reason, sample) => failures.push([i, stage, reason, sample]),
    });
    assert.equal(measured[1]?.failed, true);
    assert.deepEqual(measured[1]?.samplesMs, []);
    assert.equal(measured[0]?.failed, false);
    assert.equal(measured[0]?.samplesMs.length, 6);
    assert.deepEqual(measured[0]?.sampleRounds, [0, 0, 1, 1, 2, 2]);
    assert.equal(failures.length, 1);
    assert.equal(failures[0]?.[3], 3);
    assert.match(failures[0]?.[2] ?? '', /^wrong output on measured sample #3 at \[0\]: expected ok, got bad/);
    assert.equal(calls, 5, 'not run again after it failed');
  });

  it('a throw fails that case alone', async () => {
    const failures: string[] = [];
    const target = (label: string, run: () => string): MeasureTarget<null, string> => ({
      key: label, label, input: null, sampleLimitMs: 10_000,
      check: () => ({ equal: true, firstMismatch: null, maxAbsError: null, maxRelError: null }),
      instance: { run, teardown() {} },
    });
    const measured = await measureCases(
      [target('ok', () => 'x'), target('throws', () => { throw new Error('boom'); })],
      { warmupSamples: 0, rounds: 2, samplesPerRound: 1 },
      { onCaseFailed: (_i, _stage, reason) => failures.push(reason) },
    );
    assert.deepEqual(failures, ['threw while it was measured (measure): boom']);
    assert.deepEqual(measured.map((m) => [m.samplesMs.length, m.failed]), [[2, false], [0, true]]);
  });
});

describe('collectGarbage', () => {
  it('runs a full collection that frees an unreachable object', async () => {
    let collected = false;
    const registry = new FinalizationRegistry(() => {
      collected = true;
    });
    (() => registry.register({ payload: new Array(1000).fill(0) }, 'x'))();
    assert.equal(collectGarbage(), true);
    // Finalisers run on a later task once the object is gone.
    for (let i = 0; i < 20 && !collected; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(collected, true);
  });
});

describe('measureCases with fresh inputs (LabInputs.measureAt)', () => {
  it('runs every sample, warm-up included, on its own input, so a memoising answer never hits its cache', async () => {
    const memo = new Map<number, number>();
    let hits = 0;
    const checked: number[] = [];
    const target: MeasureTarget<number, number> = {
      key: 'memo',
      label: 'memo',
      input: 0,
      inputAt: (sample) => 1000 + sample,
      check: (output, input) => {
        checked.push(input);
        return { equal: output === input * 2, firstMismatch: null, maxAbsError: null, maxRelError: null };
      },
      sampleLimitMs: 10_000,
      instance: {
        run: (x) => {
          if (memo.has(x)) hits++;
          else memo.set(x, x * 2);
          return memo.get(x)!;
        },
        teardown() {},
      },
    };
    const [measured] = await measureCases([target], { warmupSamples: 2, rounds: 3, samplesPerRound: 2 });
    assert.equal(measured?.failed, false);
    assert.equal(hits, 0, 'a memoised answer was reused');
    assert.deepEqual(checked, [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007], 'each output is checked against the input it ran on');
  });
});
