/** The piscina worker of the lab: one matrix product (timed inside the worker), or an empty task (the overhead case). */
import { multiplyMod } from './matrix.ts';
import type { MultiplyResult, MultiplyTask } from './task-graph.ts';

/** An empty task: does nothing and answers its number, so the pool's own cost per task is all that is timed. */
export interface EmptyTask {
  kind: 'empty';
  index: number;
}

export default function graphTask(task: MultiplyTask | EmptyTask): MultiplyResult | number {
  if (task.kind === 'empty') return task.index;
  const started = performance.now();
  const c = multiplyMod(task.a, task.b);
  return { c, computeMs: performance.now() - started };
}
