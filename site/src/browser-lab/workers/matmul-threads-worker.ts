/**
 * A worker of the threaded WebAssembly rung (labs/native-kernel-threads.ts): instantiates the blocked module on the page's
 * shared memory once, then, for each request, claims panels of columns from the shared counter until none is left
 * (matmulBlockedClaimPanels) and replies with the columns it computed and the time that took, by its own clock (the
 * page's observations of the rung: each worker's rate, its share of the columns, and the hand-off). It adds its columns
 * to a counter in that memory with an atomic add before it replies: the page's atomic read of the counter then both
 * proves every column was computed and orders these writes of C before the page's reads (a postMessage alone is no
 * such ordering in the JavaScript memory model).
 */
import type { ThreadsReply } from '../labs/native-kernel-threads.ts';

type Message =
  | { id: number; kind: 'attach'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { id: number; kind: 'panels'; n: number; reps: number; pack: number; claimByte: number; counterIndex: number };

let kernel: ((n: number, reps: number, pack: number, claim: number) => number) | null = null;
let counter: Int32Array | null = null;

self.onmessage = async (event: MessageEvent<Message>) => {
  const m = event.data;
  try {
    if (m.kind === 'attach') {
      const instance = await WebAssembly.instantiate(m.module, { env: { memory: m.memory } });
      kernel = instance.exports['matmulBlockedClaimPanels'] as typeof kernel;
      counter = new Int32Array(m.memory.buffer);
      self.postMessage({ id: m.id, result: { computeMs: 0, columns: 0 } satisfies ThreadsReply });
      return;
    }
    if (!kernel || !counter) throw new Error('the worker was asked for panels before it was given the module and memory');
    const t0 = performance.now();
    const columns = kernel(m.n, m.reps, m.pack, m.claimByte);
    const computeMs = performance.now() - t0;
    Atomics.add(counter, m.counterIndex, columns);
    self.postMessage({ id: m.id, result: { computeMs, columns } satisfies ThreadsReply });
  } catch (error) {
    self.postMessage({ id: m.id, error: (error as Error)?.message ?? String(error) });
  }
};
