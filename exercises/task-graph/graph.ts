/**
 * Your task graph for the task-graph lab: the product M0 · M1 · ... · M(count-1) of `count` matrices, as tasks on a
 * pool of worker threads. `g.input(k)` is a future (a promise) of matrix k; `g.multiply(left, right)` is a future of
 * their product, computed on the pool as soon as both of its futures are ready. The harness awaits the future you
 * return, checks the matrix exactly, and computes your graph's work and span from the tasks it recorded.
 * Check your work with:   npm run lab -- task-graph --quick
 * The episode (episodes/06-task-granularity.mdx, "Task graphs and futures") explains work, span and Brent's bound.
 */
import { notImplemented } from '@parallel-course/harness/learner.ts';
import type { Future, TaskGraph } from '@parallel-course/task-graph/task-graph.ts';

/**
 * The worked example: a chain. Each product waits for the one before it, so the graph's span is its work and no
 * number of workers makes it faster. Nothing here awaits: the futures are the graph, and the event loop runs it.
 */
export function flatProduct(g: TaskGraph, count: number): Future {
  let product = g.input(0);
  for (let k = 1; k < count; k++) product = g.multiply(product, g.input(k));
  return product;
}

/** The same product as a graph whose span grows with log2(count), not with count. */
export function treeProduct(g: TaskGraph, count: number): Future {
  // TODO(learner): return a future of the same product, built from g.input and g.multiply, whose longest chain of
  // dependent products is as short as you can make it. Constraints: keep the order of the factors (the product is
  // associative, so you may regroup them, but not commutative); count may be any whole number from 1 up; every
  // multiply you start must lead to the result.
  return notImplemented('treeProduct in exercises/task-graph/graph.ts (regroup the product so that independent multiplies can run at once)');
}
