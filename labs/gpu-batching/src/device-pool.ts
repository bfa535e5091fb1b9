/**
 * Multi-device inference: one child process per device (device-main.ts), a shared queue of chunks, outputs written
 * back by position so order is preserved whatever finishes first. A chunk that fails is reported and retried (on any
 * device), never dropped; a device process that dies is restarted and its chunk requeued. Progress is reported per
 * device through `onEvent`.
 *
 * Why processes and not worker_threads: CUDA reads CUDA_VISIBLE_DEVICES once per process, so threads of one process
 * all see the same GPUs; and ONNX Runtime sessions in several threads of one process have crashed in the wild
 * (see /work/shared/TOOLCHAIN.md). A process per device isolates both.
 */
import type { ChildProcess } from 'node:child_process';
import { CHILD_CLOSE_TIMEOUT_MS, HarnessError, isNotImplemented, startChild } from '@parallel-course/harness';
import { fileURLToPath } from 'node:url';
import type { ChunkRequest, DeviceConfig, DeviceDataSource, DeviceMessage, Faults, ParentMessage } from './device-protocol.ts';
import type { SampleRange } from './impl.ts';
import type { ExecutionProvider } from './session.ts';

const DEVICE_MAIN = fileURLToPath(new URL('./device-main.ts', import.meta.url));

export interface DeviceSpec {
  /** Position in the pool (0, 1, ...): the name progress and errors use. */
  device: number;
  ep: ExecutionProvider;
  threads: number;
  /** The value of CUDA_VISIBLE_DEVICES for this process: a GPU index on CUDA, '' (no GPU visible) on CPU. */
  visibleDevices: string;
}

export interface DevicePoolOptions {
  devices: DeviceSpec[];
  modelPath: string;
  implDir: string;
  faults?: Faults;
  /** Attempts per chunk before the whole run fails (default 3). */
  maxAttempts?: number;
  /** Restarts per device process after it dies (default 2). */
  maxRestarts?: number;
  onEvent?: (event: PoolEvent) => void;
}

export type PoolEvent =
  | { type: 'progress'; device: number; samplesDone: number; samplesAssigned: number; totalDone: number; total: number }
  | { type: 'retry'; device: number; chunk: number; range: SampleRange; attempt: number; maxAttempts: number; reason: string }
  | { type: 'restart'; device: number; reason: string }
  | { type: 'halved'; device: number; from: number; to: number; reason: string };

/** One line for a person: what happened and what the pool does about it. */
export function describeEvent(event: PoolEvent): string {
  switch (event.type) {
    case 'progress':
      return `device ${event.device}: ${event.samplesDone}/${event.samplesAssigned} samples, total ${event.totalDone}/${event.total}`;
    case 'retry':
      return `chunk ${event.chunk} (samples ${event.range.start}..${event.range.start + event.range.count - 1}) failed on device ${event.device}: ` +
        `${event.reason}; retrying (attempt ${event.attempt} of ${event.maxAttempts})`;
    case 'restart':
      return `${event.reason}: restarting device ${event.device}`;
    case 'halved':
      return `device ${event.device}: allocation failed for a batch of ${event.from} (${event.reason}): halving to ${event.to} and retrying`;
  }
}

export interface DeviceStats {
  device: number;
  ep: ExecutionProvider;
  pid: number;
  samples: number;
  chunks: number;
  /** Time inside inference calls, ms. */
  busyMs: number;
  /** Sum of batch-read wall times, ms (reads overlap inference in the pipeline). */
  readMs: number;
  latenciesMs: number[];
  /** Largest resident memory the process reported after a chunk of this run, bytes (host memory, also on a GPU). */
  rssBytes: number;
}

export interface PoolRunResult {
  logits: Float32Array;
  devices: DeviceStats[];
  retries: number;
  wallMs: number;
}

export interface PoolRunOptions {
  /** Where the device processes read samples (default `disk`). */
  source?: DeviceDataSource;
  dir: string;
  datasetCount: number;
  ranges: SampleRange[];
  outputs: number;
  batch: number;
  prefetch: number;
}

interface DeviceProcess {
  spec: DeviceSpec;
  child: ChildProcess;
  pid: number;
  ep: ExecutionProvider;
  /** CUDA_VISIBLE_DEVICES as the device process itself reported it. */
  visibleDevices: string | null;
  restarts: number;
  stderr: () => string;
  busy: ChunkRequest | null;
  exited: Promise<void>;
  closing: boolean;
}

export class DevicePoolError extends HarnessError { readonly code = 'DEVICE_POOL_FAILED'; override name = 'DevicePoolError'; }

/**
 * Environment of a device process: the parent's, with this device's CUDA_VISIBLE_DEVICES set before it starts.
 * CUDA_DEVICE_ORDER=PCI_BUS_ID makes CUDA number GPUs as nvidia-smi does (CUDA's default puts the fastest first).
 */
