/**
 * The solution's task graphs of the task-graph lab: the product M0 · M1 · ... · M(count-1) of `count` matrices, as
 * tasks on a pool of worker threads. `g.input(k)` is a future (a promise) of matrix k; `g.multiply(left, right)` is a
 * future of their product, computed on the pool as soon as both of its futures are ready. The harness awaits the
 * future returned, checks the matrix exactly, and computes the graph's work and span from the tasks it recorded.
 * Check it with:   npm run lab -- task-graph --impl solution --quick
 * The episode (episodes/06-task-granularity.mdx, "Task graphs and futures") explains work, span and Brent's bound.
 */
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

/**
 * The same product as a balanced tree: neighbours multiplied in pairs, level by level, an odd one out carried up as
 * it is. count - 1 products, as in the chain, but the longest chain of dependent ones is ceil(log2(count)).
 */
export function treeProduct(g: TaskGraph, count: number): Future {
  let level: Future[] = Array.from({ length: count }, (_, k) => g.input(k));
  while (level.length > 1) {
    const next: Future[] = [];
    for (let k = 0; k + 1 < level.length; k += 2) next.push(g.multiply(level[k]!, level[k + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0]!;
}
