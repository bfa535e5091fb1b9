/**
 * Your hand-offs: how a payload travels to a worker thread, three ways. `stage` prepares the payload once, before
 * any hand-off is timed; `transferList` is the second argument of postMessage for each hand-off.
 * Structured clone is done for you, as the example; write the other two.
 */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import type { Transport } from '@parallel-course/task-granularity/handoff-protocol.ts';

export function stage(transport: Transport, bytes: Uint8Array): Uint8Array {
  switch (transport) {
    case 'clone':
      // postMessage copies it every time (structured clone); the caller's bytes stay usable.
      return bytes;
    case 'transfer':
      // TODO(learner): return the payload to transfer. Transferring detaches the ArrayBuffer on this side
      // (byteLength 0), and the caller's bytes must stay usable after the hand-off.
      return notImplemented("stage('transfer') in exercises/task-granularity/transport.ts (return a copy the hand-off may detach)");
    case 'shared':
      // TODO(learner): return the bytes, copied once, in memory that both threads see, so that each hand-off
      // sends only a reference.
      return notImplemented("stage('shared') in exercises/task-granularity/transport.ts (copy the bytes into a SharedArrayBuffer once)");
  }
}

export function transferList(transport: Transport, staged: Uint8Array): ArrayBuffer[] {
  if (transport === 'clone') return [];
  // TODO(learner): which buffers must postMessage move for 'transfer'? And for 'shared': can a SharedArrayBuffer be
  // transferred at all, and does it need to be?
  return notImplemented(`transferList('${transport}') in exercises/task-granularity/transport.ts (which buffers does postMessage move?)`);
}
