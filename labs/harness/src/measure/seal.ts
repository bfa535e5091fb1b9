/**
 * Puts the clock, the sample recorder and the runner's channel to the supervisor out of reach of the code the runner
 * loads after it (the lab's and the learner's), sealed before any lab module is imported. The recorded sample is the
 * supervisor's (judge-sampler.ts); the runner's own clock is kept honest for the comparison it reports, and for the
 * in-process measuring of lab tests (measure.ts):
 * - `performance` and Performance.prototype, process.hrtime (tinybench binds its clock from them at import);
 * - tinybench's Bench and Task classes (a learner module can import 'tinybench' and patch Bench.prototype.run);
 * - process.send: only the sender `sealMeasurement` hands back, once, to its first caller (run-child.ts, before any
 *   lab module loads) may use the IPC channel; it is exported from no module, so learner code that imports this one
 *   gets no sender (a second call throws), and cannot post forged answers (the supervisor also refuses any answer
 *   it did not ask for, or a second one: judge-channel.ts JudgeChannel).
 * - the supervisor's requests ('message' events, run-protocol.ts JudgeRequest): the harness's listener is the only
 *   one, added here; no other may be added or removed and process.emit is locked, so learner code cannot read a
 *   request (a sample's fresh input) before the harness does, nor hold up the harness's answer to one while it works
 *   on it outside the timed window (judge-sampler.ts). Only `takeRequests` (once, run-child.ts) receives them.
 * A patch attempt then throws in the learner's module (ES modules are strict), and the case fails naming the file.
 */
import { Bench, Task } from 'tinybench';

type SendArgs = [message: unknown, handle: undefined, options: object, callback: (error: Error | null) => void];

let sealed = false;
let senderTaken = false;
let realSend: ((...args: SendArgs) => boolean) | null = null;
let ours = false;

/** Message for code that tries the channel. */
const CHANNEL_CLOSED = 'process.send is reserved for the harness in the lab process: lab and learner code report through return values';

function lockProperty(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: false, configurable: false, enumerable: true });
}

const arrayIterator = Object.getPrototypeOf([][Symbol.iterator]()) as object;
const typedArray = Object.getPrototypeOf(Float64Array) as { prototype: object };
/** The built-ins tinybench and measure.ts call between the clock readings and the message that carries them. */
const BUILT_INS: object[] = [
  Array, Array.prototype, arrayIterator, Object.getPrototypeOf(arrayIterator) as object, typedArray, typedArray.prototype,
  Float64Array, Float64Array.prototype, Promise, Promise.prototype, Function.prototype, Math, JSON, Reflect,
  Number, Number.prototype, BigInt, BigInt.prototype, Map.prototype, Set.prototype, Date, Date.prototype,
];

/** Message for code that listens to the supervisor's requests. */
export const REQUESTS_CLOSED = "the supervisor's requests are the harness's in the lab process: lab and learner code may not listen to process 'message' events";

/** The one handler of the supervisor's requests (takeRequests), and whether it was handed out. */
let onRequest: ((request: unknown) => void) | null = null;
let requestsTaken = false;

/**
 * The supervisor's requests, for run-child.ts alone: the first call subscribes (returns the unsubscribe); a second
 * throws (ALREADY_SEALED).
 */
export function takeRequests(): (handler: (request: unknown) => void) => () => void {
  if (requestsTaken) throw new Error(ALREADY_SEALED);
  requestsTaken = true;
  return (handler) => {
    onRequest = handler;
    return () => {
      if (onRequest === handler) onRequest = null;
    };
  };
}

/** Makes the harness's listener the only 'message' listener process will ever have. */
function sealRequests(): void {
  process.on('message', (request: unknown) => onRequest?.(request));
  lockProperty(process, 'emit', process.emit);
  // EventEmitter's methods, called on process from its prototype too, all go through process._events.
  const events = (process as unknown as { _events: Record<PropertyKey, unknown> })._events;
  const guarded = new Proxy(events, {
    set(target, key, value) {
      if (key === 'message') throw new Error(REQUESTS_CLOSED);
      return Reflect.set(target, key, value);
    },
    defineProperty(target, key, descriptor) {
      if (key === 'message') throw new Error(REQUESTS_CLOSED);
      return Reflect.defineProperty(target, key, descriptor);
    },
    deleteProperty(target, key) {
      if (key === 'message') throw new Error(REQUESTS_CLOSED);
      return Reflect.deleteProperty(target, key);
    },
  });
  // The listener array itself: no other listener pushed into it, none taken out.
  const listeners = events['message'];
  if (Array.isArray(listeners)) Object.freeze(listeners);
  lockProperty(process, '_events', guarded);
}

/** Message for a second call of sealMeasurement (learner code importing this module). */
const ALREADY_SEALED = 'the lab process is sealed already: its channel to the supervisor belongs to the harness';

/** Sends one message to the supervisor; resolves when it has left (or at once when there is no channel). */
export type SupervisorSender = (message: unknown) => Promise<void>;

/**
 * Seals the timing path and returns the one sender to the supervisor. Call once, before loading any lab or learner
 * module; a second call throws (ALREADY_SEALED).
 */
export function sealMeasurement(): SupervisorSender {
  if (senderTaken) throw new Error(ALREADY_SEALED);
  senderTaken = true;
  seal();
  return sendToSupervisor;
}

function seal(): void {
  if (sealed) return;
  sealed = true;
  const perf = globalThis.performance;
  lockProperty(globalThis, 'performance', perf);
  for (const object of [...BUILT_INS, perf, Object.getPrototypeOf(perf), process.hrtime, Bench, Bench.prototype, Task, Task.prototype]) Object.freeze(object);
  lockProperty(process, 'hrtime', process.hrtime);
  sealRequests();

  if (typeof process.send !== 'function') return;
  const send = process.send as unknown as (...args: SendArgs) => boolean;
  const internal = (process as unknown as { _send: (...args: unknown[]) => boolean })._send;
  realSend = send;
  // process.send calls this._send: the guard lets only sendToSupervisor's calls through.
  lockProperty(process, '_send', function guardedSend(this: unknown, ...args: unknown[]) {
    if (!ours) throw new Error(CHANNEL_CLOSED);
    return internal.apply(this, args);
  });
  lockProperty(process, 'send', () => {
    throw new Error(CHANNEL_CLOSED);
  });
}

function sendToSupervisor(message: unknown): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    const send = realSend ?? (process.send as unknown as ((...args: SendArgs) => boolean) | undefined);
    if (!send) return resolve();
    ours = true;
    try {
      send.call(process, message, undefined, {}, () => resolve());
    } finally {
      ours = false;
    }
  });
}
