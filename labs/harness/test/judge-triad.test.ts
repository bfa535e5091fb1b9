/**
 * The judge's check of native-kernel's triad (issue 42, gap 4): the judge made its own copy of each sample's input,
 * and for the triad that was b and c, 1 GiB at 2^26 elements beside the runner's arrays (at 2^27 a full `npm test`
 * met the kernel's OOM killer). Now b[i] and c[i] are a pure function of the input's seed and i, the judge's input
 * holds no array, and it computes the expected a[i] at the positions it draws. Checked here: the judge's array memory
 * does not grow with the triad's length (it grew by 2 arrays of the length before), and a triad wrong at 0.1% of its
 * entries is still caught over a quick run's samples.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { labOutputJudge, type OutputCase } from '../src/measure/judge-outputs.ts';
import { OUTPUT_BYTES_BOUND, valuesAt } from '../src/measure/sample-server.ts';
import type { LabContext, LabDefinition } from '../src/lab-definition.ts';
import nativeKernel from '../../native-kernel/src/lab.ts';
import { expectedTriad, TRIAD_PARAM, type TriadInput } from '../../native-kernel/src/triad.ts';

const lab = nativeKernel as unknown as LabDefinition<unknown, unknown>;
const CTX: LabContext = { impl: 'solution', implDir: '/nowhere', rootDir: '/nowhere', quick: true, availableParallelism: 2, seed: 11 };

/** Typed arrays and array buffers reachable from `x`. */
function arraysIn(x: unknown, seen = new Set<unknown>()): number {
  if (typeof x !== 'object' || x === null || seen.has(x)) return 0;
  seen.add(x);
  if (ArrayBuffer.isView(x) || x instanceof ArrayBuffer) return 1;
  return Object.values(x).reduce((n: number, v) => n + arraysIn(v, seen), 0);
}

function triadCase(elements: number, samples: number): OutputCase {
  return { key: `triad ${elements}`, definition: { variant: 'triad', params: { [TRIAD_PARAM]: elements, threads: 1 } }, samples, checked: samples - 1 };
}

test("the judge holds no array of a triad input: its memory does not grow with the triad's length", async () => {
  for (const elements of [2 ** 20, 2 ** 24]) {
    const before = process.memoryUsage().arrayBuffers;
    const c = triadCase(elements, 7);
    const judge = await labOutputJudge(lab, CTX, [c]);
    const samples = Array.from({ length: 7 }, () => judge.next(c.key)[0]!);
    // Its positions and the expected values there, as it checks a sample.
    const positions = judge.positions(c.key, samples[0]!, elements);
    assert.ok(Array.isArray(positions), JSON.stringify(positions));
    const grown = process.memoryUsage().arrayBuffers - before;
    // Before: b and c of the measured input, 2 x 8 bytes x 2^24 = 256 MiB.
    assert.ok(grown < 2 ** 20, `the judge's array buffers grew by ${grown} bytes for a triad of ${elements} elements`);
    for (const sample of samples) assert.equal(arraysIn(sample.input), 0, 'a seed, a length and a scalar: no array');
    const inputs = await lab.inputs({ [TRIAD_PARAM]: elements }, CTX);
    assert.equal(arraysIn(inputs.check) + arraysIn(inputs.measure), 0, "the lab's triad inputs hold no array");
  }
});

test('a triad wrong at 0.1% of its entries is caught at positions over a quick run of samples; a right one passes', async () => {
  const elements = 2 ** 20; // 8 MiB: over the bound, so checked at positions
  assert.ok(elements * 8 > OUTPUT_BYTES_BOUND);
  const c = triadCase(elements, 7);
  const judge = await labOutputJudge(lab, CTX, [c]);
  let caught = 0;
  for (let k = 0; k < c.samples; k++) {
    const sample = judge.next(c.key)[0]!;
    const right = expectedTriad(sample.input as TriadInput);
    const wrong = right.slice();
    // 0.1% of the entries (1,049), each off by one, at positions drawn here.
    for (let w = 0; w < Math.ceil(elements / 1000); w++) wrong[Math.floor(Math.random() * elements)]! += 1;
    const positions = judge.positions(c.key, sample, elements) as number[];
    assert.equal(judge.checkAt(c.key, sample, positions, valuesAt(right, positions)).equal, true, 'the right answer passes');
    const again = judge.positions(c.key, sample, elements) as number[];
    if (!judge.checkAt(c.key, sample, again, valuesAt(wrong, again)).equal) caught++;
  }
  // Missed on every sample with probability at most 1e-6 (output-positions.ts positionsPerSample); each caught with
  // probability about 1 - 0.999^(positions per sample), 0.9 here (2,302 positions).
  assert.ok(caught > 0, 'the wrong triad is caught');
});
