/**
 * A worker of the threaded WebAssembly rung (labs/native-kernel-threads.ts): instantiates the blocked module on the page's
 * shared memory once, then computes the block of columns each request names and replies with the time that took, by its
 * own clock (the page's observations of the rung: each worker's rate, and the hand-off). It adds the columns it computed to a counter
 * in that memory with an atomic add before it replies: the page's atomic read of the counter then both proves every
 * column was computed and orders these writes of C before the page's reads (a postMessage alone is no such ordering in
 * the JavaScript memory model).
 */
type Message =
  | { id: number; kind: 'attach'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { id: number; kind: 'columns'; n: number; j0: number; j1: number; reps: number; pack: number; counterIndex: number };

let kernel: ((n: number, j0: number, j1: number, reps: number, pack: number) => void) | null = null;
let counter: Int32Array | null = null;

self.onmessage = async (event: MessageEvent<Message>) => {
  const m = event.data;
  try {
    if (m.kind === 'attach') {
      const instance = await WebAssembly.instantiate(m.module, { env: { memory: m.memory } });
      kernel = instance.exports['matmulBlockedColumnsRepeated'] as typeof kernel;
      counter = new Int32Array(m.memory.buffer);
      self.postMessage({ id: m.id, result: 0 });
      return;
    }
    if (!kernel || !counter) throw new Error('the worker was asked for columns before it was given the module and memory');
    const t0 = performance.now();
    kernel(m.n, m.j0, m.j1, m.reps, m.pack);
    const computeMs = performance.now() - t0;
    Atomics.add(counter, m.counterIndex, (m.j1 - m.j0) * m.reps);
    // The reply is this worker's own compute time (ms): the page sets it against the sample's wall time.
    self.postMessage({ id: m.id, result: computeMs });
  } catch (error) {
    self.postMessage({ id: m.id, error: (error as Error)?.message ?? String(error) });
  }
};
