/**
 * The lab's pure pieces on hand-computed values: the hash, the bins, splitting into tasks, merging, the checksum,
 * the comparator, the sweep, and the shared-resource leases.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addBusyNs, createBusyClock, readBusyNs, resetBusyClock } from '../src/busy-clock.ts';
import { balanceLimit, splitIntoTasks, taskCount } from '../src/chunks.ts';
import { exactIntegers } from '../src/comparator.ts';
import { bestChunk, chunkSizes, MAX_TASKS, pointsFor, processChunkSizes, ruleChunkSizes, sweepParams } from '../src/lab.ts';

const POINTS = pointsFor(2);
import { lease, liveLeases } from '../src/lease.ts';
import { addChunk, BINS, binOf, countChunk, estimatePi, histogramSync, lowbias32, mergeInto } from '../src/monte-carlo.ts';
import { checksum, makePayload } from '../src/payload.ts';

/** lowbias32 again, in BigInt arithmetic, as an independent reference. */
function lowbias32Big(value: number): number {
  const m = (x: bigint) => x & 0xffffffffn;
  let x = BigInt(value >>> 0);
  x ^= x >> 16n;
  x = m(x * 0x7feb352dn);
  x ^= x >> 15n;
  x = m(x * 0x846ca68bn);
  x ^= x >> 16n;
  return Number(x);
}

test('lowbias32 (the core\'s, from its light entry): 0 maps to 0, and it agrees with a BigInt version', () => {
  assert.equal(lowbias32(0), 0); // 0 ^ 0 = 0, 0 * k = 0
  for (const v of [1, 2, 42, 0x7fffffff, 0x80000000, 0xffffffff, 123456789]) {
    assert.equal(lowbias32(v), lowbias32Big(v), String(v));
  }
});

test('a point falls into one of 16 bins, and the bins give pi to about 3 digits on 2^20 points', () => {
  for (let i = 0; i < 1000; i++) {
    const b = binOf(7, i);
    assert.ok(Number.isInteger(b) && b >= 0 && b < BINS, `bin ${b}`);
  }
  const h = histogramSync({ seed: 7, points: 1 << 20 });
  assert.equal(h.reduce((a, b) => a + b, 0), 1 << 20);
  assert.ok(Math.abs(estimatePi(h) - Math.PI) < 0.01, String(estimatePi(h)));
  // By hand: 3 of 4 points inside -> 4 * 3 / 4 = 3.
  assert.equal(estimatePi([1, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]), 3);
  assert.ok(Number.isNaN(estimatePi(new Array(BINS).fill(0))));
});

test('addChunk (the hand-written hot loop) counts exactly the bins binOf gives, point by point', () => {
  // Seeds and index ranges chosen to cross the int32 / uint32 boundaries where `| 0` and `>>> 0` could differ.
  for (const seed of [0, 7, 0x7fffffff, 0x80000000, 0xffffffff]) {
    for (const start of [0, 0x7fffff00, 0xffffff00]) {
      const expected = new Int32Array(BINS);
      for (let i = start; i < start + 4096; i++) expected[binOf(seed, i)]! += 1;
      assert.deepEqual(addChunk(new Int32Array(BINS), seed, start, start + 4096), expected, `seed ${seed}, start ${start}`);
    }
  }
});

test('splitting into tasks: consecutive, the last one shorter, none when there are no points', () => {
  assert.deepEqual(splitIntoTasks({ seed: 1, points: 10 }, 4), [
    { seed: 1, start: 0, end: 4 },
    { seed: 1, start: 4, end: 8 },
    { seed: 1, start: 8, end: 10 },
  ]);
  assert.deepEqual(splitIntoTasks({ seed: 1, points: 0 }, 4), []);
  assert.deepEqual(splitIntoTasks({ seed: 1, points: 3 }, 100), [{ seed: 1, start: 0, end: 3 }]);
  assert.throws(() => splitIntoTasks({ seed: 1, points: 3 }, 0), /chunk must be a positive integer number of points, got 0/);
  assert.throws(() => splitIntoTasks({ seed: 1, points: 3 }, 1.5), /got 1.5/);
  assert.equal(taskCount(10, 4), 3);
  assert.equal(taskCount(POINTS, Math.ceil(POINTS / 3)), 3);
});

