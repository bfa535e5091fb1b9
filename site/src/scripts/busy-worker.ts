/// <reference lib="webworker" />
/** Web Worker of the event-loop demo: runs the same CPU task off the main thread and posts back count and time. */
import { countPrimesBelow } from '../lib/busy-work.ts';

self.addEventListener('message', (event: MessageEvent<{ limit: number }>) => {
  const started = performance.now();
  const count = countPrimesBelow(event.data.limit);
  self.postMessage({ count, taskMs: performance.now() - started });
});
