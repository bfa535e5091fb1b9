/**
 * Case identity: one escaped key per case (caseKey) and per parameter record (paramsKey), so two different cases
 * never share one. The old key joined `k=v` with commas unescaped: `{a: "1,b=2"}` and `{a: 1, b: 2}` both read
 * "a=1,b=2", and a run's headline (or a graded case) could be taken from the wrong case.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze, caseKey, paramsKey, paramsSeedText, type AnalysisInput, type Params } from '@parallel-course/core';

test('paramsKey: different parameter records never share a key; key order does not matter', () => {
  assert.notEqual(paramsKey({ a: '1,b=2' }), paramsKey({ a: 1, b: 2 }), 'a comma and an equals sign inside a value');
  assert.notEqual(paramsKey({ n: 1 }), paramsKey({ n: '1' }), 'a number and the same digits as text');
  assert.notEqual(paramsKey({ 'a=1,b': 2 }), paramsKey({ a: '1,b=2' }), 'separators inside a key');
  assert.equal(paramsKey({ size: 512, threads: 2 }), paramsKey({ threads: 2, size: 512 }));
  assert.equal(paramsKey({ size: 512, threads: 2 }, ['size']), paramsKey({ size: 512 }));
});

test('caseKey: the variant is part of the key, escaped like the params', () => {
  assert.notEqual(caseKey({ variant: 'x|k=1', params: {} }), caseKey({ variant: 'x', params: { k: '1|' } }), 'a separator inside the variant');
  assert.notEqual(caseKey({ variant: 'x', params: { k: '1,j=2' } }), caseKey({ variant: 'x', params: { k: 1, j: 2 } }));
  assert.equal(caseKey({ variant: 'pool', params: { workers: 2, size: 8 } }), caseKey({ variant: 'pool', params: { size: 8, workers: 2 } }));
});

test('the seed text stays as every committed run was resampled with it', () => {
  // Changing it changes every recomputed interval: `npm run report -- validate` would reject the committed runs.
  assert.equal(paramsSeedText({ threads: 2, size: 512 }), 'size=512,threads=2');
  assert.equal(paramsSeedText({}), '');
});

test("the headline is the declared case, not another whose params read the same as 'k=v' text", () => {
  const input = (variant: string, params: Params, ms: number): AnalysisInput => ({
    variant,
    params,
    samplesMs: [ms, ms * 1.01, ms * 0.99, ms, ms * 1.02],
    workPerSample: { amount: 1, unit: 'call' },
    observations: {},
  });
  const inputs = [input('base', {}, 10), input('v', { a: '1,b=2' }, 5), input('v', { a: 1, b: 2 }, 2)];
  const analysis = analyze(inputs, { baseline: 'base', headline: { variant: 'v', params: { a: 1, b: 2 } }, seed: 1, resamples: 200, availableParallelism: 2 });
  assert.deepEqual(analysis.headline?.params, { a: 1, b: 2 });
  assert.equal(analysis.headline?.speedup, 5);
});
