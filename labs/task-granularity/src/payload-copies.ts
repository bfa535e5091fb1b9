/**
 * The copies of one payload a data-movement case cycles through, one per call, so each call starts with its payload
 * outside the cores' private caches, as a hand-off of data the worker has not read yet does.
 *
 * Why: a payload input has no fresh input per sample, so a sample of several calls (the harness's callsPerSample)
 * runs every call on the one measured input. Back to back on one 1 MiB buffer, each call read a payload the call
 * before had read and a core's L2 still held: serial, transfer and shared read 0.16-0.18 ms a call, against
 * 0.48-0.54 ms cycling through 16 copies (one process, the solution, 8 calls a sample, the median of 30; Intel Xeon
 * VM, 2 MiB of L2 a core, load 4.8; the committed reference run, one call a sample: 0.34, 0.64 and 0.52 ms). That is
 * a cache hit, not a hand-off. Copies of the same bytes give the same checksum, so every call is still checked.
 *
 * Input: a payload's byte length. Output: how many copies to cycle through, and the cycle itself.
 */
import { MIB } from './payload.ts';

/**
 * The bytes of copies one case cycles through, at least: well over the private caches (L1 and L2) of two cores on
 * current x86 and Arm server and desktop parts (1-4 MiB of L2 a core; this VM's 2 MiB), so a copy is evicted from
 * them before it comes round again.
 */
export const CYCLE_BYTES = 32 * MIB;
/** The most copies of one payload (the check's small payloads would need millions to reach CYCLE_BYTES). */
export const MAX_COPIES = 64;

/** How many copies of a payload of `byteLength` bytes a case cycles through: 32 at 1 MiB, 2 at 16 MiB, 1 from 32 MiB. */
export function copiesFor(byteLength: number): number {
  return Math.max(1, Math.min(MAX_COPIES, Math.ceil(CYCLE_BYTES / Math.max(1, byteLength))));
}

/**
 * Per input, `copiesFor` items made from copies of its bytes (the first from the bytes themselves) the first time it
 * is asked for (the check stage's call on the measured input: never a timed one), then handed out in turn.
 * `make(copy, index)` turns a copy into what a call uses (a staged payload); `replace` puts back what a call returned
 * in its place (a transferred buffer that came back).
 */
export class PayloadCycle<T> {
  readonly #make: (copy: Uint8Array, index: number) => T;
  readonly #cycles = new WeakMap<Uint8Array, { items: T[]; next: number }>();

  constructor(make: (copy: Uint8Array, index: number) => T) {
    this.#make = make;
  }

  /** The item for the next call on `bytes`, and its place in the cycle. */
  next(bytes: Uint8Array): { item: T; index: number } {
    let cycle = this.#cycles.get(bytes);
    if (!cycle) {
      const items = Array.from({ length: copiesFor(bytes.byteLength) }, (_, k) => this.#make(k === 0 ? bytes : bytes.slice(), k));
      cycle = { items, next: 0 };
      this.#cycles.set(bytes, cycle);
    }
    const index = cycle.next;
    cycle.next = (index + 1) % cycle.items.length;
    return { item: cycle.items[index] as T, index };
  }

  /** Puts `item` in place `index` of the cycle of `bytes` (what a call gave back for the copy it used). */
  replace(bytes: Uint8Array, index: number, item: T): void {
    const cycle = this.#cycles.get(bytes);
    if (cycle && index < cycle.items.length) cycle.items[index] = item;
  }
}