function deviceEnv(base: NodeJS.ProcessEnv, spec: DeviceSpec): NodeJS.ProcessEnv {
  return { ...base, CUDA_DEVICE_ORDER: 'PCI_BUS_ID', CUDA_VISIBLE_DEVICES: spec.visibleDevices };
}

async function startDevice(spec: DeviceSpec, options: DevicePoolOptions, restarts: number): Promise<DeviceProcess> {
  const config: DeviceConfig = {
    device: spec.device,
    ep: spec.ep,
    threads: spec.threads,
    modelPath: options.modelPath,
    implDir: options.implDir,
    ...(options.faults ? { faults: options.faults } : {}),
  };
  type Ready = Extract<DeviceMessage, { type: 'ready' }>;
  let handle;
  try {
    handle = await startChild<DeviceMessage, Ready>({
      script: DEVICE_MAIN,
      args: [JSON.stringify(config)],
      env: deviceEnv(process.env, spec),
      serialization: 'advanced',
      name: `device ${spec.device} (${spec.ep})`,
      // Start-up (Node loading TypeScript, ONNX Runtime the 15 MB model: about 0.5 s here, longer for CUDA) within
      // startChild's default.
      isReady: (m): m is Ready => m.type === 'ready',
      startFailure: (m) => (m.type === 'failed' ? m.message : null),
    });
  } catch (error) {
    // The child's own "not implemented: ..." passes through unchanged, so the check reports it as a TODO.
    const message = (error as Error).message;
    throw new DevicePoolError(isNotImplemented(error) ? message : message.startsWith(`device ${spec.device}`) ? message : `device ${spec.device} (${spec.ep}) did not start: ${message}`);
  }
  const { child, ready } = handle;
  if (ready.ep !== spec.ep) {
    child.kill('SIGKILL');
    throw new DevicePoolError(`device ${spec.device} asked for ${spec.ep} but its session runs on ${ready.ep}: refusing a silent fallback`);
  }
  const exited = handle.exited.then(() => undefined);
  return { spec, child, pid: ready.pid, ep: ready.ep, visibleDevices: ready.visibleDevices, restarts, stderr: handle.stderrTail, busy: null, exited, closing: false };
}

export interface DevicePool {
  readonly devices: readonly { device: number; ep: ExecutionProvider; pid: number; visibleDevices: string | null }[];
  run(options: PoolRunOptions): Promise<PoolRunResult>;
  close(): Promise<void>;
}

