/**
 * A pool of module Web Workers that answer one request with one reply ({ id, ...} -> { id, result } or { id, error }).
 * terminate() ends every worker at once and rejects what is still pending, which is how Stop stops a run.
 * A worker that fails (its script throws or does not load) or a reply that cannot be read (`messageerror`: a clone
 * the page cannot deserialise) fails the pool: what is pending is rejected, and so is every later request, since a
 * reply that is lost or a worker that is gone would otherwise leave the run waiting for ever.
 */
export interface PoolReply<R> {
  id: number;
  result?: R;
  error?: string;
}

export class WorkerPool<Q, R> {
  readonly size: number;
  private readonly workers: Worker[];
  private readonly pending = new Map<number, { resolve(value: R): void; reject(error: Error): void }>();
  private nextId = 0;
  private terminated = false;
  /** Why the pool can no longer answer (a failed worker, an unreadable reply, Stop), or null. */
  private failure: Error | null = null;

  constructor(size: number, create: () => Worker) {
    this.size = size;
    this.workers = Array.from({ length: size }, () => {
      const worker = create();
      worker.onmessage = (event: MessageEvent<PoolReply<R>>) => {
        const waiting = this.pending.get(event.data.id);
        if (!waiting) return;
        this.pending.delete(event.data.id);
        if (event.data.error !== undefined) waiting.reject(new Error(event.data.error));
        else waiting.resolve(event.data.result as R);
      };
      worker.onerror = (event) => this.fail(new Error(`a worker failed: ${event.message || 'no message (could the worker script not load?)'}`));
      worker.onmessageerror = () => this.fail(new Error('a worker\'s reply could not be read (messageerror: the page could not deserialise what the worker sent)'));
      return worker;
    });
  }

  /** Sends a request to worker `index` (mod size); `transfer` lists buffers handed over instead of copied. */
  request(index: number, message: Q, transfer: Transferable[] = []): Promise<R> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[index % this.size]!.postMessage({ id, ...message }, transfer);
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    for (const worker of this.workers) worker.terminate();
    this.fail(new Error('the pool was stopped'));
  }
}
