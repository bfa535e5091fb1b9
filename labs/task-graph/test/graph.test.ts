/**
 * The graph's measures and the graph helper, without a pool: work and span against hand-computed graphs, Brent's
 * bound, and the bound computed from the graph a learner's code builds (the solution's tree and chain, a planted
 * chain written here, the exercise's unwritten tree), on a stand-in runner that multiplies on this thread.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bounds, measureGraph, workAndSpan } from '../src/graph-measures.ts';
import { multiplyMod, productSerial, seededMatrices, seededMatrix, MODULUS } from '../src/matrix.ts';
import { TaskGraph, TaskGraphError, type Future, type MatrixRunner } from '../src/task-graph.ts';
import * as solution from '../../../solutions/task-graph/graph.ts';
import * as exercise from '../../../exercises/task-graph/graph.ts';

/** Multiplies on this thread after a macrotask (so tasks interleave as on a pool); each product "costs" 1 ms. */
const localRunner: MatrixRunner = {
  run: async (task) => {
    await new Promise((resolve) => setImmediate(resolve));
    return { c: multiplyMod(task.a, task.b), computeMs: 1 };
  },
};

async function runGraph(build: (g: TaskGraph, count: number) => Future, count: number, n = 3) {
  const matrices = seededMatrices(7, count, n);
  const g = new TaskGraph(localRunner, matrices);
  const result = g.finish(await build(g, count), 'the graph under test');
  return { result, expected: productSerial(matrices), measured: measureGraph(g.tasks) };
}

describe('work and span', () => {
  it('a chain of 5 unit tasks: W = S = 5, so the ceiling is 1 at any P and Brent gives P / (P + 1)', () => {
    const chain = [0, 1, 2, 3, 4].map((id) => ({ id, deps: id === 0 ? [] : [id - 1], cost: 1 }));
    assert.deepEqual(workAndSpan(chain), { work: 5, span: 5, tasks: 5 });
    for (const p of [1, 2, 64]) {
      const b = bounds({ work: 5, span: 5 }, p);
      assert.equal(b.speedupCeiling, 1);
      assert.equal(b.parallelism, 1);
      // Reference: W / (W / P + S) = 5 / (5 / P + 5) = P / (P + 1).
      assert.ok(Math.abs(b.brentSpeedup - p / (p + 1)) < 1e-12);
    }
  });

  it('a tree of 8 leaves: 7 tasks, span 3; with costs, the costliest path wins', () => {
    // Level 1: tasks 0-3, level 2: 4 (0, 1) and 5 (2, 3), level 3: 6 (4, 5).
    const tree = [
      { id: 0, deps: [], cost: 1 }, { id: 1, deps: [], cost: 1 }, { id: 2, deps: [], cost: 1 }, { id: 3, deps: [], cost: 4 },
      { id: 4, deps: [0, 1], cost: 1 }, { id: 5, deps: [2, 3], cost: 1 }, { id: 6, deps: [4, 5], cost: 1 },
    ];
    // Reference: W = 1+1+1+4+1+1+1 = 10; S = 4 (task 3) + 1 (task 5) + 1 (task 6) = 6.
    assert.deepEqual(workAndSpan(tree), { work: 10, span: 6, tasks: 7 });
    // Reference at P = 2: W/P + S = 5 + 6 = 11; ceiling min(2, 10/6) = 10/6; Brent 10/11.
    const b = bounds({ work: 10, span: 6 }, 2);
    assert.equal(b.brentTime, 11);
    assert.ok(Math.abs(b.speedupCeiling - 10 / 6) < 1e-12);
    assert.ok(Math.abs(b.brentSpeedup - 10 / 11) < 1e-12);
  });

  it('says which task is wrong', () => {
    assert.throws(() => workAndSpan([{ id: 0, deps: [1], cost: 1 }]), /task 0 depends on task 1, which is not listed before it/);
    assert.throws(() => workAndSpan([{ id: 0, deps: [], cost: Number.NaN }]), /task 0 has cost NaN: a cost is a finite number >= 0 \(did it finish\?\)/);
    assert.throws(() => bounds({ work: 1, span: 1 }, 0), /P must be a whole number of workers >= 1, got 0/);
  });
});

