/**
 * Your hand-offs: how a payload travels to a worker thread, three ways. `stage` prepares the payload once, before
 * any hand-off is timed; `transferList` is the second argument of postMessage for each hand-off.
 * Structured clone is done for you, as the example; write the other two.
 */
import { notImplemented } from '@parallel-course/harness/lab-definition.ts';
import type { Transport } from '@parallel-course/task-granularity/handoff-protocol.ts';

export function stage(transport: Transport, bytes: Uint8Array): Uint8Array {
  switch (transport) {
    case 'clone':
      // postMessage copies it every time (structured clone); the caller's bytes stay usable.
      return bytes;
    case 'transfer':
      // TODO(learner): return a copy of the bytes in an ArrayBuffer of our own (bytes.slice()): transferring
      // detaches the buffer on this side, and the caller's bytes must stay usable.
      return notImplemented("stage('transfer') in exercises/task-granularity/transport.ts (return a copy the hand-off may detach)");
    case 'shared':
      // TODO(learner): return the bytes copied once into a Uint8Array over a new SharedArrayBuffer(bytes.length).
      return notImplemented("stage('shared') in exercises/task-granularity/transport.ts (copy the bytes into a SharedArrayBuffer once)");
  }
}

export function transferList(transport: Transport, staged: Uint8Array): ArrayBuffer[] {
  if (transport === 'clone') return [];
  // TODO(learner): for 'transfer', list the buffer to move: [staged.buffer as ArrayBuffer]. For 'shared', nothing:
  // posting a SharedArrayBuffer shares it (and it cannot be transferred).
  return notImplemented(`transferList('${transport}') in exercises/task-granularity/transport.ts (which buffers does postMessage move?)`);
}
