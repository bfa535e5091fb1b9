/**
 * The task graph the learner builds: `input(k)` is a future of input matrix k, `multiply(left, right)` a future of
 * their product, computed on the pool as soon as both are ready. A promise is a future; `multiply` awaits its two
 * with `Promise.all` and hands the product to a worker, so a program of `multiply` calls over futures *is* a task
 * graph, run by the event loop in dependency order, with no scheduler of our own.
 *
 * Each task is recorded as it runs (what it waited for, when it ran on the main thread's clock, how long the worker
 * computed), and the edges come from the data: a task depends on the tasks whose matrices it was given. Any promise
 * that resolves to a graph's matrix works as an argument (an `async` function's, a `.then`'s), and a matrix the
 * graph did not produce is refused with a message. graph-measures.ts turns the records into work and span.
 */
import type { Matrix } from './matrix.ts';

/** A future of a matrix: what `input` and `multiply` return and take. */
export type Future = Promise<Matrix>;

/** What a worker is asked to do: one product (its time is measured inside the worker). */
export interface MultiplyTask {
  kind: 'multiply';
  a: Matrix;
  b: Matrix;
}

/** A worker's answer: the product and the ms it spent computing it (on the worker's clock, a duration only). */
export interface MultiplyResult {
  c: Matrix;
  computeMs: number;
}

/** Where the products run: a piscina pool (its `run`), or a stand-in in the tests. */
export interface MatrixRunner {
  run(task: MultiplyTask): Promise<MultiplyResult>;
}

/** One task of a run, as recorded. */
export interface TaskRecord {
  /** 0, 1, 2... in the order `multiply` was called. */
  id: number;
  /** The ids of the tasks whose results it multiplied (inputs are not tasks: they cost nothing). */
  deps: number[];
  /** ms the worker spent on the product; NaN until it finished. */
  computeMs: number;
  /** When its inputs were ready and it was handed to the pool, and when its result came back (performance.now, ms). */
  readyAt: number;
  doneAt: number;
}

/** A graph was used in a way that hides its edges or leaves work behind; the message says what to do instead. */
export class TaskGraphError extends Error {
  readonly code = 'TASK_GRAPH';
  constructor(message: string) {
    super(message);
    this.name = 'TaskGraphError';
  }
}

/** Marks an input matrix in `producer`: not a task, so no edge. */
const INPUT = -1;

export class TaskGraph {
  /** Every task of this graph, in the order `multiply` was called. */
  readonly tasks: TaskRecord[] = [];
  readonly #inputs: readonly Matrix[];
  readonly #runner: MatrixRunner;
  /** Which task produced a matrix (INPUT for the inputs): how an argument's edge is found from its value. */
  readonly #producer = new WeakMap<Matrix, number>();

  constructor(runner: MatrixRunner, inputs: readonly Matrix[]) {
    this.#runner = runner;
    this.#inputs = inputs;
    for (const m of inputs) this.#producer.set(m, INPUT);
  }

  /** How many input matrices there are: input(0) ... input(count - 1). */
  get count(): number {
    return this.#inputs.length;
  }

  /** A future of input matrix `k` (already resolved: an input costs nothing). */
  input(k: number): Future {
    if (!Number.isInteger(k) || k < 0 || k >= this.#inputs.length) {
      return Promise.reject(new TaskGraphError(`input(${String(k)}): there are ${this.#inputs.length} inputs, numbered 0 to ${this.#inputs.length - 1}`));
    }
    return Promise.resolve(this.#inputs[k]!);
  }

  /** A future of left · right (in that order: the product is not commutative), computed on the pool once both are ready. */
  multiply(left: Future, right: Future): Future {
    const record: TaskRecord = { id: this.tasks.length, deps: [], computeMs: Number.NaN, readyAt: Number.NaN, doneAt: Number.NaN };
    this.tasks.push(record);
    return this.#run(record, left, right);
  }

  async #run(record: TaskRecord, left: Future, right: Future): Promise<Matrix> {
    const [a, b] = await Promise.all([left, right]);
    record.deps = [this.#edge(a, 'left', record.id), this.#edge(b, 'right', record.id)].filter((d) => d !== INPUT);
    record.readyAt = performance.now();
    const { c, computeMs } = await this.#runner.run({ kind: 'multiply', a, b });
    record.doneAt = performance.now();
    record.computeMs = computeMs;
    this.#producer.set(c, record.id);
    return c;
  }

  #edge(m: unknown, side: string, id: number): number {
    const from = m instanceof Float64Array ? this.#producer.get(m) : undefined;
    if (from === undefined) {
      throw new TaskGraphError(
        `multiply #${id}: its ${side} argument resolved to a matrix this graph did not produce. Pass the futures that ` +
          'input() and multiply() return (or promises that resolve to their matrices), not copies or matrices made elsewhere.',
      );
    }
    return from;
  }

  /**
   * Checks a finished run: `result` came out of this graph (an input or a task's product, not computed on the side),
   * and every task started has finished (a future nobody awaited would still be running: its time is not the run's).
   */
  finish(result: unknown, what: string): Matrix {
    const from = result instanceof Float64Array ? this.#producer.get(result) : undefined;
    if (from === undefined) throw new TaskGraphError(`${what} returned a matrix this graph did not produce: return the future of the last multiply() (or of input(0) when there is one input)`);
    const running = this.tasks.filter((t) => Number.isNaN(t.doneAt)).length;
    if (running > 0) {
      throw new TaskGraphError(`${what} returned while ${running} of its ${this.tasks.length} tasks were still running: every multiply() you start must lead to the result`);
    }
    return result as Matrix;
  }
}
