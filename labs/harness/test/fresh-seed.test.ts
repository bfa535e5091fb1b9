/**
 * freshSeed (lab-definition.ts), the seed of a fresh input that native-kernel, task-granularity and task-graph make
 * their inputs from: one-to-one in the sample number, and never the run's own seed (the measured input the check saw).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRESH_INPUT_INDICES, freshSeed } from '../src/lab-definition.ts';

/** The inverse of an odd 32-bit word mod 2^32 (Newton's iteration: each step doubles the correct low bits). */
function inverseOdd(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x >>> 0;
}

test('freshSeed: distinct samples get distinct seeds, none of them the run seed', () => {
  for (const seed of [0, 1, 42, 0x7fffffff, 0xffffffff]) {
    const seen = new Set<number>();
    for (let sample = 1; sample < 2 ** 16; sample++) seen.add(freshSeed(seed, sample));
    assert.equal(seen.size, 2 ** 16 - 1, `seed ${seed}: one seed per sample`);
    assert.ok(!seen.has(seed >>> 0), `seed ${seed}: no sample gets the run's own seed`);
  }
  assert.ok(Number.isInteger(freshSeed(1, FRESH_INPUT_INDICES - 1)));
});

test("freshSeed: the one sample whose mix would give the run's seed gets the next seed instead", () => {
  // The mix is imul(sample, 0x9e3779b1) ^ imul(seed, 0x85ebca6b) ^ 0x5bd1e995; solved for mix === seed.
  const seed = 1234567;
  const target = (seed ^ Math.imul(seed, 0x85ebca6b) ^ 0x5bd1e995) >>> 0;
  const sample = Math.imul(target, inverseOdd(0x9e3779b1)) >>> 0;
  assert.equal(Math.imul(sample, 0x9e3779b1) >>> 0, target, 'the inverse is right');
  assert.equal(freshSeed(seed, sample), seed + 1);
});
