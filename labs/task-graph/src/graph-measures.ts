/**
 * Work, span and Brent's bound of a task graph, from its recorded tasks (task-graph.ts). Pure.
 *
 * - work W: the sum of the tasks' costs, what one worker would do;
 * - span S: the costliest chain of dependent tasks (the critical path), what no number of workers can shorten;
 * - the work and span laws: T_P >= W / P and T_P >= S, so the speedup W / T_P is at most min(P, W / S);
 * - Brent's bound (R. P. Brent, "The parallel evaluation of general arithmetic expressions", J. ACM 21(2), 1974;
 *   for any greedy scheduler, one that never leaves a worker idle while a task is ready): T_P <= W / P + S, so such a
 *   scheduler reaches a speedup of at least W / (W / P + S). Both ignore the scheduler's own cost per task, which is
 *   why the lab measures that too.
 * A cost is any non-negative number: the worker's ms for the measured graph, or 1 per task to count tasks.
 */

/** A task as graph-measures needs it: its id, the ids it depends on, its cost. */
export interface CostedTask {
  id: number;
  deps: readonly number[];
  cost: number;
}

export interface WorkSpan {
  /** Sum of the costs. */
  work: number;
  /** The largest sum of costs along a chain of dependencies. */
  span: number;
  /** Tasks in the graph. */
  tasks: number;
}

/**
 * W and S of a graph whose tasks are listed so that every task comes after the tasks it depends on (as a graph's
 * tasks always are: a task can only wait for futures that exist when it is created). A dependency on an unknown or
 * later id, or a cost that is not a non-negative number, is an error that names the task.
 */
export function workAndSpan(tasks: readonly CostedTask[]): WorkSpan {
  const finish = new Map<number, number>();
  let work = 0;
  let span = 0;
  for (const task of tasks) {
    if (!(task.cost >= 0) || !Number.isFinite(task.cost)) throw new RangeError(`task ${task.id} has cost ${task.cost}: a cost is a finite number >= 0 (did it finish?)`);
    let start = 0;
    for (const dep of task.deps) {
      const at = finish.get(dep);
      if (at === undefined) throw new RangeError(`task ${task.id} depends on task ${dep}, which is not listed before it`);
      start = Math.max(start, at);
    }
    const end = start + task.cost;
    if (finish.has(task.id)) throw new RangeError(`task ${task.id} is listed twice`);
    finish.set(task.id, end);
    work += task.cost;
    span = Math.max(span, end);
  }
  return { work, span, tasks: tasks.length };
}

export interface Bounds {
  /** W / P + S: Brent's upper bound on a greedy schedule's time, in the costs' unit. */
  brentTime: number;
  /** max(W / P, S): no schedule on P workers is faster (the work and span laws). */
  lowerTime: number;
  /** W / S: the graph's parallelism, the most workers it can keep busy on average. */
  parallelism: number;
  /** min(P, W / S): the largest speedup any schedule can reach on P workers. */
  speedupCeiling: number;
  /** W / (W / P + S): the speedup a greedy scheduler reaches at least (Brent), with no overhead per task. */
  brentSpeedup: number;
}

/** The bounds of a graph with work W and span S on P workers; a graph with no work has speedup 1 by convention. */
export function bounds({ work, span }: Pick<WorkSpan, 'work' | 'span'>, p: number): Bounds {
  if (!Number.isInteger(p) || p < 1) throw new RangeError(`P must be a whole number of workers >= 1, got ${p}`);
  if (work === 0) return { brentTime: 0, lowerTime: 0, parallelism: 1, speedupCeiling: 1, brentSpeedup: 1 };
  const brentTime = work / p + span;
  const lowerTime = Math.max(work / p, span);
  const parallelism = work / span;
  return { brentTime, lowerTime, parallelism, speedupCeiling: work / lowerTime, brentSpeedup: work / brentTime };
}

/**
 * The measured graph's work and span in ms (each task's compute time) and in tasks (cost 1 each). The tasks are taken
 * in the order they became ready, which puts every task after those it waited for whatever order they were created in.
 */
export function measureGraph(tasks: readonly { id: number; deps: readonly number[]; computeMs: number; readyAt: number }[]): { ms: WorkSpan; count: WorkSpan } {
  const ordered = [...tasks].sort((x, y) => x.readyAt - y.readyAt);
  return {
    ms: workAndSpan(ordered.map((t) => ({ id: t.id, deps: t.deps, cost: t.computeMs }))),
    count: workAndSpan(ordered.map((t) => ({ id: t.id, deps: t.deps, cost: 1 }))),
  };
}
