/**
 * A worker of the event-loop lab's pool: handles the requests it is sent, with the course's handler or, for the
 * exercise, with the learner's handler source (compiled here, inside the worker, never on the page).
 */
import { countPrimesInRange, handleRequests } from '../primes.ts';

type Handler = (start: number, end: number) => number;
let handler: Handler = countPrimesInRange;

self.onmessage = (event: MessageEvent<{ id: number; from?: number; count?: number; source?: string }>) => {
  const { id, from, count, source } = event.data;
  try {
    if (source !== undefined) {
      handler = new Function(`"use strict";\n${source}\nreturn countPrimesInRange;`)() as Handler;
      if (typeof handler !== 'function') throw new Error('the code must define a function countPrimesInRange(start, end)');
      self.postMessage({ id, result: 0 });
      return;
    }
    self.postMessage({ id, result: handleRequests(from ?? 0, count ?? 0, handler) });
  } catch (error) {
    self.postMessage({ id, error: (error as Error)?.message ?? String(error) });
  }
};
