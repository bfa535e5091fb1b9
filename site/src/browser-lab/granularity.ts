/**
 * The task-granularity lab's work, for the page and its workers: a job of `points` points, each worth a small
 * integer (mixPoint), summed exactly; a buffer checksum that reads one byte per cache line (so a hand-off's receiver
 * touches all of what it got); and the shared counter's increments, racy or with Atomics.
 */
function mixPoint(i: number): number {
  let x = Math.imul(i ^ (i >>> 16), 0x45d9f3b);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  return (x ^ (x >>> 16)) & 0xff;
}

export function sumPoints(from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += mixPoint(i);
  return sum;
}

/** Sum of the bytes at every 64th position (one per cache line), as an exact integer. */
export function checksum(bytes: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 64) sum += bytes[i]!;
  return sum;
}

/** The hand-off's payload pattern: byte i is (i * 31 + 7) mod 251, so a wrong or partial copy changes the checksum. */
export function fillPattern(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) % 251;
}

/** `count` increments of counter[0]: 'racy' reads and writes it plainly (updates get lost), 'atomic' uses Atomics.add
 * for each, 'local' counts in a local variable and adds once. */
export function increment(counter: Int32Array, count: number, how: 'racy' | 'atomic' | 'local'): void {
  if (how === 'racy') {
    for (let i = 0; i < count; i++) counter[0] = counter[0]! + 1;
  } else if (how === 'atomic') {
    for (let i = 0; i < count; i++) Atomics.add(counter, 0, 1);
  } else {
    let local = 0;
    for (let i = 0; i < count; i++) local++;
    Atomics.add(counter, 0, local);
  }
}
