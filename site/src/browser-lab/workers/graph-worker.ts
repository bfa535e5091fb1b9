/** A worker of the in-page task-graph part: one matrix product per request, timed inside the worker. */
import { multiplyMod } from '@parallel-course/task-graph/matrix.ts';

self.onmessage = (event: MessageEvent<{ id: number; a: Float64Array; b: Float64Array }>) => {
  const { id, a, b } = event.data;
  try {
    const started = performance.now();
    const c = multiplyMod(a, b);
    self.postMessage({ id, result: { c, computeMs: performance.now() - started } });
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
