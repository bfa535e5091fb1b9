/**
 * The triad (native/stream.cc through the binding) against its TypeScript reference, its argument checks, its inputs
 * (b[i] and c[i] a pure function of the seed and i), and the rule that sizes its arrays from the last-level cache and
 * the job's memory.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRung, rungStatus, type NativeKernel, type Rung } from '../src/addon.ts';
import {
  describeTriadSize,
  describeTriadSizing,
  makeTriadInput,
  reachableLastLevelCacheBytes,
  TRIAD_SIZING,
  triadArraysHeld,
  triadAt,
  triadBytes,
  triadSize,
  triadSourceAt,
  triadSources,
  expectedTriad,
  triadTyped,
} from '../src/triad.ts';

const rungs: Rung[] = ['O0', 'march'];
const skip = rungs.every((r) => rungStatus('solution', r).available) ? false : 'the addon is not built here (npm run build -w labs/native-kernel)';
const f64 = (xs: number[]) => new Float64Array(xs);

test('triadTyped: [1, 2, 3] + 3 x [10, 20, 30] = [31, 62, 93] (by hand)', () => {
  const a = f64([9, 9, 9]);
  triadTyped(a, f64([1, 2, 3]), f64([10, 20, 30]), 3);
  assert.deepEqual([...a], [31, 62, 93]);
  assert.equal(triadBytes(3), 72, '24 bytes per element: two reads and one write of a double');
});

test('b[i] and c[i] are a pure function of (seed, i): the same alone, filled, in the expected output and at positions', () => {
  // Reference: lowbias32 in uint32 arithmetic (a Python transcription gave the same): seed 1, entries 0..3.
  assert.deepEqual([0, 1, 2, 3].map((i) => triadSourceAt(1, 0, i)), [721, 601, 425, -382]);
  assert.deepEqual([0, 1, 2, 3].map((i) => triadSourceAt(1, 1, i)), [-802, 394, -175, 812]);
  const input = makeTriadInput(1000, 7);
  const { b, c } = triadSources(input);
  assert.deepEqual([...b.subarray(0, 5)], [0, 1, 2, 3, 4].map((i) => triadSourceAt(input.seed, 0, i)));
  assert.deepEqual([...c.subarray(995)], [995, 996, 997, 998, 999].map((i) => triadSourceAt(input.seed, 1, i)));
  const a = new Float64Array(1000);
  triadTyped(a, b, c, input.s);
  assert.deepEqual(expectedTriad(input), a);
  assert.deepEqual([...triadAt(input, [999, 0, 500, 0])], [a[999], a[0], a[500], a[0]]);
});

test('makeTriadInput: seeded, no arrays in it; b and c integers in [-1024, 1024), every value, b unlike c', () => {
  const x = makeTriadInput(2 ** 16, 7);
  assert.deepEqual(Object.keys(x).sort(), ['kind', 'length', 's', 'seed'], 'a seed and a length: nothing the judge must hold');
  assert.deepEqual(triadSources(x), triadSources(makeTriadInput(2 ** 16, 7)));
  assert.notDeepEqual(triadSources(x).b, triadSources(makeTriadInput(2 ** 16, 8)).b);
  assert.notEqual(makeTriadInput(5, 7).seed, makeTriadInput(4099, 7).seed, 'each length its own values');
  const { b, c } = triadSources(x);
  assert.ok([...b, ...c].every((v) => Number.isInteger(v) && v >= -1024 && v < 1024));
  // 2^16 draws of 2048 values, 32 of each expected: a value never drawn would mean a broken generator (chance 1e-10).
  assert.equal(new Set(b).size, 2048);
  assert.equal(new Set(c).size, 2048);
  const same = b.reduce((n, v, i) => n + (v === c[i] ? 1 : 0), 0);
  assert.ok(same < 100, `b and c are two streams, not one: ${same} equal entries of 65536 (about 32 expected)`);
  assert.equal(x.s, 3);
  assert.throws(() => makeTriadInput(0, 1), /length must be a positive integer up to 2\^32, got 0/);
});

test('the C++ triad equals the TypeScript reference: odd lengths, uneven splits, 1 thread, more threads than elements', { skip }, () => {
  for (const rung of rungs) {
    const k: NativeKernel = loadRung('solution', rung);
    for (const length of [1, 2, 3, 7, 1001, 4099]) {
      const input = makeTriadInput(length, 20261203);
      const sources = triadSources(input);
      const expected = expectedTriad(input);
      for (const threads of [1, 2, 3, 4, 7, 16, 256]) {
        const label = `${rung}, length ${length}, ${threads} threads`;
        // Fresh arrays placed by the threads, as the lab does.
        const a = new Float64Array(length).fill(NaN);
        const b = new Float64Array(length);
        const c = new Float64Array(length);
        k.triadFirstTouch(a, b, c, sources.b, sources.c, threads);
        assert.deepEqual(b, sources.b, `${label}: first touch copies b`);
        assert.deepEqual(c, sources.c, `${label}: first touch copies c`);
        assert.ok(a.every((v) => v === 0), `${label}: first touch zeroes a`);
        assert.equal(k.triad(a, b, c, input.s, threads), a, `${label}: returns a`);
        assert.deepEqual(a, expected, label);
        // Straight on the input's arrays too: placement changes where pages live, never the answer.
        const out = new Float64Array(length);
        k.triad(out, sources.b, sources.c, input.s, threads);
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

test('triadSize: 4 x the last-level cache (STREAM rule), held to a quarter of the job\'s memory, never below the cache', () => {
  const MiB = 2 ** 20;
  const GiB = 2 ** 30;
  // Reference: 4 x 32 MiB = 128 MiB = 2^24 doubles of 8 bytes; 12 arrays of 128 MiB (1.5 GiB) in a quarter of 64 GiB.
  assert.deepEqual(triadSize(32 * MiB, 64 * GiB, 12), { elements: 2 ** 24, wantedElements: 2 ** 24, floorElements: 2 ** 23, memoryElements: 2 ** 27, limitedBy: 'cache' });
  // 4 x 40 MiB = 160 MiB = 20971520 doubles, rounded up to 2^25.
  assert.equal(triadSize(40 * MiB, null, 12).elements, 2 ** 25);
  assert.equal(triadSize(1 * MiB, null, 12).elements, TRIAD_SIZING.minElements, 'never below 64 MiB per array');
  assert.equal(triadSize(null, null, 12).elements, 2 ** 25, 'unknown cache: assume 64 MiB');
  // This course's VM at P = 2 (10 arrays held): a 480 MiB L3 wants 4 x 480 MiB -> 2^28 (2 GiB an array); a quarter of
  // 23 GiB over 10 arrays is 0.575 GiB an array -> 2^26, which is also the floor (the cache per array, 480 MiB -> 2^26).
  assert.deepEqual(triadSize(480 * MiB, 23 * GiB, 10), { elements: 2 ** 26, wantedElements: 2 ** 28, floorElements: 2 ** 26, memoryElements: 2 ** 26, limitedBy: 'memory' });
  // Over 12 arrays it is 0.48 GiB -> 2^25, below the floor: held there.
  assert.deepEqual(triadSize(480 * MiB, 23 * GiB, 12), { elements: 2 ** 26, wantedElements: 2 ** 28, floorElements: 2 ** 26, memoryElements: 2 ** 25, limitedBy: 'floor' });
  // A node with 512 MiB of L3 and 96 GiB: 4 x 512 MiB = 2 GiB = 2^28 wanted; a quarter of 96 GiB over 12 arrays is 2 GiB.
  assert.equal(triadSize(512 * MiB, 96 * GiB, 12).limitedBy, 'cache');
  // 48 GiB: 1 GiB an array -> 2^27, above the floor (512 MiB, 2^26): held by memory.
  assert.deepEqual(triadSize(512 * MiB, 48 * GiB, 12), { elements: 2 ** 27, wantedElements: 2 ** 28, floorElements: 2 ** 26, memoryElements: 2 ** 27, limitedBy: 'memory' });
  // More thread counts hold more arrays: 3 per case, the TypeScript triad's output, the shared b and c, 1 expected output.
  assert.equal(triadArraysHeld(2), 10);
  assert.equal(triadArraysHeld(10), 34);
  assert.equal(describeTriadSize(2 ** 24), '2^24 doubles (128 MiB each, 384 MiB in all)');
});

test("the run's note says which rule set the triad's size, with the numbers", () => {
  const MiB = 2 ** 20;
  const GiB = 2 ** 30;
  const memory = { bytes: 23 * GiB, source: "the machine's memory" };
  assert.equal(
    describeTriadSizing(triadSize(480 * MiB, 23 * GiB, 12), 12, memory),
    "triad: 3 arrays of 2^26 doubles (512 MiB each, 1536 MiB in all) per thread count: 4 x the last-level cache (STREAM's rule) would be 2^28 and 25% of the 23.0 GiB this job may use (the machine's memory) over the 12 arrays a run holds at once allows 2^25: held at the floor, the last-level cache per array, so it still measures memory (the run may be short of memory)",
  );
  assert.match(describeTriadSizing(triadSize(512 * MiB, 48 * GiB, 12), 12, { bytes: 48 * GiB, source: "the cgroup's memory limit" }), /per thread count: 4 x the last-level cache \(STREAM's rule\) would be 2\^28; held to 25% of the 48\.0 GiB this job may use \(the cgroup's memory limit\) over the 12 arrays a run holds at once, and still at least the cache per array$/);
  assert.match(describeTriadSizing(triadSize(32 * MiB, 64 * GiB, 12), 12, memory), /2\^24 doubles .* per thread count: 4 x the last-level cache this job's CPUs reach \(STREAM's rule\), within 25% of the 23\.0 GiB/);
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
