/**
 * The memory-bandwidth side of the lab: a STREAM-style triad a[i] = b[i] + s * c[i] (J. D. McCalpin, STREAM,
 * https://www.cs.virginia.edu/stream/) over arrays far larger than the last-level cache, on 1..P native threads
 * (native/stream.cc). Its inputs, its expected output, how much work a sample is, and how large the arrays must be.
 */
import { randomFillSync } from 'node:crypto';
import type { Comparison } from '@parallel-course/harness/lab-definition.ts';
import type { Topology } from '@parallel-course/harness/topology.ts';
import { mulberry32 } from './matrices.ts';

// Captured when the lab loads, before any learner module: the checked entries are drawn after the triad has answered.
const fillRandom = randomFillSync;

/** The param that marks a triad case (and the TypeScript triad baseline): the array length in elements. */
export const TRIAD_PARAM = 'elements';

/** One triad input: a = b + s * c over `length` elements. */
export interface TriadInput {
  kind: 'triad';
  length: number;
  b: Float64Array;
  c: Float64Array;
  s: number;
}

/**
 * The scalar. b and c hold integers in [-1024, 1024), so every b[i] + 3 * c[i] is an integer below 2^13 in magnitude:
 * exact in double precision, with or without a fused multiply-add, in any order. A correct result equals the
 * expected output exactly, and the lab's tolerance (about 6e-11) admits no wrong one.
 */
export const TRIAD_SCALAR = 3;

/** Bytes one element moves, as STREAM counts them: read b[i] and c[i], write a[i] (3 x 8 bytes). */
export const TRIAD_BYTES_PER_ELEMENT = 24;

/**
 * Lengths the check runs every triad case on: 1, a small odd length, and a prime one, so most thread counts split it
 * unevenly and some get no element at all.
 */
export const TRIAD_CHECK_LENGTHS = [1, 5, 4099];

export function isTriadInput(input: object): input is TriadInput {
  return (input as { kind?: unknown }).kind === 'triad';
}

/** A seeded triad input of `length` elements; the seed is mixed with the length so each length gets other values. */
export function makeTriadInput(length: number, seed: number): TriadInput {
  if (!Number.isInteger(length) || length < 1) throw new RangeError(`length must be a positive integer, got ${length}`);
  const random = mulberry32((seed ^ Math.imul(length, 0x85ebca6b)) >>> 0);
  const b = new Float64Array(length);
  const c = new Float64Array(length);
  for (let i = 0; i < length; i++) b[i] = Math.floor(2048 * random()) - 1024;
  for (let i = 0; i < length; i++) c[i] = Math.floor(2048 * random()) - 1024;
  return { kind: 'triad', length, b, c, s: TRIAD_SCALAR };
}

/**
 * The fresh input of measured sample `sample` (1 .. FRESH_INPUT_INDICES - 1, the judge's draw): the measured input's
 * b and c, the very same arrays, with a scalar of its own, s = TRIAD_SCALAR + sample. Distinct samples get distinct
 * scalars, so no output of an earlier sample is this one's (every a[i] with c[i] != 0 changes), and a triad that
 * kept a (by input, by array or by contents) or wrote only part of it fails checkTriadSample. Why only s: new b and c
 * would cost two passes of 2 x 2^27 seeded doubles per sample, and each case's arrays were first touched by its own
 * threads (lab.ts triadCase); a new s leaves that placement, and the bandwidth the triad measures, as it is.
 * Exact: |b + s c| <= 1024 + (2^20 + 2) 1024 < 2^31, an integer, so a correct a[i] is an exact int32 too.
 */
export function freshTriadInput(measure: TriadInput, sample: number): TriadInput {
  if (!Number.isInteger(sample) || sample < 1 || sample >= 2 ** 20) throw new RangeError(`a fresh triad sample number must be an integer in 1 .. 2^20 - 1, got ${sample}`);
  return { ...measure, s: TRIAD_SCALAR + sample };
}