describe('the matrices', () => {
  it('multiply mod 1,000,003 exactly (a hand-computed 2 x 2), associative, not commutative', () => {
    // Reference: [[1, 2], [3, 4]] · [[5, 6], [7, 8]] = [[19, 22], [43, 50]]; entries near the modulus wrap.
    assert.deepEqual([...multiplyMod(Float64Array.of(1, 2, 3, 4), Float64Array.of(5, 6, 7, 8))], [19, 22, 43, 50]);
    const big = MODULUS - 1; // (-1) · (-1) = 1 mod p, summed twice: 2
    assert.deepEqual([...multiplyMod(Float64Array.of(big, big, 0, 0), Float64Array.of(big, 0, big, 0))], [2, 0, 0, 0]);
    const [a, b, c] = seededMatrices(3, 3, 16) as [Float64Array, Float64Array, Float64Array];
    assert.deepEqual(multiplyMod(multiplyMod(a, b), c), multiplyMod(a, multiplyMod(b, c)));
    assert.notDeepEqual(multiplyMod(a, b), multiplyMod(b, a));
    assert.throws(() => seededMatrix(1, 0, 0), /matrix side must be an integer in \[1, 1024\], got 0/);
  });
});

describe('the bound comes from the graph the code built', () => {
  it("the solution's tree: count - 1 tasks, span ceil(log2(count)), the right product", async () => {
    for (const count of [1, 2, 3, 5, 8, 12, 17]) {
      const { result, expected, measured } = await runGraph(solution.treeProduct, count);
      assert.deepEqual(result, expected, `count ${count}`);
      assert.equal(measured.count.work, count - 1, `tasks for count ${count}`);
      assert.equal(measured.count.span, Math.ceil(Math.log2(count)), `span for count ${count}`);
      // Every product cost 1 ms on the stand-in runner: the ms measures are the counts.
      assert.deepEqual(measured.ms, measured.count);
    }
  });

  it('the chain (the worked example, the same in the exercise): span = work, ceiling 1', async () => {
    for (const build of [solution.flatProduct, exercise.flatProduct]) {
      const { result, expected, measured } = await runGraph(build, 9);
      assert.deepEqual(result, expected);
      assert.deepEqual(measured.count, { work: 8, span: 8, tasks: 8 });
      assert.equal(bounds(measured.ms, 2).speedupCeiling, 1);
    }
  });

  it('a planted chain written with async functions (edges found from the data): span = work, bound 1', async () => {
    // A learner's recursion that happens to be a chain: product(0..k) = product(0..k-1) · M(k), through async wrappers.
    const planted = (g: TaskGraph, count: number): Future => {
      const upTo = async (k: number): Promise<Float64Array> => (k === 0 ? g.input(0) : g.multiply(upTo(k - 1), g.input(k)));
      return upTo(count - 1);
    };
    const { result, expected, measured } = await runGraph(planted, 6);
    assert.deepEqual(result, expected);
    assert.equal(measured.count.work, 5);
    assert.equal(measured.count.span, 5);
    assert.equal(bounds(measured.ms, 2).speedupCeiling, 1);
    assert.equal(bounds(measured.ms, 64).speedupCeiling, 1);
  });

  it('a wrong order is a different product (what the check catches)', async () => {
    const swapped = (g: TaskGraph, count: number): Future => g.multiply(g.input(1), g.input(0));
    const { result, expected } = await runGraph(swapped, 2);
    assert.notDeepEqual(result, expected);
  });
});

describe('the graph helper refuses what hides an edge or leaves work behind', () => {
  it('a copied matrix, a stray multiply, an answer made on the side, a bad input number', async () => {
    const matrices = seededMatrices(1, 3, 2);
    const copy = new TaskGraph(localRunner, matrices);
    await assert.rejects(copy.multiply(copy.input(0).then((m) => m.slice()), copy.input(1)), (error: Error) => {
      assert.ok(error instanceof TaskGraphError);
      assert.match(error.message, /^multiply #0: its left argument resolved to a matrix this graph did not produce\. Pass the futures/);
      return true;
    });
    const stray = new TaskGraph(localRunner, matrices);
    const unused = stray.multiply(stray.input(1), stray.input(2));
    const first = await stray.input(0);
    assert.throws(() => stray.finish(first, 'treeProduct in exercises/task-graph/graph.ts'), /^TaskGraphError: treeProduct in exercises\/task-graph\/graph\.ts returned while 1 of its 1 tasks were still running: every multiply\(\) you start must lead to the result$/);
    await unused;
    const side = new TaskGraph(localRunner, matrices);
    assert.throws(() => side.finish(productSerial(matrices), 'treeProduct'), /treeProduct returned a matrix this graph did not produce/);
    await assert.rejects(side.input(3), /input\(3\): there are 3 inputs, numbered 0 to 2/);
  });

  it("the exercise's tree fails kindly, naming the file", () => {
    const g = new TaskGraph(localRunner, seededMatrices(1, 2, 2));
    assert.throws(() => exercise.treeProduct(g, 2), /^NotImplementedError: not implemented: treeProduct in exercises\/task-graph\/graph\.ts \(/);
  });
});
