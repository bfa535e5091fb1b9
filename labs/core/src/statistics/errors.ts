/**
 * The one error type of the statistics stage. Its message names the function, the argument, what is wrong with it
 * and how to fix it; `code` is stable so callers can map it to an exit code without parsing the text.
 */
export class StatisticsInputError extends RangeError {
  readonly code = 'STATISTICS_INVALID_INPUT';
  constructor(message: string) {
    super(message);
    this.name = 'StatisticsInputError';
  }
}

/**
 * Throws unless `xs` is a non-empty array of finite numbers. `fn` and `arg` name the caller and the argument in the
 * message, e.g. `median: xs is empty; pass at least one sample`.
 */
export function assertSamples(fn: string, arg: string, xs: readonly number[]): void {
  if (!Array.isArray(xs)) {
    throw new StatisticsInputError(`${fn}: ${arg} must be an array of numbers, got ${typeof xs}`);
  }
  if (xs.length === 0) {
    throw new StatisticsInputError(`${fn}: ${arg} is empty; pass at least one sample`);
  }
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new StatisticsInputError(
        `${fn}: ${arg}[${i}] is ${String(x)}; every sample must be a finite number (look at the code that produced it: a timer read before it started, or a division by zero)`,
      );
    }
  }
}

/** Throws unless `value` is a finite number greater than `min` (or at least `min` when `inclusive`). */
export function assertNumber(fn: string, arg: string, value: number, min: number, inclusive: boolean, hint = ''): void {
  const ok = typeof value === 'number' && Number.isFinite(value) && (inclusive ? value >= min : value > min);
  if (!ok) {
    const rule = `a finite number ${inclusive ? '>=' : '>'} ${min}`;
    throw new StatisticsInputError(`${fn}: ${arg} must be ${rule}, got ${String(value)}${hint ? `; ${hint}` : ''}`);
  }
}
