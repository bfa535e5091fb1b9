/** A worker of the task-granularity lab: tasks of points, hand-offs of a buffer, and the shared counter. */
import { checksum, increment, sumPoints } from '../granularity.ts';

let shared: Uint8Array | null = null;

type Message =
  | { id: number; kind: 'points'; from: number; to: number }
  | { id: number; kind: 'clone' | 'transfer'; data: Uint8Array }
  | { id: number; kind: 'attach'; sab: SharedArrayBuffer }
  | { id: number; kind: 'sab' }
  | { id: number; kind: 'count'; sab: SharedArrayBuffer; count: number; how: 'racy' | 'atomic' | 'local' };

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
        increment(new Int32Array(m.sab), m.count, m.how);
        self.postMessage({ id: m.id, result: 0 });
        break;
    }
  } catch (error) {
    self.postMessage({ id: m.id, error: (error as Error)?.message ?? String(error) });
  }
};
