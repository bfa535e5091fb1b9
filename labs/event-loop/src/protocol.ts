/** Messages between the harness and a server process (server-main.ts), over the fork IPC channel. */

export type VariantName = 'inline' | 'chunked' | 'threadpool' | 'pool';

export type ServerRequest = { type: 'reset-loop-delay' } | { type: 'loop-delay' } | { type: 'close' };

export type ServerMessage =
  | { type: 'ready'; port: number }
  | { type: 'failed'; message: string }
  | { type: 'loop-delay-reset' }
  | { type: 'loop-delay'; p50Ms: number; p99Ms: number; maxMs: number; count: number };
