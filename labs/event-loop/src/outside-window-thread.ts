/**
 * The worker thread of one window of the judge's probe from outside (outside-probe.ts windowInThread): runs it on this
 * thread's own event loop, so the judge's main thread, busy with other runners' checks, cannot hold the /pings'
 * answers. Input: workerData { socketPath, accounts, fastestKeyMs }. Output: one message, the OutsideWindow (or the thread's error).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { oneWindow } from './outside-window.ts';

const { socketPath, accounts, fastestKeyMs } = workerData as { socketPath: string; accounts: number[]; fastestKeyMs: number };
parentPort?.postMessage(await oneWindow(socketPath, accounts, fastestKeyMs));
