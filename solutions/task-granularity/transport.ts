/**
 * How a payload travels to a worker thread, three ways. `stage` prepares the payload once, before any hand-off
 * is timed; `transferList` is the second argument of postMessage for each hand-off.
 */
import type { Transport } from '@parallel-course/task-granularity/handoff-protocol.ts';

export function stage(transport: Transport, bytes: Uint8Array): Uint8Array {
  switch (transport) {
    case 'clone':
      // postMessage copies it every time (structured clone); the caller's bytes stay usable.
      return bytes;
    case 'transfer':
      // Transferring detaches the buffer on this side, so it must be our own copy, not the caller's.
      return bytes.slice();
    case 'shared': {
      // Memory both threads see: the data is written once here; a hand-off then sends only a reference.
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
      shared.set(bytes);
      return shared;
    }
  }
}

export function transferList(transport: Transport, staged: Uint8Array): ArrayBuffer[] {
  // Only 'transfer' moves ownership: the ArrayBuffer goes to the worker and is detached here (byteLength 0).
  // A SharedArrayBuffer is never transferred: posting it shares it.
  return transport === 'transfer' ? [staged.buffer as ArrayBuffer] : [];
}
