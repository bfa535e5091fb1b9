/**
 * The learner's task graph in the page (episode 06's part "task graphs"). Their `treeProduct(g, count)` is untrusted,
 * so it never runs on the page: it runs once in a throwaway worker with a time limit (learner-code.ts), where `g` is
 * a recorder whose futures resolve to placeholders, not matrices. What comes back is the graph it built (which
 * multiply took which futures), as data; the page checks that data and replays it on its workers with the lab's own
 * TaskGraph, so the check, the times, the work and the span are those of the graph the learner's code built.
 */
import type { Future, TaskGraph } from '@parallel-course/task-graph/task-graph.ts';

/** An operand: input matrix k, or the product of the graph's task k (tasks numbered in the order they became ready). */
export interface GraphRef {
  kind: 'input' | 'task';
  index: number;
}

/** The graph a learner's function built over `count` inputs: every task's two operands, and the result. */
export interface RecordedGraph {
  count: number;
  tasks: { left: GraphRef; right: GraphRef }[];
  result: GraphRef;
}

/** Most multiplies a graph may start per input: a product of `count` matrices needs count - 1. */
const MAX_TASKS_PER_INPUT = 4;

/**
 * Runs `fn(g, count)` with a recording `g` and resolves with the graph it built, or rejects with a message in the
 * Node lab's words (TaskGraphError). Self-contained (it is sent to the worker as source: no imports, no outer names).
 */
export function recordGraph(fn: (g: unknown, count: number) => unknown, count: number): Promise<RecordedGraph> {
  const maxTasks = 4 * Math.max(1, count); // MAX_TASKS_PER_INPUT (a literal: this function travels as source)
  const refs = new WeakMap<object, { kind: 'input' | 'task'; index: number }>();
  const inputs: object[] = [];
  const tasks: { left: { kind: 'input' | 'task'; index: number }; right: { kind: 'input' | 'task'; index: number }; call: number }[] = [];
  let started = 0;
  const placeholder = (ref: { kind: 'input' | 'task'; index: number }): object => {
    const p = Object.freeze({ placeholder: `${ref.kind} ${ref.index}` });
    refs.set(p, ref);
    return p;
  };
  const refOf = (value: unknown, what: string) => {
    const ref = typeof value === 'object' && value !== null ? refs.get(value) : undefined;
    if (ref === undefined) throw new Error(`${what} resolved to something this graph did not produce. Pass the futures that input() and multiply() return (or promises that resolve to them), not values made elsewhere.`);
    return ref;
  };
  const g = {
    count,
    input(k: number): Promise<object> {
      if (!Number.isInteger(k) || k < 0 || k >= count) return Promise.reject(new Error(`input(${String(k)}): there are ${count} inputs, numbered 0 to ${count - 1}`));
      inputs[k] ??= placeholder({ kind: 'input', index: k });
      return Promise.resolve(inputs[k]);
    },
    multiply(left: unknown, right: unknown): Promise<object> {
      const call = started++;
      if (call >= maxTasks) throw new Error(`your code started more than ${maxTasks} multiplies; the product of ${count} matrices needs ${count - 1}`);
      return Promise.all([left, right]).then(([a, b]) => {
        const task = { left: refOf(a, `multiply #${call}: its left argument`), right: refOf(b, `multiply #${call}: its right argument`), call };
        tasks.push(task);
        return placeholder({ kind: 'task', index: tasks.length - 1 });
      });
    },
  };
  return Promise.resolve(fn(g, count))
    .then((value) => new Promise((settled) => setTimeout(() => settled(value), 0)))
    .then((value) => {
      const result = refOf(value, 'treeProduct returned a value that');
      if (tasks.length < started) throw new Error(`treeProduct returned while ${started - tasks.length} of its ${started} multiplies were still waiting for their inputs: every multiply() you start must lead to the result`);
      // Every task must lead to the result: walk back from it.
      const reached = new Array<boolean>(tasks.length).fill(false);
      const stack = result.kind === 'task' ? [result.index] : [];
      while (stack.length > 0) {
        const id = stack.pop()!;
        if (reached[id]) continue;
        reached[id] = true;
        for (const ref of [tasks[id]!.left, tasks[id]!.right]) if (ref.kind === 'task') stack.push(ref.index);
      }
      const stray = tasks.findIndex((_, id) => !reached[id]);
      if (stray >= 0) throw new Error(`multiply #${tasks[stray]!.call} does not lead to the result: every multiply() you start must lead to the result`);
      return { count, tasks: tasks.map(({ left, right }) => ({ left, right })), result };
    });
}

/** The worker's harness for tryLearnerCode: calls the learner's function through recordGraph. */
export const RECORDER_HARNESS = `(fn, args) => (${recordGraph.toString()})(fn, args[0])`;

/**
 * `value` as a RecordedGraph over `count` inputs, or a message saying what is wrong with it. What the worker posted
 * is checked like any input from untrusted code: operands in range, every task after those it uses (so the graph has
 * no cycle), at most MAX_TASKS_PER_INPUT tasks per input.
 */
export function parseRecordedGraph(value: unknown, count: number): RecordedGraph | string {
  const v = value as Partial<RecordedGraph> | null;
  if (typeof v !== 'object' || v === null || !Array.isArray(v.tasks) || v.count !== count) return 'the worker did not send back a graph over the page\'s inputs';
  if (v.tasks.length > MAX_TASKS_PER_INPUT * count) return `the graph has ${v.tasks.length} tasks, more than ${MAX_TASKS_PER_INPUT * count}`;
  const okRef = (r: unknown, before: number): r is GraphRef => {
    const ref = r as GraphRef | null;
    return typeof ref === 'object' && ref !== null && Number.isInteger(ref.index) && ref.index >= 0 && (ref.kind === 'input' ? ref.index < count : ref.kind === 'task' && ref.index < before);
  };
  for (const [id, task] of v.tasks.entries()) {
    if (typeof task !== 'object' || task === null || !okRef(task.left, id) || !okRef(task.right, id)) return `task ${id} of the graph has an operand that is neither an input nor an earlier task`;
  }
  if (!okRef(v.result, v.tasks.length)) return 'the graph\'s result is neither an input nor one of its tasks';
  return { count, tasks: v.tasks.map((t) => ({ left: { kind: t.left.kind, index: t.left.index }, right: { kind: t.right.kind, index: t.right.index } })), result: { kind: v.result.kind, index: v.result.index } };
}

/** Builds `graph` on `g` (the lab's TaskGraph over real matrices) and returns the future of its result. */
export function replayGraph(g: TaskGraph, graph: RecordedGraph): Future {
  const futures: Future[] = [];
  const future = (ref: GraphRef): Future => (ref.kind === 'input' ? g.input(ref.index) : futures[ref.index]!);
  for (const task of graph.tasks) futures.push(g.multiply(future(task.left), future(task.right)));
  return future(graph.result);
}

/** The exercise's starting code: the chain as the worked example, treeProduct for the learner to write. */
export const STARTER_TREE_PRODUCT = `// g.input(k): a future (a promise) of matrix k.
// g.multiply(left, right): a future of left · right, computed on a
// worker as soon as both futures are ready. Nothing here awaits:
// the futures are the graph.

// The worked example: a chain, each product waits for the one before.
function flatProduct(g, count) {
  let product = g.input(0);
  for (let k = 1; k < count; k++) product = g.multiply(product, g.input(k));
  return product;
}

// Your graph: the same product (keep the factors' order), with the
// shortest longest chain of dependent multiplies you can make.
function treeProduct(g, count) {
  throw new Error('not implemented: treeProduct (regroup the product so that independent multiplies can run at once)');
}
`;
