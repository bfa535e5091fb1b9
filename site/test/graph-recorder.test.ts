/**
 * The page's recorder of the learner's task graph (src/browser-lab/graph-recorder.ts), in Node: the graphs a tree, a
 * chain and broken code build, as the worker would send them back, and the page's check of what a worker sends.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRecordedGraph, recordGraph, RECORDER_HARNESS, STARTER_TREE_PRODUCT, type RecordedGraph } from '../src/browser-lab/graph-recorder.ts';
import { workAndSpan } from '../../labs/task-graph/src/graph-measures.ts';

type G = { input(k: number): Promise<unknown>; multiply(a: unknown, b: unknown): Promise<unknown> };

function tree(g: G, count: number): unknown {
  let level = Array.from({ length: count }, (_, k) => g.input(k));
  while (level.length > 1) {
    const next = [];
    for (let k = 0; k + 1 < level.length; k += 2) next.push(g.multiply(level[k], level[k + 1]));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0];
}

function chain(g: G, count: number): unknown {
  let product = g.input(0);
  for (let k = 1; k < count; k++) product = g.multiply(product, g.input(k));
  return product;
}

/** Tasks and span (in tasks) of a recorded graph. */
function shape(graph: RecordedGraph): { tasks: number; span: number } {
  const ws = workAndSpan(graph.tasks.map((t, id) => ({ id, deps: [t.left, t.right].filter((r) => r.kind === 'task').map((r) => r.index), cost: 1 })));
  return { tasks: ws.tasks, span: ws.span };
}

describe('the graph recorder', () => {
  it('records a tree over 64 inputs as 63 tasks with span 6, and a chain as 63 with span 63', async () => {
    assert.deepEqual(shape(await recordGraph(tree as never, 64)), { tasks: 63, span: 6 });
    assert.deepEqual(shape(await recordGraph(chain as never, 64)), { tasks: 63, span: 63 });
    // Reference: ceil(log2(5)) = 3 for 5 inputs; one input is no task at all.
    assert.deepEqual(shape(await recordGraph(tree as never, 5)), { tasks: 4, span: 3 });
    assert.deepEqual(await recordGraph(tree as never, 1), { count: 1, tasks: [], result: { kind: 'input', index: 0 } });
  });

  it('refuses a stray multiply, a value made elsewhere, an input out of range and too many multiplies, by name', async () => {
    await assert.rejects(recordGraph(((g: G) => (g.multiply(g.input(0), g.input(1)), g.input(0))) as never, 2), /multiply #0 does not lead to the result/);
    await assert.rejects(recordGraph(((g: G) => g.multiply(g.input(0), Promise.resolve({ placeholder: 'input 1' }))) as never, 2), /multiply #0: its right argument resolved to something this graph did not produce/);
    await assert.rejects(recordGraph(((g: G) => g.multiply(g.input(0), g.input(2))) as never, 2), /input\(2\): there are 2 inputs, numbered 0 to 1/);
    await assert.rejects(recordGraph(((g: G) => 42) as never, 2), /treeProduct returned a value that resolved to something this graph did not produce/);
    assert.throws(() => recordGraph(((g: G) => { for (;;) g.multiply(g.input(0), g.input(1)); }) as never, 2), /more than 8 multiplies; the product of 2 matrices needs 1/);
  });

  it('works as the worker harness (its own source, no outer names), and the starting code says not implemented', async () => {
    const run = new Function('source', 'harness', `${STARTER_TREE_PRODUCT}\nreturn { starter: () => treeProduct, harness: eval(harness) };`) as (s: string, h: string) => { starter(): unknown; harness: (fn: unknown, args: unknown[]) => Promise<RecordedGraph> };
    const { starter, harness } = run(STARTER_TREE_PRODUCT, RECORDER_HARNESS);
    assert.deepEqual(shape(await harness(tree, [64])), { tasks: 63, span: 6 });
    assert.throws(() => harness(starter(), [64]), /^Error: not implemented: treeProduct/);
  });

  it('checks what a worker sends back: operands in range, no task before its operands, a result', () => {
    const ok = { count: 2, tasks: [{ left: { kind: 'input', index: 0 }, right: { kind: 'input', index: 1 } }], result: { kind: 'task', index: 0 } };
    assert.deepEqual(parseRecordedGraph(ok, 2), ok);
    assert.match(parseRecordedGraph({ ...ok, count: 3 }, 2) as string, /did not send back a graph over the page's inputs/);
    assert.match(parseRecordedGraph({ ...ok, tasks: [{ left: { kind: 'task', index: 0 }, right: { kind: 'input', index: 1 } }] }, 2) as string, /task 0 of the graph has an operand that is neither an input nor an earlier task/);
    assert.match(parseRecordedGraph({ ...ok, result: { kind: 'task', index: 1 } }, 2) as string, /result is neither an input nor one of its tasks/);
    assert.match(parseRecordedGraph({ ...ok, tasks: Array(9).fill(ok.tasks[0]) }, 2) as string, /9 tasks, more than 8/);
  });
});
