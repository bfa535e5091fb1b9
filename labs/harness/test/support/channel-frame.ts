/**
 * Source text for a planted learner module: `frame(message)` writes one message straight onto the runner's IPC fd, as
 * the channel frames it ('advanced' serialization: a 4-byte big-endian length, then V8's serialization), so the
 * supervisor reads it as if the runner had sent it. For the tests of forged messages (judge-clock, learner-reach).
 */
export const FRAME_SOURCE = `import { writeSync } from 'node:fs';
import { serialize } from 'node:v8';
const fd = (process as unknown as { channel?: { fd: number } }).channel?.fd;
const frame = (m: unknown) => {
  if (fd === undefined) return;
  const body = serialize(m);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  writeSync(fd, Buffer.concat([head, body]));
};
`;