/** Entries of a fresh sample's a compared one by one with b[i] + s c[i], at positions drawn from the CSPRNG. */
export const TRIAD_SPOT_ENTRIES = 64;

/**
 * Elements per checksum block: a block's weighted sum of correct entries stays below 2^16 x 3 x 2^31 < 2^53, so it
 * is exact in a double, whatever the order of the additions.
 */
const TRIAD_BLOCK = 2 ** 16;

/** Per block k, Σ w_i x[i] over the block, w_i = 1 at even i and 3 at odd i (exact: see TRIAD_BLOCK). */
function blockSums(x: ArrayLike<number>): Float64Array {
  const sums = new Float64Array(Math.ceil(x.length / TRIAD_BLOCK));
  for (let k = 0, i = 0; k < sums.length; k++) {
    const end = Math.min(x.length, i + TRIAD_BLOCK);
    let even = 0;
    let odd = 0;
    // Two sums, one per weight: the loop carries no multiply and no branch.
    for (; i + 1 < end; i += 2) {
      even += x[i] as number;
      odd += x[i + 1] as number;
    }
    if (i < end) even += x[i++] as number;
    sums[k] = even + 3 * odd;
  }
  return sums;
}

/** The block sums of b and c, by b (the measured input's, shared by every fresh input), computed on the first check. */
const triadBlockSums = new WeakMap<Float64Array, { b: Float64Array; c: Float64Array }>();

function triadMismatch(index: string, expected: string, actual: string): Comparison {
  return { equal: false, firstMismatch: { index, expected, actual }, maxAbsError: null, maxRelError: null };
}

/**
 * Checks a fresh triad sample (lab.ts checkSample) in one pass over a, without an expected array (2^27 doubles,
 * 1 GiB, per sample): TRIAD_SPOT_ENTRIES entries drawn after the answer must equal b[i] + s c[i] exactly, and every
 * block of TRIAD_BLOCK entries must have the weighted sum Σ w_i a[i] = Σ w_i b[i] + s Σ w_i c[i] (w_i = 1, 3
 * alternating). Every sum is of integers below 2^53, so exact: one entry off by any integer, NaN or an infinity changes
 * its block's sum, as does swapping two neighbours; an entry off by a small fraction may round away, but no cached or
 * partial answer is off by less than 1 (freshTriadInput). The block sums of b and c are computed on the first check.
 * About 3 ns an element here, a third of the old full comparison with an expected array.
 */
export function checkTriadSample(input: TriadInput, a: ArrayLike<number>): Comparison {
  const { b, c, s, length } = input;
  if (a.length !== length) return triadMismatch('length', String(length), String(a.length));
  const spots = fillRandom(new Uint32Array(TRIAD_SPOT_ENTRIES));
  for (const word of spots) {
    const i = word % length;
    const expected = (b[i] as number) + s * (c[i] as number);
    if (a[i] !== expected) return triadMismatch(String(i), String(expected), String(a[i]));
  }
  let sums = triadBlockSums.get(b);
  if (!sums) triadBlockSums.set(b, (sums = { b: blockSums(b), c: blockSums(c) }));
  const actual = blockSums(a);
  for (let k = 0; k < actual.length; k++) {
    const expected = (sums.b[k] as number) + s * (sums.c[k] as number);
    if (actual[k] !== expected) {
      return triadMismatch(`Σ w·a over [${k * TRIAD_BLOCK}, ${Math.min(length, (k + 1) * TRIAD_BLOCK)}) (an entry off there)`, String(expected), String(actual[k]));
    }
  }
  return { equal: true, firstMismatch: null, maxAbsError: 0, maxRelError: null };
}

/** The definition of a correct triad: a fresh array, element by element, in plain TypeScript. */
export function expectedTriad(input: TriadInput): Float64Array {
  // A plain loop: Float64Array.from with a mapping function cost 200-600 ns per element here (seconds per run).
  const a = new Float64Array(input.length);
  const { b, c, s } = input;
  for (let i = 0; i < a.length; i++) a[i] = (b[i] as number) + s * (c[i] as number);
  return a;
}

