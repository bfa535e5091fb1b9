import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { measureCases, measureGroups, roundOrder, type MeasureTarget } from '../src/measure.ts';
import { collectGarbage } from '../src/heap.ts';

describe('roundOrder', () => {
  it('rotates the cases by one each round', () => {
    assert.deepEqual(roundOrder(3, 0), [0, 1, 2]);
    assert.deepEqual(roundOrder(3, 1), [1, 2, 0]);
    assert.deepEqual(roundOrder(3, 4), [1, 2, 0]);
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
      label,
      input: null,
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
      { warmupIterations: 1, rounds: 2, iterationsPerRound: 1 },
    );
    // Warm-up a, b; rounds [a, b] then [b, a]; then warm-up t1, t2; rounds [t1, t2], [t2, t1].
    assert.deepEqual(calls, ['a', 'b', 'a', 'b', 'b', 'a', 't1', 't2', 't1', 't2', 't2', 't1']);
    assert.deepEqual(measured.map((m) => [m.label, m.samplesMs.length, m.lastOutput]), [
      ['a', 2, 'a'], ['t1', 2, 't1'], ['b', 2, 'b'], ['t2', 2, 't2'],
    ]);
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
