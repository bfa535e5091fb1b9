/** A worker of the task-granularity lab: tasks of points, hand-offs of a buffer, and the shared counter. */
import { checksum, increment, sumPoints } from '../granularity.ts';

let shared: Uint8Array | null = null;

type Message =
  | { id: number; kind: 'points'; from: number; to: number }
  | { id: number; kind: 'clone' | 'transfer'; data: Uint8Array }
  | { id: number; kind: 'attach'; sab: SharedArrayBuffer }
  | { id: number; kind: 'sab' }
  /** `parties`: wait (at most 1 s) until that many workers have arrived (counter[1]), so they all count at once. */
  | { id: number; kind: 'count'; sab: SharedArrayBuffer; count: number; how: 'racy' | 'atomic' | 'local'; parties?: number };

/** The start line of the race demonstration: every worker announces itself, then spins until all have (at most 1 s). */
function startTogether(view: Int32Array, parties: number): void {
  Atomics.add(view, 1, 1);
  const until = performance.now() + 1000;
  while (Atomics.load(view, 1) < parties && performance.now() < until) {
    // spin: a wait here would let the first worker finish before the last one starts
  }
}

self.onmessage = (event: MessageEvent<Message>) => {
  const m = event.data;
  try {
    switch (m.kind) {
      case 'points':
        self.postMessage({ id: m.id, result: sumPoints(m.from, m.to) });
        break;
      case 'clone':
        self.postMessage({ id: m.id, result: { sum: checksum(m.data) } });
        break;
      case 'transfer':
        // Hand the buffer back the same way, so the page can send it again.
        self.postMessage({ id: m.id, result: { sum: checksum(m.data), data: m.data } }, { transfer: [m.data.buffer] });
        break;
      case 'attach':
        shared = new Uint8Array(m.sab);
        self.postMessage({ id: m.id, result: { sum: 0 } });
        break;
      case 'sab':
        if (!shared) throw new Error('no SharedArrayBuffer attached');
        self.postMessage({ id: m.id, result: { sum: checksum(shared) } });
        break;
      case 'count':
        if (m.parties !== undefined) startTogether(new Int32Array(m.sab), m.parties);
        increment(new Int32Array(m.sab), m.count, m.how);
        self.postMessage({ id: m.id, result: 0 });
        break;
    }
  } catch (error) {
    self.postMessage({ id: m.id, error: (error as Error)?.message ?? String(error) });
  }
};
