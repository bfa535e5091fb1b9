/** Messages between a hand-off case and its worker thread (src/handoff-worker.ts). */
export type Transport = 'clone' | 'transfer' | 'shared';

export interface HandoffRequest {
  transport: Transport;
  bytes: Uint8Array;
}

export interface HandoffReply {
  checksum: number;
  /** process.hrtime.bigint() in the worker when the message arrived: the same monotonic clock in every thread. */
  receivedAtNs: bigint;
  /** Only for 'transfer': the payload, transferred back so the sender can reuse its memory. */
  bytes?: Uint8Array;
}
