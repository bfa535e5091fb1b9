/**
 * Entry point of one server process (forked by server-process.ts): one variant per process, so each variant gets
 * its own event loop, its own libuv threadpool and its own pool threads, as a real deployment would.
 * Talks to the harness over the IPC channel: sends {type:'ready', port}, answers 'loop-delay' and 'reset-loop-delay'
 * with event-loop delay from perf_hooks.monitorEventLoopDelay, answers 'probe' by deriving one ring itself while it
 * counts the event loop's turns (the check of each variant's property, properties.ts), and closes on 'close'.
 * It serves its routes on loopback TCP (the load) and on a Unix socket in the run's temp folder (the judge's probe).
 */
import { exitWithParent, importLearnerModule, leaveParent } from '@parallel-course/harness/learner.ts';
import { HANDLERS } from './learner-files.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import os from 'node:os';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import { createInlineHandler } from './inline-handler.ts';
import { createLabServer } from './server.ts';
import { deriveKeySync, type RingHandler } from './work.ts';
import type { ProbeReport, ServerMessage, ServerRequest, VariantName } from './protocol.ts';

interface ImplModule {
  createChunkedHandler(): RingHandler;
  createPoolHandler(workers: number): RingHandler | Promise<RingHandler>;
  createThreadpoolHandler(): RingHandler;
}

function send(message: ServerMessage): void {
  process.send?.(message);
}

async function createHandler(variant: VariantName, workers: number, implDir: string): Promise<RingHandler> {
  if (variant === 'inline') return createInlineHandler();
  const impl = await importLearnerModule<ImplModule>(implDir, HANDLERS);
  if (variant === 'chunked') return impl.createChunkedHandler();
  if (variant === 'threadpool') return impl.createThreadpoolHandler();
  return impl.createPoolHandler(workers);
}

// The learner's handlers run here: end with the harness even if they block this process's event loop.
exitWithParent({ evenIfBlocked: true });

// Every worker thread started from here on (the parent watchdog above is already running): Node publishes each new
// Worker on this channel, whoever creates it (piscina, or the learner's own code).
let threadsStarted = 0;
diagnosticsChannel.subscribe('worker_threads', () => {
  threadsStarted++;
});

/**
 * Derives one ring through the handler, as a request would, while a setImmediate heartbeat counts the event loop's
 * turns: a handler that lets the loop turn between its pieces (or waits off the loop) gives the heartbeat, and any
 * /ping, a turn; one that continues in the microtask queue (await Promise.resolve()) gives none until it is done.
 */
async function probe(handler: RingHandler, account: number, threadsAtReady: number): Promise<ProbeReport> {
  const keyStarted = performance.now();
  deriveKeySync(account, 0);
  const keyMs = performance.now() - keyStarted;
  let turns = 0;
  let running = true;
  const started = performance.now();
  let last = started;
  let longestBlockMs = 0;
  const beat = () => {
    if (!running) return;
    const now = performance.now();
    longestBlockMs = Math.max(longestBlockMs, now - last);
    last = now;
    turns++;
    setImmediate(beat);
  };
  setImmediate(beat);
  let body: string | null = null;
  let error: string | null = null;
  try {
    body = await handler.derive(account);
  } catch (thrown) {
    // Bounded: the judge reads at most MAX_EVIDENCE_TEXT characters of a field.
    error = (thrown instanceof Error ? thrown.message : String(thrown)).slice(0, 1000);
  }
  const ended = performance.now();
  running = false;
  longestBlockMs = Math.max(longestBlockMs, ended - last);
  return { body, error, turns, ringMs: ended - started, longestBlockMs, keyMs, threadsAtReady, threadsSince: threadsStarted - threadsAtReady };
}

/** The longest path a Unix socket may have, in bytes: sun_path holds 108 on Linux and 104 on macOS, with its NUL. */
const MAX_SOCKET_PATH_BYTES = 103;

async function main(): Promise<void> {
  const [variant, workersText, implDir] = process.argv.slice(2) as [VariantName, string, string];
  const workers = Number(workersText);
  const handler = await createHandler(variant, workers, implDir);
  // Warm up before anyone measures: start pool threads, compile the hot code, fill the threadpool.
  await Promise.all(Array.from({ length: Math.max(2, workers) }, (_, i) => handler.derive(i)));
  const threadsAtReady = threadsStarted;

  // Resolution 5 ms: the histogram's timer wakes the loop 200 times a second, cheap next to the work it watches,
  // and delays that matter here (a blocked loop) are tens of ms.
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const server = createLabServer(handler);
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  // The same routes on a Unix socket in the run's temp folder: the harness's judge probes the handler from its own
  // process through it (outside-probe.ts), even where this process has a network of its own (the OS sandbox).
  const socketPath = path.join(os.tmpdir(), `event-loop-${process.pid}.sock`);
  const socketBytes = Buffer.byteLength(socketPath);
  if (socketBytes > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `the event-loop server's Unix socket for the harness's probe, ${socketPath}, is ${socketBytes} bytes, over the ${MAX_SOCKET_PATH_BYTES} a socket's path may have: ` +
        'set TMPDIR to a shorter folder (export TMPDIR=/tmp) and run again',
    );
  }
  rmSync(socketPath, { force: true });
  const probeServer = createLabServer(handler);
  probeServer.listen(socketPath);
  await once(probeServer, 'listening');

  process.on('message', async (message: ServerRequest) => {
    if (message.type === 'reset-loop-delay') {
      delay.reset();
      send({ type: 'loop-delay-reset' });
    } else if (message.type === 'loop-delay') {
      // The histogram is in nanoseconds; the harness works in ms.
      send({
        type: 'loop-delay',
        p50Ms: delay.percentile(50) / 1e6,
        p99Ms: delay.percentile(99) / 1e6,
        maxMs: delay.max / 1e6,
        count: delay.count,
      });
      delay.reset();
    } else if (message.type === 'probe') {
      send({ type: 'probe', ...(await probe(handler, message.account, threadsAtReady)) });
    } else if (message.type === 'close') {
      delay.disable();
      server.closeAllConnections();
      server.close();
      probeServer.closeAllConnections();
      probeServer.close();
      await handler.close();
      leaveParent();
    }
  });
  send({ type: 'ready', port: address.port, socketPath });
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  send({ type: 'failed', message });
  process.exitCode = 1;
  leaveParent();
});
