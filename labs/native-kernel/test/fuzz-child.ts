/**
 * Run as a child process by robustness.test.ts: calls the addon's functions (the product and the triad) with many random, mostly wrong
 * arguments. Every call must either succeed or throw (or reject with) a JavaScript TypeError/RangeError/Error.
 * If the addon crashed, this process would die with a signal instead of printing its tally, which the parent sees.
 * Usage: node fuzz-child.ts <module file> <seed> <calls>
 */
import { createRequire } from 'node:module';
import type { NativeKernel } from '../src/addon.ts';
import { createRng } from '@parallel-course/core';

const [file, seedArg, callsArg] = process.argv.slice(2);
const addon = createRequire(import.meta.url)(file as string) as NativeKernel;
const random = createRng(Number(seedArg));
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)] as T;

function detached(length: number): Float64Array {
  const view = new Float64Array(length);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
}

/** A random argument: sometimes right, mostly wrong in one of many ways. */
function randomArg(n: number): unknown {
  const len = pick([n * n, n * n, n * n - 1, n * n + 1, 0, 1]);
  return pick<() => unknown>([
    () => new Float64Array(len),
    () => new Float64Array(len),
    () => new Float32Array(len),
    () => new Int32Array(len),
    () => new BigInt64Array(len),
    () => new Float64Array(new SharedArrayBuffer(len * 8)),
    () => detached(len),
    () => new Float64Array(new ArrayBuffer(len * 8 + 16), 8, len), // an offset view: valid if the length fits
    () => new DataView(new ArrayBuffer(8)),
    () => new ArrayBuffer(len * 8),
    () => Array.from({ length: len }, () => 1),
    () => Buffer.alloc(len * 8),
    () => pick([null, undefined, 0, -1, 1.5, NaN, Infinity, 2 ** 53, 'x', '4', {}, [], Symbol('s'), 10n, () => 1, true]),
  ])();
}

function randomInt(): unknown {
  return pick<unknown>([1, 2, 3, 4, 0, -1, 1.5, NaN, Infinity, -Infinity, 4097, 2 ** 31, 2 ** 32 + 2, 1e300, '3', null, undefined, 3n, {}]);
}

let ok = 0;
let threw = 0;
let rejected = 0;
const pending: Promise<unknown>[] = [];
const calls = Number(callsArg);
for (let i = 0; i < calls; i++) {
  const n = pick([1, 2, 3, 4]);
  const argCount = pick([0, 1, 2, 3, 4, 5, 5, 5, 6]);
  const fn = pick(['matmul', 'matmulAsync', 'triad', 'triadFirstTouch'] as const);
  // Arrays where the function takes arrays (triadFirstTouch: five of them), numbers after.
  const arrays = fn === 'triadFirstTouch' ? 5 : 3;
  const args = Array.from({ length: argCount }, (_, k) => (k >= arrays ? randomInt() : pick([randomArg(n), randomArg(n), randomInt()])));
  if (random() < 0.5 && argCount >= 4 && fn !== 'triadFirstTouch') args[3] = n; // often the right n (or s), so the deeper checks are reached
  try {
    const result = (addon[fn] as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      pending.push(result.then(() => ok++, (e: unknown) => { rejected++; if (!(e instanceof Error)) throw new Error(`rejected with a non-Error: ${String(e)}`); }));
    } else {
      ok++;
    }
  } catch (error) {
    if (!(error instanceof Error)) throw new Error(`threw a non-Error: ${String(error)}`);
    threw++;
  }
}
await Promise.all(pending);
console.log(JSON.stringify({ calls, ok, threw, rejected }));