/** The entries of a correct triad's a at `positions`, b[i] + s c[i] each (exact: see TRIAD_SCALAR), for the judge's check. */
export function triadAt(input: TriadInput, positions: readonly number[]): Float64Array {
  const { b, c, s } = input;
  return Float64Array.from(positions, (i) => (b[i] as number) + s * (c[i] as number));
}

/** The TypeScript triad (the ts-typed rung's loop): writes a in place. */
export function triadTyped(a: Float64Array, b: Float64Array, c: Float64Array, s: number): void {
  for (let i = 0; i < a.length; i++) a[i] = b[i]! + s * c[i]!;
}

/** Bytes one sample moves: 24 per element. The write-allocate read of a (see TRIAD_SIZING) is not counted. */
export function triadBytes(length: number): number {
  return TRIAD_BYTES_PER_ELEMENT * length;
}

/**
 * How large the triad's arrays are. STREAM's rule: each array at least 4 times the last-level cache the job can use,
 * so a pass finds nothing of the previous one in cache and measures memory, not cache. A power of two, at least
 * 2^23 doubles (64 MiB per array, 192 MiB in all: beyond the whole L3 of most single-socket machines even when the
 * cache size is unknown) and at most 2^26 (512 MiB per array): every thread count keeps its own three arrays (first
 * touch, below), so a sweep of ten thread counts holds ten times that, and the judge holds its own b and c to check
 * the outputs. At 2^27 a full `npm test` on a 23 GB VM that reports a 480 MiB L3 (a runner at 10 GB resident)
 * twice met the kernel's OOM killer; a node with up to 512 MiB of L3 still gets a working set of at least three
 * times its cache.
 *
 * What is counted: 24 bytes per element (STREAM's convention). A store to a line not in cache first reads that line
 * (write-allocate), so the memory really moves 32 bytes per element on most CPUs; the GB/s here are the useful
 * bytes, comparable with published STREAM results, and about 3/4 of the traffic the memory controllers carry.
 */
export const TRIAD_SIZING = {
  cacheFactor: 4,
  minElements: 2 ** 23,
  maxElements: 2 ** 26,
  /** Assumed when the topology does not say (macOS, a container that hides sysfs). */
  unknownCacheBytes: 64 * 2 ** 20,
} as const;

/**
 * The last-level cache this job's CPUs can fill, in bytes: the largest data or unified cache level of the first CPU,
 * times the number of such caches the job's CPUs reach (each shared by `sharedByCpus` of them). Null when unknown.
 */
export function reachableLastLevelCacheBytes(topology: Pick<Topology, 'logicalCpus' | 'caches'>): number | null {
  const data = topology.caches.filter((c) => c.type !== 'Instruction');
  if (data.length === 0) return null;
  const top = Math.max(...data.map((c) => c.level));
  const last = data.find((c) => c.level === top)!;
  const instances = Math.max(1, Math.ceil(topology.logicalCpus / Math.max(1, last.sharedByCpus)));
  return last.sizeKiB * 1024 * instances;
}

/** The triad's array length for a last-level cache of `cacheBytes` (null: unknown), by TRIAD_SIZING's rule. */
export function triadElements(cacheBytes: number | null): number {
  const bytes = TRIAD_SIZING.cacheFactor * (cacheBytes ?? TRIAD_SIZING.unknownCacheBytes);
  const wanted = 2 ** Math.ceil(Math.log2(Math.max(1, bytes / 8)));
  return Math.min(TRIAD_SIZING.maxElements, Math.max(TRIAD_SIZING.minElements, wanted));
}

/** "2^24 doubles (128 MiB each, 384 MiB in all)". */
export function describeTriadSize(elements: number): string {
  const mib = (elements * 8) / 2 ** 20;
  const power = Math.log2(elements);
  return `${Number.isInteger(power) ? `2^${power}` : elements} doubles (${mib} MiB each, ${3 * mib} MiB in all)`;
}
