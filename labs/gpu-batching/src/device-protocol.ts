/**
 * Messages between the parent (device-pool.ts) and one device process (device-main.ts), over the fork IPC channel
 * with `serialization: 'advanced'` (structured clone), so Float32Array outputs arrive as typed arrays.
 */
import type { ExecutionProvider } from './session.ts';

/** Failures a test can inject into a device process; the lab itself never sets them. */
export interface Faults {
  /** Chunk ids whose first attempt reports an error (the process survives). */
  failChunks?: number[];
  /** Chunk ids whose first attempt kills the process (exit code 70) before it answers. */
  crashChunks?: number[];
  /** Every inference call with more samples than this fails with an out-of-memory error. */
  oomAbove?: number;
}

/** Passed as the child's only argument (JSON). */
export interface DeviceConfig {
  device: number;
  ep: ExecutionProvider;
  threads: number;
  modelPath: string;
  implDir: string;
  faults?: Faults;
}

/**
 * Where a device process gets its samples: `disk` reads each chunk's files on its own reader thread (every device
 * does its own I/O, as a real multi-GPU job does); `memory` reads the data set once per process and keeps it, so
 * later passes measure the devices' compute alone.
 */
export type DeviceDataSource = 'disk' | 'memory';

export interface ChunkRequest {
  type: 'chunk';
  source: DeviceDataSource;
  id: number;
  attempt: number;
  dir: string;
  /** Samples in the whole data set (the chunk reads [start, start + count) of it). */
  datasetCount: number;
  start: number;
  count: number;
  batch: number;
  prefetch: number;
}

export type ParentMessage = ChunkRequest | { type: 'close' };

export type DeviceMessage =
  | { type: 'ready'; ep: ExecutionProvider; pid: number; visibleDevices: string | null; loadMs: number }
  | { type: 'failed'; message: string }
  /** rssBytes: the process's resident memory when the chunk finished (runtime + session + buffers; host memory on a GPU). */
  | { type: 'done'; id: number; logits: Float32Array; busyMs: number; readMs: number; latenciesMs: number[]; rssBytes: number }
  | { type: 'chunk-failed'; id: number; message: string }
  | { type: 'halved'; from: number; to: number; message: string };
