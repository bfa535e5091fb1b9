/**
 * The payload of the data-movement cases: seeded bytes, and the work a worker does on them (a 32-bit checksum),
 * cheap enough (about 0.1 ns per byte on the course machine) that the hand-off, not the work, dominates for the big payloads.
 */
import { lowbias32 } from './monte-carlo.ts';

export const MIB = 1024 * 1024;

/** Seeded bytes: word i of the payload is lowbias32(seed + i), little-endian; a tail shorter than a word is cut. */
export function makePayload(seed: number, bytes: number): Uint8Array {
  if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`payload size must be a whole number of bytes >= 0, got ${bytes}`);
  const out = new Uint8Array(bytes);
  const words = bytes >>> 2;
  const view = new DataView(out.buffer);
  for (let i = 0; i < words; i++) view.setUint32(i * 4, lowbias32(seed + i), true);
  const last = lowbias32(seed + words);
  for (let i = words * 4; i < bytes; i++) out[i] = (last >>> (8 * (i - words * 4))) & 0xff;
  return out;
}

/**
 * The checksum: the sum, modulo 2^32, of the payload read as little-endian 32-bit words (a shorter tail counts
 * as a zero-padded word). An unsigned 32-bit integer. Any byte that goes missing or changes changes it (almost surely).
 */
export function checksum(bytes: Uint8Array, length = bytes.length): number {
  const words = length >>> 2;
  let sum = 0;
  if (bytes.byteOffset % 4 === 0) {
    // The fast path: a word view over the same memory (Uint32Array is little-endian on every platform Node supports).
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset, words);
    for (let i = 0; i < words; i++) sum = (sum + (view[i] as number)) >>> 0;
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, length);
    for (let i = 0; i < words; i++) sum = (sum + view.getUint32(i * 4, true)) >>> 0;
  }
  let tail = 0;
  for (let i = words * 4; i < length; i++) tail |= (bytes[i] as number) << (8 * (i - words * 4));
  return (sum + (tail >>> 0)) >>> 0;
}

/**
 * Brings checksum() to V8's optimising tier before anything is timed: a few thousand calls on small payloads,
 * plain and shared. Measured here: a few large calls alone leave it at about 30 ms per 16 MiB, warmed it takes
 * about 1.5 ms, so without this the first samples of a fresh thread would time the JIT, not the hand-off.
 *
 * Every path, not only the hot loop: tails of 0-3 bytes and views that start off a word boundary (the DataView
 * loop). Optimised code meets a path it never saw by throwing itself away, and what V8 compiles next depends on
 * the timing of its background compiles: with 4 KiB payloads alone the check stage's 5-byte payload did that, and
 * in 11 of 47 fresh processes (session 20, under load) the hand-off worker then ran checksum in on-stack-replacement
 * code for its whole life, about 3x the CPU time of the others a 16 MiB call (18.0-20.0 ms against 6.0-6.7): the
 * slow process that once graded the solution against itself at 2.69 (docs/architecture.md). Left out: views that
 * track a resizable or growable buffer's length (another kind of object to V8, which the solution's stage never
 * returns): warming them too made every 16 MiB call cost 6.8-7.5 ms of CPU against 5.9-6.7 (8 fresh processes
 * each, under load).
 */
export function warmChecksum(): void {
  const plain = makePayload(1, 4096 + 4);
  const shared = new Uint8Array(new SharedArrayBuffer(plain.length));
  shared.set(plain);
  // 16 views: plain or shared, a tail of 0-3 bytes, on a word boundary or one byte off it.
  const views = [plain, shared].flatMap((bytes) => [0, 1].flatMap((offset) => [0, 1, 2, 3].map((tail) => bytes.subarray(offset, offset + 4096 - 4 + tail))));
  for (let i = 0; i < 2000; i++) checksum(views[i % views.length] as Uint8Array);
}
