/**
 * The worker thread of the hand-off cases: receives a payload, checksums it, answers. A transferred payload is
 * transferred back, so the sender reuses its staged buffers (no fresh pages per call).
 */
import { parentPort } from 'node:worker_threads';
import type { HandoffReply, HandoffRequest } from './handoff-protocol.ts';
import { checksum, warmChecksum } from './payload.ts';

if (!parentPort) throw new Error('handoff-worker.ts runs in a worker thread (new Worker), not on its own');
const port = parentPort;
warmChecksum();

port.on('message', (request: HandoffRequest) => {
  const receivedAtNs = process.hrtime.bigint();
  const reply: HandoffReply = { checksum: checksum(request.bytes), receivedAtNs };
  if (request.transport === 'transfer') {
    reply.bytes = request.bytes;
    port.postMessage(reply, [request.bytes.buffer as ArrayBuffer]);
  } else {
    port.postMessage(reply);
  }
});

// Started, modules loaded, checksum warm: the case's setup waits for this before anything is timed.
port.postMessage('ready');
