/** The IPC messages between the lab's process pool and its child processes (serialized as JSON over a pipe). */
import type { FaultyChunkTask } from './task-runner.ts';

export type ToChild = { type: 'task'; id: number; task: FaultyChunkTask };

export type FromChild =
  | { type: 'ready' }
  | { type: 'result'; id: number; counts: number[]; computeNs: number }
  | { type: 'error'; id: number; message: string };