test('any split gives the reference histogram (the work is a pure function of the point index)', () => {
  const spec = { seed: 99, points: 10_007 };
  const reference = histogramSync(spec);
  for (const chunk of [1, 7, 1000, 10_007, 50_000]) {
    const merged = new Array<number>(BINS).fill(0);
    // Reversed order: the order of the results must not matter either.
    for (const task of splitIntoTasks(spec, chunk).reverse()) mergeInto(merged, countChunk(task));
    assert.deepEqual(merged, reference, `chunk ${chunk}`);
  }
  assert.throws(() => mergeInto([1, 2], [1]), /cannot merge a histogram of 1 bins into one of 2/);
});

test('load balance: n equal tasks on W workers use n / (W * ceil(n / W)) of the workers at best', () => {
  assert.equal(balanceLimit(1, 2), 0.5); // one task: one worker idle
  assert.equal(balanceLimit(2, 2), 1);
  assert.equal(balanceLimit(3, 2), 0.75); // two rounds, the second half empty
  assert.equal(balanceLimit(64, 2), 1);
  assert.equal(balanceLimit(5, 4), 5 / 8);
});

test('checksum: the sum of little-endian words modulo 2^32, a short tail as a padded word', () => {
  assert.equal(checksum(new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0, 3])), 6);
  assert.equal(checksum(new Uint8Array([0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0])), 0); // (2^32 - 1 + 1) mod 2^32
  assert.equal(checksum(new Uint8Array([0x01, 0x02])), 0x0201);
  assert.equal(checksum(new Uint8Array(0)), 0);
  // The unaligned path (a view at an odd offset) agrees with the aligned one.
  const bytes = makePayload(5, 1001);
  const shifted = new Uint8Array(1002);
  shifted.set(bytes, 1);
  assert.equal(checksum(shifted.subarray(1)), checksum(bytes));
  assert.equal(checksum(shared(bytes)), checksum(bytes));
});

