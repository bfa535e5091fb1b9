/**
 * The learner's code, tried before a run: it is untrusted and may be wrong, throw or never end, so it runs in a
 * throwaway classic Web Worker (never on the page) with a time limit; a worker that runs past it is terminated, and
 * the page stays usable. A syntax or runtime error comes back with its line and column in the learner's code (the
 * worker's ErrorEvent and the error's stack name the script's line; the one line put before the code is taken off).
 */
import type { CodePosition } from './code-editor.ts';

/** The most one call of the learner's code may take (ms) before its worker is ended: the check's and each sample's. */
export const LEARNER_TIME_LIMIT_MS = 5_000;

/** A call of the learner's code that ran past its time limit (its worker was terminated). */
export class TimeLimitError extends Error {
  readonly code = 'TIME_LIMIT';
  constructor(limitMs: number, what: string) {
    super(`${what} did not finish within the ${limitMs / 1000} s time limit for one call, so its worker was ended (an endless loop? check that every loop's condition moves towards its end)`);
    this.name = 'TimeLimitError';
  }
}

/** What went wrong, for the editor: the message and, where known, the line and column in the learner's code. */
export interface CodeProblem {
  kind: 'syntax' | 'runtime' | 'time-limit' | 'shape';
  message: string;
  at: CodePosition | null;
}

/** Lines put before the learner's code in the worker's script ("use strict"): taken off every line number. */
const PREFIX_LINES = 1;

/** `message` with the position first, as the editor shows it: "Line 3, column 9: SyntaxError: ...". */
export function describeProblem(problem: CodeProblem): string {
  return problem.at ? `Line ${problem.at.line}, column ${problem.at.column}: ${problem.message}` : problem.message;
}

/**
 * The learner's position of the first stack frame in `scriptUrl` (the worker's script), or null. Frames look like
 * `at f (blob:http://host/uuid:4:20)` in Chromium and `f@blob:http://host/uuid:4:20` in Firefox and Safari.
 */
export function positionInStack(stack: string, scriptUrl: string, prefixLines: number, codeLines: number): CodePosition | null {
  for (const frame of stack.split('\n')) {
    const at = frame.lastIndexOf(`${scriptUrl}:`);
    if (at < 0) continue;
    const match = /^:(\d+):(\d+)/.exec(frame.slice(at + scriptUrl.length));
    if (!match) continue;
    const line = Number(match[1]) - prefixLines;
    if (line >= 1 && line <= codeLines) return { line, column: Number(match[2]) };
  }
  return null;
}

/**
 * The learner's position in a stack of code compiled with `new Function` (the pool's workers): V8 writes such frames
 * as `<anonymous>:L:C`, and its wrapper adds two lines (`function anonymous(` and `) {`) before the body.
 */
export function positionInFunctionStack(stack: string, bodyPrefixLines: number, codeLines: number): CodePosition | null {
  for (const match of stack.matchAll(/<anonymous>:(\d+):(\d+)/g)) {
    const line = Number(match[1]) - 2 - bodyPrefixLines;
    if (line >= 1 && line <= codeLines) return { line, column: Number(match[2]) };
  }
  return null;
}

/** The position a message carries as "(line L, column C)" (the pool's workers write it so), or null. */
export function positionInMessage(message: string): CodePosition | null {
  const match = /\(line (\d+), column (\d+)\)/.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
}

/**
 * `promise`, or a TimeLimitError after `limitMs`; `onTimeout` runs after the rejection is decided (it terminates the
 * worker, whose own rejection then comes too late to be the reason).
 */
export function withTimeLimit<T>(promise: Promise<T>, limitMs: number, what: string, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new TimeLimitError(limitMs, what));
      onTimeout();
    }, limitMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export interface TryOptions {
  /** The function the code must define. */
  fnName: string;
  args: unknown[];
  /**
   * A JavaScript function expression `(fn, args) => ...` run in the worker after the learner's code (so its lines
   * keep their numbers): it calls the learner's function its own way, and what it returns (or resolves to) comes back
   * as the value. Without it the function is called once with `args` and its return value comes back as it is.
   */
  harness?: string;
  limitMs?: number;
  /** Stop: ends the worker at once. */
  signal?: AbortSignal;
}

/**
 * Defines the learner's code in a fresh classic worker and calls `fnName(...args)` once. Resolves with its value or
 * the problem (never rejects): a syntax error, an exception, no such function, or the time limit.
 */
export function tryLearnerCode(source: string, options: TryOptions): Promise<{ value: unknown } | { problem: CodeProblem }> {
  const limitMs = options.limitMs ?? LEARNER_TIME_LIMIT_MS;
  const codeLines = source.split('\n').length;
  if (!/^[A-Za-z_$][\w$]*$/.test(options.fnName)) throw new Error(`fnName must be an identifier, not ${JSON.stringify(options.fnName)}`);
  // The call sits after the code, on lines of its own, so positions past the code are never the learner's.
  const script = `"use strict";\n${source}\n;(function () {
  if (typeof ${options.fnName} !== 'function') { postMessage({ shape: true }); return; }
  const fail = (e) => postMessage({ error: (e && e.name ? e.name + ': ' : '') + String(e && e.message !== undefined ? e.message : e), stack: String(e && e.stack || '') });
  try { ${options.harness === undefined ? `postMessage({ value: ${options.fnName}(...${JSON.stringify(options.args)}) });` : `Promise.resolve((${options.harness})(${options.fnName}, ${JSON.stringify(options.args)})).then((value) => postMessage({ value })).catch(fail);`} }
  catch (e) { fail(e); }
})();\n`;
  const url = URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
  const worker = new Worker(url);
  const ended = (): void => {
    worker.terminate();
    URL.revokeObjectURL(url);
  };
  const outcome = new Promise<{ value: unknown } | { problem: CodeProblem }>((resolve) => {
    options.signal?.addEventListener('abort', () => resolve({ problem: { kind: 'runtime', message: 'stopped', at: null } }), { once: true });
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      const message = (event.message || 'the code failed to load').replace(/^Uncaught /, '');
      const line = event.lineno - PREFIX_LINES;
      const at = line >= 1 && line <= codeLines ? { line, column: event.colno } : null;
      resolve({ problem: { kind: /^SyntaxError/.test(message) ? 'syntax' : 'runtime', message, at } });
    };
    worker.onmessage = (event: MessageEvent<{ shape?: true; value?: unknown; error?: string; stack?: string }>) => {
      const data = event.data ?? {};
      if (data.shape) resolve({ problem: { kind: 'shape', message: `the code must define a function ${options.fnName}`, at: null } });
      else if (data.error !== undefined) resolve({ problem: { kind: 'runtime', message: String(data.error), at: positionInStack(String(data.stack ?? ''), url, PREFIX_LINES, codeLines) } });
      else resolve({ value: data.value });
    };
  });
  return withTimeLimit(outcome, limitMs, `Your ${options.fnName}`, ended).then(
    (result) => {
      ended();
      return result;
    },
    (error: unknown) => ({ problem: { kind: 'time-limit' as const, message: (error as Error).message, at: null } }),
  );
}
