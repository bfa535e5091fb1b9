/**
 * The judge's channel to one runner, in the supervisor's process: one request in flight at a time, each answered once,
 * by the answers of its own type and number (ANSWERS), each stamped with the supervisor's clock on arrival; any other
 * answer (one the judge did not ask for, a second one, an answer to another request) is refused (RefusedAnswer), and
 * the caller fails the run's case for it.
 * Input: the requests of the sampling stages (judge-sampler.ts) and the runner's answer-type messages (from
 * supervise/attempt-messages.ts, `deliver`). Output: each request's answers with their arrival times (Answered), and
 * the watch of the call in flight for the supervisor's timer (Watch).
 */
import type { Activity, JudgeRequest, RunnerMessage } from './run-protocol.ts';

type Answer = Extract<RunnerMessage, { type: 'prepared' | 'sampled' | 'output' | 'shown' | 'ok' }>;
/** The answers each request waits for, in order. */
const ANSWERS = { prepare: ['prepared'], sample: ['sampled', 'output'], show: ['shown'], between: ['ok'], finish: [], probed: [] } as const;
/** A request's answers, each stamped with the supervisor's clock on arrival. */
export interface Answered {
  answers: Answer[];
  sentAt: number;
  receivedAt: number[];
}
type Request = JudgeRequest extends infer R ? (R extends { seq: number } ? Omit<R, 'seq'> : never) : never;
/** What a request waits for, with the limit its activity has (the supervisor ends the runner past it). */
export interface Watch {
  activity: Activity;
  limitMs: number;
  why: string;
}

/** A refused message: the judge did not ask for it (or not for it now). */
export class RefusedAnswer extends Error {
  /** The case the judge was asking about when it arrived, if it was asking. */
  readonly caseKey: string | null;
  constructor(message: string, caseKey: string | null) {
    super(message);
    this.name = 'RefusedAnswer';
    this.caseKey = caseKey;
  }
}

/**
 * The request-answer channel to one runner: one request in flight at a time, each answered once, by an answer of its
 * own type and number. `deliver` gets every answer-type message the runner sends, stamped on arrival.
 */
export class JudgeChannel {
  #seq = 0;
  #pending: { seq: number; type: Request['type']; caseKey: string | null; resolve(a: Answered): void; sentAt: number; answers: Answer[]; receivedAt: number[] } | null = null;
  #send: (request: JudgeRequest) => void;
  #watch: (watch: Watch | null) => void;
  #closed: Error | null = null;
  #reject: ((error: Error) => void) | null = null;
  /** Called before each request is sent, its clock read or its watch started (a graded run continues the runner: runner-freeze.ts). */
  onAsk: (() => void) | null = null;

  /** `send` posts a request; `watch` starts (or, with null, stops) the supervisor's timer for the call in flight. */
  constructor(send: (request: JudgeRequest) => void, watch: (watch: Watch | null) => void) {
    this.#send = send;
    this.#watch = watch;
  }

  /** The supervisor's clock when the request in flight was sent (ms), or null. */
  get inFlightSince(): number | null {
    return this.#pending?.sentAt ?? null;
  }

  /** The case the request in flight is about, if one is. */
  get pendingCase(): string | null {
    return this.#pending?.caseKey ?? null;
  }

  /** Sends a request and resolves with its answers, stamped with the supervisor's clock at send and at each arrival. */
  ask(request: Request, watch: Watch | null): Promise<Answered> {
    if (this.#closed) return Promise.reject(this.#closed);
    // One request in flight at a time (a forged 'check-output' could otherwise start a second 'show' over the first).
    if (this.#pending) return Promise.reject(new RefusedAnswer(`a request ('${request.type}') while '${this.#pending.type}' #${this.#pending.seq} waits for its answer`, this.#pending.caseKey));
    this.onAsk?.();
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#reject = reject;
      this.#watch(watch);
      const caseKey = 'caseKey' in request ? request.caseKey : null;
      // The clock reading is the last thing before the message leaves, the first thing when an answer arrives.
      this.#pending = { seq, type: request.type, caseKey, resolve, sentAt: performance.now(), answers: [], receivedAt: [] };
      this.#send({ ...request, seq } as JudgeRequest);
    });
  }

  /** Sends a request that has no answer of its own ('finish'). */
  tell(request: Request): void {
    this.#send({ ...request, seq: ++this.#seq } as JudgeRequest);
  }

  /** An answer-type message from the runner; throws RefusedAnswer when it is not the answer awaited now. */
  deliver(message: Answer, receivedAt: number): void {
    const pending = this.#pending;
    if (!pending) throw new RefusedAnswer(`an answer ('${message.type}') arrived that the harness did not ask for`, null);
    const awaited: string | undefined = ANSWERS[pending.type][pending.answers.length];
    if (message.seq !== pending.seq || awaited !== message.type) {
      throw new RefusedAnswer(`an answer ('${message.type}' #${message.seq}) arrived where the harness waited for '${awaited}' #${pending.seq}`, pending.caseKey);
    }
    pending.answers.push(message);
    pending.receivedAt.push(receivedAt);
    if (pending.answers.length < ANSWERS[pending.type].length) return;
    this.#pending = null;
    this.#watch(null);
    pending.resolve({ answers: pending.answers, sentAt: pending.sentAt, receivedAt: pending.receivedAt });
  }

  /** Ends the channel: the request in flight, and any later one, rejects with `error`. */
  close(error: Error): void {
    this.#closed ??= error;
    this.#pending = null;
    this.#reject?.(error);
  }
}
