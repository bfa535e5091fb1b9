/**
 * The addon checks its arguments and throws JavaScript errors; it never crashes the process. Pinned messages
 * (error text is part of the API), then many random bad calls in a child process, which must survive.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadRung, rungStatus, type NativeKernel } from '../src/addon.ts';

const status = rungStatus('solution', 'O3');
const skip = status.available ? false : `the addon is not built here (${status.reason})`;
const addon = (): NativeKernel => loadRung('solution', 'O3');
const m = (n: number, fill = 1) => new Float64Array(n * n).fill(fill);

test('matmul computes in place and returns c', { skip }, () => {
  const c = new Float64Array(4);
  const out = addon().matmul(new Float64Array([1, 2, 3, 4]), new Float64Array([5, 6, 7, 8]), c, 2);
  assert.equal(out, c);
  assert.deepEqual([...c], [19, 22, 43, 50]);
});

test('wrong types are TypeErrors that name the argument and what it got', { skip }, () => {
  const k = addon();
  assert.throws(() => k.matmul(m(2), m(2), m(2) as never, undefined as never), { name: 'TypeError', message: 'n must be a number, got undefined' });
  assert.throws(() => k.matmul([1, 2, 3, 4] as never, m(2), m(2), 2), { name: 'TypeError', message: 'a must be a Float64Array, got an Array' });
  assert.throws(() => k.matmul(m(2), new Float32Array(4) as never, m(2), 2), { name: 'TypeError', message: 'b must be a Float64Array, got a Float32Array' });
  assert.throws(() => k.matmul(m(2), m(2), Buffer.alloc(32) as never, 2), { name: 'TypeError', message: 'c must be a Float64Array, got a Uint8Array' });
  assert.throws(() => k.matmul(m(2), m(2), m(2), '2' as never), { name: 'TypeError', message: 'n must be a number, got a string' });
  assert.throws(() => (k.matmul as (...a: unknown[]) => unknown)(m(2), m(2)), {
    name: 'TypeError',
    message: 'expected 4 arguments: matmul(a, b, c, n), got 2',
  });
});

test('wrong sizes are RangeErrors; huge n is refused before anything is allocated', { skip }, () => {
  const k = addon();
  assert.throws(() => k.matmul(m(2), m(2), m(2), 3), { name: 'RangeError', message: 'a.length is 4, expected n*n = 9 for n = 3' });
  assert.throws(() => k.matmul(m(2), m(3), m(2), 2), { name: 'RangeError', message: 'b.length is 9, expected n*n = 4 for n = 2' });
  assert.throws(() => k.matmul(m(2), m(2), m(2), 0), { name: 'RangeError', message: 'n must be an integer from 1 to 4096, got 0' });
  assert.throws(() => k.matmul(m(2), m(2), m(2), 2.5), { name: 'RangeError', message: 'n must be an integer from 1 to 4096, got 2.5' });
  assert.throws(() => k.matmul(m(2), m(2), m(2), NaN), { name: 'RangeError', message: 'n must be an integer from 1 to 4096, got NaN' });
  assert.throws(() => k.matmul(m(2), m(2), m(2), 2 ** 40), { name: 'RangeError', message: 'n must be an integer from 1 to 4096, got 1099511627776' });
  assert.throws(() => k.matmulAsync(m(2), m(2), m(2), 2, 0), { name: 'RangeError', message: 'threads must be an integer from 1 to 256, got 0' });
  assert.throws(() => k.fmaPeak(0, 1), { name: 'RangeError', message: 'iterations must be an integer from 1 to 1073741824, got 0' });
});

test('detached and shared buffers are refused with the reason and the fix', { skip }, () => {
  const k = addon();
  const gone = m(2);
  structuredClone(gone.buffer, { transfer: [gone.buffer] });
  assert.throws(() => k.matmul(gone, m(2), m(2), 2), {
    name: 'TypeError',
    message: "a's ArrayBuffer is detached (it was transferred or resized away); pass a Float64Array whose buffer is still attached",
  });
  const shared = new Float64Array(new SharedArrayBuffer(32));
  assert.throws(() => k.matmul(m(2), shared, m(2), 2), {
    name: 'TypeError',
    message: 'b is backed by a SharedArrayBuffer, which other threads may write while the kernel reads it; pass a copy: new Float64Array(b)',
  });
});

test('an output that overlaps an input is refused (the kernel would read what it just wrote)', { skip }, () => {
  const k = addon();
  const buffer = new ArrayBuffer(8 * 8);
  const a = new Float64Array(buffer, 0, 4);
  const c = new Float64Array(buffer, 16, 4); // shares a's last two elements
  assert.throws(() => k.matmul(a, m(2), c, 2), { name: 'RangeError', message: 'c must not share memory with a or b: pass a separate output array' });
  assert.throws(() => k.matmul(a, m(2), a, 2), { name: 'RangeError' });
});

test('matmulAsync resolves to c; detaching c while it runs rejects instead of writing freed memory', { skip }, async () => {
  const k = addon();
  const c = new Float64Array(4);
  assert.equal(await k.matmulAsync(new Float64Array([1, 2, 3, 4]), new Float64Array([5, 6, 7, 8]), c, 2, 2), c);
  assert.deepEqual([...c], [19, 22, 43, 50]);
  // Inputs are copied at the call: changing or detaching them afterwards does not change the answer.
  const a = m(64, 1);
  const b = m(64, 2);
  const c2 = m(64, 0);
  const pending = k.matmulAsync(a, b, c2, 64, 2);
  a.fill(0);
  structuredClone(b.buffer, { transfer: [b.buffer] });
  await pending;
  assert.ok(c2.every((x) => x === 128), 'the result uses a and b as they were when the call was made');
  const c3 = m(64, 0);
  const late = k.matmulAsync(m(64), m(64), c3, 64, 2);
  structuredClone(c3.buffer, { transfer: [c3.buffer] });
  await assert.rejects(late, {
    name: 'TypeError',
    message: 'c was detached while matmulAsync ran; keep the output array attached (do not transfer it) until the promise settles',
  });
});

test('the exercise build reports the missing loop as "not implemented", from both entry points', { skip: rungStatus('exercise', 'O3').available ? false : 'the exercise addon is not built here' }, async () => {
  const k = loadRung('exercise', 'O3');
  assert.throws(() => k.matmul(m(2), m(2), m(2), 2), /^Error: not implemented: the matrix-product loop matmul_rows in exercises\/native-kernel\/kernel.cc/);
  await assert.rejects(k.matmulAsync(m(2), m(2), m(2), 2, 2), /not implemented: /);
});

test('2000 random bad calls in a child process: every one throws or rejects, the process survives', { skip }, () => {
  if (!status.available) return;
  const child = spawnSync(process.execPath, [fileURLToPath(new URL('./fuzz-child.ts', import.meta.url)), status.file, '12345', '2000'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(child.signal, null, `the child died with ${child.signal}: the addon crashed. stderr: ${child.stderr}`);
  assert.equal(child.status, 0, child.stderr);
  const tally = JSON.parse(child.stdout.trim().split('\n').pop() as string) as { calls: number; ok: number; threw: number; rejected: number };
  assert.equal(tally.calls, 2000);
  assert.equal(tally.ok + tally.threw + tally.rejected, 2000, 'every call was accounted for');
  assert.ok(tally.threw > 1000, `most random calls are wrong and must throw (threw ${tally.threw})`);
});
