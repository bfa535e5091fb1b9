/**
 * The judge's position check of an output too large to send (issue 42): lab.outputLength and expectedAtPositions
 * agree with the full expected output (the textbook product, the triad's definition) at every position asked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import lab from '../src/lab.ts';
import { makeInput } from '../src/matrices.ts';
import { freshTriadInput, makeTriadInput } from '../src/triad.ts';

test('expectedAtPositions is the expected output at those positions, for a product and a fresh triad', async () => {
  for (const input of [makeInput(7, 3, 1), makeInput(16, 5, 1), freshTriadInput(makeTriadInput(4099, 2), 12_345)]) {
    const expected = (await lab.expected(input)) as Float64Array;
    const length = lab.outputLength!(input);
    assert.equal(length, expected.length);
    const positions = [0, length - 1, ...Array.from({ length: 50 }, (_, k) => (k * 7919) % length)];
    const at = lab.expectedAtPositions!(input, positions);
    // The lab's own comparator, as the judge uses it; an entry off by 1e-6 is found, at its own position.
    assert.ok(lab.comparator.compare(Float64Array.from(positions, (p) => expected[p]!), at).equal);
    const off = Float64Array.from(at);
    off[3] = off[3]! + 1e-6;
    const comparison = lab.comparator.compare(at, off);
    assert.equal(comparison.equal, false);
    assert.equal(comparison.firstMismatch?.index, 3);
  }
});