/** Starts one process per device and waits until each has loaded the model. */
export async function startDevicePool(options: DevicePoolOptions): Promise<DevicePool> {
  if (options.devices.length === 0) throw new DevicePoolError('a device pool needs at least one device');
  const maxAttempts = options.maxAttempts ?? 3;
  const maxRestarts = options.maxRestarts ?? 2;
  const emit = options.onEvent ?? (() => {});
  const started = await Promise.allSettled(options.devices.map((spec) => startDevice(spec, options, 0)));
  const procs: DeviceProcess[] = [];
  for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
  const failure = started.find((s) => s.status === 'rejected');
  if (failure) {
    await Promise.all(procs.map((p) => closeDevice(p)));
    throw failure.reason;
  }
  let running = false;
  /** Set when a run failed with chunks still in flight: their late answers would confuse the next run. */
  let broken: string | null = null;
  /** Restarts in progress, so close() can wait for them and never leave a process behind. */
  const pendingStarts = new Set<Promise<unknown>>();

  async function closeDevice(p: DeviceProcess): Promise<void> {
    p.closing = true;
    if (p.child.connected) p.child.send({ type: 'close' } satisfies ParentMessage);
    const timer = setTimeout(() => p.child.kill('SIGKILL'), CHILD_CLOSE_TIMEOUT_MS);
    await p.exited;
    clearTimeout(timer);
  }

  async function run(run: PoolRunOptions): Promise<PoolRunResult> {
    if (running) throw new DevicePoolError('this device pool is already running a job');
    if (broken) throw new DevicePoolError(`this device pool cannot run again after a failed run (${broken}): start a new one`);
    running = true;
    const t0 = performance.now();
    const total = run.ranges.reduce((sum, r) => sum + r.count, 0);
    const logits = new Float32Array(run.datasetCount * run.outputs);
    const stats = new Map<number, DeviceStats>();
    const statsOf = (p: DeviceProcess) => {
      let s = stats.get(p.spec.device);
      if (!s) {
        s = { device: p.spec.device, ep: p.ep, pid: p.pid, samples: 0, chunks: 0, busyMs: 0, readMs: 0, latenciesMs: [], rssBytes: 0 };
        stats.set(p.spec.device, s);
      }
      return s;
    };
    const assigned = new Map<number, number>();
    const queue: ChunkRequest[] = run.ranges.map((range, id) => ({
      type: 'chunk',
      source: run.source ?? 'disk',
      id,
      attempt: 1,
      dir: run.dir,
      datasetCount: run.datasetCount,
      start: range.start,
      count: range.count,
      batch: run.batch,
      prefetch: run.prefetch,
    }));
    let remaining = queue.length;
    let retries = 0;
    let totalDone = 0;

    try {
      return await new Promise<PoolRunResult>((resolve, reject) => {
        let settled = false;
        const listeners: (() => void)[] = [];
        const finish = (error: Error | null) => {
          if (settled) return;
          settled = true;
          for (const off of listeners) off();
          if (error && procs.some((p) => p.busy)) broken = error.message;
          if (error) reject(error);
          else resolve({ logits, devices: [...stats.values()].sort((a, b) => a.device - b.device), retries, wallMs: performance.now() - t0 });
        };

        const requeue = (p: DeviceProcess, chunk: ChunkRequest, reason: string) => {
          if (isNotImplemented(reason)) return finish(new DevicePoolError(reason));
          if (chunk.attempt >= maxAttempts) {
            return finish(new DevicePoolError(
              `chunk ${chunk.id} (samples ${chunk.start}..${chunk.start + chunk.count - 1}) failed ${chunk.attempt} times, last on device ${p.spec.device}: ${reason}`,
            ));
          }
          retries++;
          emit({ type: 'retry', device: p.spec.device, chunk: chunk.id, range: { start: chunk.start, count: chunk.count }, attempt: chunk.attempt + 1, maxAttempts, reason });
          queue.unshift({ ...chunk, attempt: chunk.attempt + 1 });
        };

        const dispatch = () => {
          if (settled) return;
          if (remaining === 0) return finish(null);
          for (const p of procs) {
            if (!p.child.connected) p.closing = true; // died between runs: never send to it
            if (p.busy || p.closing || queue.length === 0) continue;
            const chunk = queue.shift() as ChunkRequest;
            p.busy = chunk;
            assigned.set(p.spec.device, (assigned.get(p.spec.device) ?? 0) + chunk.count);
            p.child.send(chunk satisfies ParentMessage);
          }
          if (!procs.some((p) => !p.closing)) finish(new DevicePoolError('every device process has died; see the retries reported above'));
        };

        const attach = (p: DeviceProcess) => {
          const onMessage = (message: DeviceMessage) => {
            if (message.type === 'halved') {
              emit({ type: 'halved', device: p.spec.device, from: message.from, to: message.to, reason: message.message });
              return;
            }
            if (message.type !== 'done' && message.type !== 'chunk-failed') return;
            const chunk = p.busy;
            if (!chunk || chunk.id !== message.id) return;
            p.busy = null;
            if (message.type === 'chunk-failed') {
              requeue(p, chunk, message.message);
            } else if (message.logits.length !== chunk.count * run.outputs) {
              requeue(p, chunk, `it returned ${message.logits.length} outputs for ${chunk.count} samples (expected ${chunk.count * run.outputs})`);
            } else {
              logits.set(message.logits, chunk.start * run.outputs); // by position: order preserved
              const s = statsOf(p);
              s.samples += chunk.count;
              s.chunks++;
              s.busyMs += message.busyMs;
              s.readMs += message.readMs;
              s.latenciesMs.push(...message.latenciesMs);
              s.rssBytes = Math.max(s.rssBytes, message.rssBytes);
              remaining--;
              totalDone += chunk.count;
              emit({ type: 'progress', device: p.spec.device, samplesDone: s.samples, samplesAssigned: assigned.get(p.spec.device) ?? 0, totalDone, total });
            }
            dispatch();
          };
          const onExit = async (code: number | null, signal: string | null) => {
            if (p.closing || settled) return;
            const reason = `device ${p.spec.device} process ${p.pid} exited (code ${code}, signal ${signal})`;
            const chunk = p.busy;
            p.busy = null;
            p.closing = true;
            if (chunk) requeue(p, chunk, reason);
            if (p.restarts < maxRestarts) {
              emit({ type: 'restart', device: p.spec.device, reason });
              const starting = startDevice(p.spec, options, p.restarts + 1);
              pendingStarts.add(starting);
              try {
                const fresh = await starting;
                procs[procs.indexOf(p)] = fresh;
                if (settled) return;
                attach(fresh);
              } catch (error) {
                emit({ type: 'restart', device: p.spec.device, reason: `restart failed: ${(error as Error).message}` });
              } finally {
                pendingStarts.delete(starting);
              }
            }
            dispatch();
          };
          p.child.on('message', onMessage);
          p.child.on('exit', onExit);
          listeners.push(() => {
            p.child.off('message', onMessage);
            p.child.off('exit', onExit);
          });
        };

        for (const p of procs) attach(p);
        dispatch();
      });
    } finally {
      running = false;
    }
  }

  return {
    get devices() {
      return procs.map((p) => ({ device: p.spec.device, ep: p.ep, pid: p.pid, visibleDevices: p.visibleDevices }));
    },
    run,
    async close() {
      await Promise.allSettled([...pendingStarts]);
      await Promise.all(procs.map((p) => closeDevice(p)));
    },
  };
}
