/**
 * The triad (native/stream.cc through the binding) against its TypeScript reference, its argument checks, and the
 * rule that sizes its arrays from the last-level cache.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRung, rungStatus, type NativeKernel, type Rung } from '../src/addon.ts';
import {
  describeTriadSize,
  makeTriadInput,
  reachableLastLevelCacheBytes,
  TRIAD_SIZING,
  triadBytes,
  triadElements,
  expectedTriad,
  triadTyped,
} from '../src/triad.ts';

const rungs: Rung[] = ['O0', 'march'];
const skip = rungs.every((r) => rungStatus('solution', r).available) ? false : 'the addon is not built here (npm run build -w labs/native-kernel)';
const f64 = (xs: number[]) => new Float64Array(xs);

test('expectedTriad and triadTyped: [1, 2, 3] + 3 x [10, 20, 30] = [31, 62, 93] (by hand)', () => {
  const input = { kind: 'triad' as const, length: 3, b: f64([1, 2, 3]), c: f64([10, 20, 30]), s: 3 };
  assert.deepEqual([...expectedTriad(input)], [31, 62, 93]);
  const a = f64([9, 9, 9]);
  triadTyped(a, input.b, input.c, input.s);
  assert.deepEqual([...a], [31, 62, 93]);
  assert.equal(triadBytes(3), 72, '24 bytes per element: two reads and one write of a double');
});

test('makeTriadInput: seeded, integers in [-1024, 1024), so b + 3c is exact', () => {
  const x = makeTriadInput(1000, 7);
  assert.deepEqual(x.b, makeTriadInput(1000, 7).b);
  assert.notDeepEqual(x.b, makeTriadInput(1000, 8).b);
  assert.ok([...x.b, ...x.c].every((v) => Number.isInteger(v) && v >= -1024 && v < 1024));
  assert.equal(x.s, 3);
  assert.throws(() => makeTriadInput(0, 1), /length must be a positive integer, got 0/);
});

test('the C++ triad equals the TypeScript reference: odd lengths, uneven splits, 1 thread, more threads than elements', { skip }, () => {
  for (const rung of rungs) {
    const k: NativeKernel = loadRung('solution', rung);
    for (const length of [1, 2, 3, 7, 1001, 4099]) {
      const input = makeTriadInput(length, 20261203);
      const expected = expectedTriad(input);
      for (const threads of [1, 2, 3, 4, 7, 16, 256]) {
        const label = `${rung}, length ${length}, ${threads} threads`;
        // Fresh arrays placed by the threads, as the lab does.
        const a = new Float64Array(length).fill(NaN);
        const b = new Float64Array(length);
        const c = new Float64Array(length);
        k.triadFirstTouch(a, b, c, input.b, input.c, threads);
        assert.deepEqual(b, input.b, `${label}: first touch copies b`);
        assert.deepEqual(c, input.c, `${label}: first touch copies c`);
        assert.ok(a.every((v) => v === 0), `${label}: first touch zeroes a`);
        assert.equal(k.triad(a, b, c, input.s, threads), a, `${label}: returns a`);
        assert.deepEqual(a, expected, label);
        // Straight on the input's arrays too: placement changes where pages live, never the answer.
        const out = new Float64Array(length);
        k.triad(out, input.b, input.c, input.s, threads);
        assert.deepEqual(out, expected, `${label}, unplaced`);
      }
    }
    // b and c may be one array (both are only read).
    const same = f64([1, 2, 3]);
    assert.deepEqual([...k.triad(new Float64Array(3), same, same, 2, 2)], [3, 6, 9]);
  }
});

test('triad arguments are checked with messages that say what is wrong and what to do', { skip }, () => {
  const k = loadRung('solution', 'O3');
  const v = (n: number) => new Float64Array(n);
  assert.throws(() => (k.triad as (...a: unknown[]) => unknown)(v(2), v(2)), { name: 'TypeError', message: 'expected 5 arguments: triad(a, b, c, s, threads), got 2' });
  assert.throws(() => k.triad(v(2), [1, 2] as never, v(2), 3, 1), { name: 'TypeError', message: 'b must be a Float64Array, got an Array' });
  assert.throws(() => k.triad(v(2), v(3), v(2), 3, 1), { name: 'RangeError', message: 'b.length is 3, expected a.length = 2' });
  assert.throws(() => k.triad(v(2), v(2), v(1), 3, 1), { name: 'RangeError', message: 'c.length is 1, expected a.length = 2' });
  assert.throws(() => k.triad(v(2), v(2), v(2), '3' as never, 1), { name: 'TypeError', message: 's must be a number, got a string' });
  assert.throws(() => k.triad(v(2), v(2), v(2), NaN, 1), { name: 'RangeError', message: 's must be a finite number, got NaN' });
  assert.throws(() => k.triad(v(2), v(2), v(2), 3, 0), { name: 'RangeError', message: 'threads must be an integer from 1 to 256, got 0' });
  assert.throws(() => k.triad(v(2), v(2), v(2), 3, 257), { name: 'RangeError', message: 'threads must be an integer from 1 to 256, got 257' });
  const buffer = new ArrayBuffer(6 * 8);
  const a = new Float64Array(buffer, 0, 4);
  const overlapping = new Float64Array(buffer, 16, 4);
  assert.throws(() => k.triad(a, overlapping, v(4), 3, 2), { name: 'RangeError', message: 'a must not share memory with b or c: pass a separate output array' });
  assert.throws(() => k.triad(a, v(4), a, 3, 2), { name: 'RangeError', message: 'a must not share memory with b or c: pass a separate output array' });
  const shared = new Float64Array(new SharedArrayBuffer(16));
  assert.throws(() => k.triad(v(2), shared, v(2), 3, 1), { name: 'TypeError', message: /^b is backed by a SharedArrayBuffer/ });

  const placed = 'a, b and c must be separate arrays, sharing memory neither with each other nor with bSource or cSource: pass fresh Float64Arrays';
  assert.throws(() => k.triadFirstTouch(a, overlapping, v(4), v(4), v(4), 2), { name: 'RangeError', message: placed });
  assert.throws(() => k.triadFirstTouch(v(4), v(4), a, v(4), overlapping, 2), { name: 'RangeError', message: placed });
  assert.throws(() => k.triadFirstTouch(v(2), v(2), v(2), v(2), v(3), 1), { name: 'RangeError', message: 'cSource.length is 3, expected a.length = 2' });
  assert.throws(() => (k.triadFirstTouch as (...a: unknown[]) => unknown)(v(2), v(2), v(2), v(2), v(2)), {
    name: 'TypeError',
    message: 'expected 6 arguments: triadFirstTouch(a, b, c, bSource, cSource, threads), got 5',
  });
  // The sources may share memory: they are only read.
  const source = f64([1, 2]);
  const [pa, pb, pc] = [v(2), v(2), v(2)];
  k.triadFirstTouch(pa, pb, pc, source, source, 2);
  assert.deepEqual([...pb, ...pc], [1, 2, 1, 2]);
});

test('triadElements: 4 x the last-level cache in doubles, a power of two, from 2^23 to 2^26 (STREAM rule)', () => {
  const MiB = 2 ** 20;
  // Reference: 4 x 32 MiB = 128 MiB = 2^24 doubles of 8 bytes.
  assert.equal(triadElements(32 * MiB), 2 ** 24);
  // 4 x 40 MiB = 160 MiB = 20971520 doubles, rounded up to 2^25.
  assert.equal(triadElements(40 * MiB), 2 ** 25);
  assert.equal(triadElements(1 * MiB), TRIAD_SIZING.minElements, 'never below 64 MiB per array');
  assert.equal(triadElements(2048 * MiB), TRIAD_SIZING.maxElements, 'never above 512 MiB per array');
  assert.equal(triadElements(null), 2 ** 25, 'unknown cache: assume 64 MiB');
  assert.equal(describeTriadSize(2 ** 24), '2^24 doubles (128 MiB each, 384 MiB in all)');
});

test('reachableLastLevelCacheBytes: the top data cache times the instances the job reaches', () => {
  const caches = [
    { level: 1, type: 'Data', sizeKiB: 48, sharedByCpus: 2 },
    { level: 1, type: 'Instruction', sizeKiB: 32, sharedByCpus: 2 },
    { level: 2, type: 'Unified', sizeKiB: 2048, sharedByCpus: 2 },
    { level: 3, type: 'Unified', sizeKiB: 32 * 1024, sharedByCpus: 16 },
  ];
  // 32 CPUs, 16 per L3: two L3 caches of 32 MiB.
  assert.equal(reachableLastLevelCacheBytes({ logicalCpus: 32, caches }), 64 * 2 ** 20);
  // 2 CPUs of one L3 (this course's VM): that one cache.
  assert.equal(reachableLastLevelCacheBytes({ logicalCpus: 2, caches: caches.map((c) => (c.level === 3 ? { ...c, sharedByCpus: 2 } : c)) }), 32 * 2 ** 20);
  assert.equal(reachableLastLevelCacheBytes({ logicalCpus: 4, caches: [] }), null);
});