function shared(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

test('payloads are seeded: the same seed gives the same bytes, another seed other bytes', () => {
  assert.deepEqual(makePayload(3, 37), makePayload(3, 37));
  assert.notDeepEqual(makePayload(3, 37), makePayload(4, 37));
  assert.equal(makePayload(3, 37).length, 37);
  // Word 0 is lowbias32(seed), little-endian.
  const first = new DataView(makePayload(3, 8).buffer).getUint32(0, true);
  assert.equal(first, lowbias32(3));
  assert.throws(() => makePayload(1, -1), /payload size must be a whole number of bytes >= 0, got -1/);
});

test('the comparator: equal, a wrong bin, a missing total, a wrong length', () => {
  const cmp = exactIntegers();
  assert.equal(cmp.compare([1, 2, 3], [1, 2, 3]).equal, true);
  const swapped = cmp.compare([1, 2, 3], [2, 1, 3]);
  assert.equal(swapped.equal, false);
  assert.deepEqual(swapped.firstMismatch, { index: 0, expected: '1', actual: '2' });
  assert.equal(swapped.maxAbsError, 1);
  const lost = cmp.compare([10, 20, 30], [10, 17, 30]);
  assert.deepEqual(lost.firstMismatch, { index: 'total', expected: '60', actual: '57 (3 missing: lost updates or a lost task?)' });
  const extra = cmp.compare([10, 20], [11, 20]);
  assert.match(extra.firstMismatch!.actual, /^31 \(1 too many: a task counted twice\?\)$/);
  assert.deepEqual(cmp.compare([1], [2]).firstMismatch, { index: 0, expected: '1', actual: '2' }); // one number: no total line
  assert.deepEqual(cmp.compare([1, 2], [1]).firstMismatch, { index: 'length', expected: '2', actual: '1' });
});

test('the sweep on 2 workers: the sizes of the first machines, from 8192 tasks of 1024 points to one task', () => {
  assert.equal(POINTS, 1 << 23);
  assert.equal(bestChunk(2), 1_048_576, '8 tasks: 4 per worker');
  assert.deepEqual(chunkSizes(false, 2), [1024, 4096, 16_384, 65_536, 262_144, 1_048_576, Math.ceil(POINTS / 3), POINTS / 2, POINTS]);
  assert.deepEqual(chunkSizes(true, 2), [1024, 16_384, 1_048_576, Math.ceil(POINTS / 3), POINTS]);
  assert.deepEqual(processChunkSizes(false, 2), [4096, 16_384, 65_536, 1_048_576]);
});

test('the sweep follows W = P: 2^22 points per worker, 4 tasks per worker at the headline, never more than 8192 tasks', () => {
  for (const w of [1, 4, 16, 64, 128]) {
    const full = chunkSizes(false, w);
    const points = pointsFor(w);
    assert.deepEqual(full, [...full].sort((a, b) => a - b), `W = ${w}: sorted`);
    assert.equal(full.at(-1), points, `W = ${w}: one task`);
    assert.ok(full.every((c) => Math.ceil(points / c) <= MAX_TASKS), `W = ${w}: at most ${MAX_TASKS} tasks`);
    assert.ok(full.includes(bestChunk(w)) && chunkSizes(true, w).includes(bestChunk(w)) && processChunkSizes(true, w).includes(bestChunk(w)));
    assert.equal(Math.ceil(points / bestChunk(w)), 4 * w, `W = ${w}: 4 tasks per worker`);
    assert.ok(chunkSizes(true, w).length < full.length);
  }
  assert.equal(pointsFor(1), 1 << 22);
  assert.equal(pointsFor(64), 64 * (1 << 22));
});

test('the rule-check sweeps', () => {
  // The rule-check sweeps below P: 8192 and 1024 tasks for the overhead, 256 down to 16 a factor of 2 apart, 4 per worker.
  assert.deepEqual(ruleChunkSizes(false, 1).map((c) => Math.ceil(pointsFor(1) / c)), [8192, 1024, 256, 128, 64, 32, 16, 4]);
  assert.deepEqual(ruleChunkSizes(false, 2).map((c) => Math.ceil(pointsFor(2) / c)), [8192, 1024, 256, 128, 64, 32, 16, 8]);
  assert.deepEqual(ruleChunkSizes(true, 1).map((c) => Math.ceil(pointsFor(1) / c)), [8192, 512, 128, 32]);
  // Every case has its baseline of the same points: the params carry them.
  assert.deepEqual(sweepParams(256, 2), { chunk: 256, points: 1 << 23, workers: 2 });
});

test('leases: the first creates, the last release destroys, a failed creation is not cached', async () => {
  const log: string[] = [];
  const create = async () => {
    log.push('create');
    return 'thing';
  };
  const destroy = async (v: string) => {
    log.push(`destroy ${v}`);
  };
  const a = await lease('test:a', create, destroy);
  const b = await lease('test:a', create, destroy);
  assert.equal(a.value, 'thing');
  await a.release();
  await a.release(); // twice is harmless
  assert.deepEqual(log, ['create']);
  await b.release();
  assert.deepEqual(log, ['create', 'destroy thing']);
  await assert.rejects(lease('test:b', async () => Promise.reject(new Error('no')), destroy), /no/);
  assert.equal(liveLeases(), 0);
});

test('the busy clock: tasks add their compute time, the main thread reads and resets it', () => {
  const clock = createBusyClock();
  assert.equal(readBusyNs(clock), 0);
  addBusyNs(clock, 5n);
  addBusyNs(clock, 7n);
  assert.equal(readBusyNs(clock), 12);
  resetBusyClock(clock);
  assert.equal(readBusyNs(clock), 0);
});

