/**
 * A worker of the event-loop lab's pool: handles the requests it is sent, with the course's handler or, for the
 * exercise, with the learner's handler source (compiled here, inside the worker, never on the page). An error in the
 * learner's code is reported with its line and column in that code ("(line L, column C)", read by the page's editor).
 */
import { positionInFunctionStack } from '../learner-code.ts';
import { countPrimesInRange, handleRequests } from '../primes.ts';

type Handler = (start: number, end: number) => number;
let handler: Handler = countPrimesInRange;
/** Lines of the learner's code, or 0 while the course's handler is in use. */
let learnerLines = 0;

/** The error's message, with its position in the learner's code when the stack shows one. */
function describe(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const at = learnerLines > 0 && error instanceof Error ? positionInFunctionStack(error.stack ?? '', 1, learnerLines) : null;
  return at ? `${message} (line ${at.line}, column ${at.column})` : message;
}

self.onmessage = (event: MessageEvent<{ id: number; from?: number; count?: number; source?: string }>) => {
  const { id, from, count, source } = event.data;
  try {
    if (source !== undefined) {
      learnerLines = source.split('\n').length;
      // One line ("use strict") before the learner's code: positionInFunctionStack takes it off.
      handler = new Function(`"use strict";\n${source}\nreturn typeof countPrimesInRange === 'function' ? countPrimesInRange : undefined;`)() as Handler;
      if (typeof handler !== 'function') throw new Error('the code must define a function countPrimesInRange(start, end)');
      self.postMessage({ id, result: 0 });
      return;
    }
    self.postMessage({ id, result: handleRequests(from ?? 0, count ?? 0, handler) });
  } catch (error) {
    self.postMessage({ id, error: describe(error) });
  }
};
